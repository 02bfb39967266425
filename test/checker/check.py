"""check.py MODEL.onnx...: onnx.checker.check_model(full_check=True) on each
model; prints a line per failure and "checker: N ok, N failed"; exit 1 on any
failure.  Needs the onnx package (the torch-env sid chroot has onnx 1.20)."""
import sys

import onnx

ok = bad = 0
for f in sys.argv[1:]:
    try:
        onnx.checker.check_model(onnx.load(f), full_check=True)
        ok += 1
    except Exception as e:  # noqa: BLE001 - every failure is reported, then counted
        bad += 1
        print("FAIL", f, str(e).splitlines()[0][:300])
print("checker: %d ok, %d failed" % (ok, bad))
sys.exit(1 if bad else 0)
