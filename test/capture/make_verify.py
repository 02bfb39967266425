#!/usr/bin/env python3
"""make_verify.py [OUTDIR]: the capture bundles of yobx-export --verify's tests, in
test/models/bundles (default). Run in the torch chroot (torch 2.14), from the checkout:

    ../shared/tools/torch-env.sh run sid python3 test/capture/make_verify.py

verify_nested.yxc       models.verify_nested captured (nostrict only) with every submodule's
                        outputs recorded: --verify passes, every module compared
verify_output_bad.yxc   the same, its recorded eager output 0 altered (+0.5 at element 0):
                        --verify fails (exit 1) naming that output; no module diverges
verify_module_bad.yxc   the same, module call 'blocks.1' (the second Block) recorded output
                        and the final output altered: --verify fails naming blocks.1 first
"""

import json
import os
import struct
import sys
import zipfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "cmd"))
sys.path.insert(0, here)

import torch  # noqa: E402
import yobx_capture  # noqa: E402
import models  # noqa: E402


def alter(src, dst, files):
    """Copies bundle src to dst with element 0 (float32) of each entry in files raised by 0.5."""
    with zipfile.ZipFile(src) as z:
        entries = [(i.filename, z.read(i.filename)) for i in z.infolist()]
    cap = json.loads(dict(entries)["capture.json"])
    cap["note"] = "altered after capture (+0.5 at element 0 of %s): a --verify fixture" % ", ".join(files)
    with zipfile.ZipFile(dst + ".tmp", "w", zipfile.ZIP_STORED) as z:
        for name, data in entries:
            if name == "capture.json":
                data = (json.dumps(cap, indent=1) + "\n").encode()
            elif name in files:
                v = struct.unpack("<f", data[:4])[0] + 0.5
                data = struct.pack("<f", v) + data[4:]
            yobx_capture._aligned_write(z, name, data)
    os.replace(dst + ".tmp", dst)


def main(argv):
    out = argv[0] if argv else os.path.join(here, "..", "models", "bundles")
    torch.manual_seed(0)
    model, args = models.verify_nested()
    ok = os.path.join(out, "verify_nested.yxc")
    s = yobx_capture.capture(model, args, ok, strategies=["nostrict"], verbose=True)
    calls = [m["name"] for m in s["modules"]]
    print("  modules recorded:", ", ".join(calls))
    out0 = s["outputs"][0]["file"]
    alter(ok, os.path.join(out, "verify_output_bad.yxc"), [out0])
    k = calls.index("blocks.1")
    alter(ok, os.path.join(out, "verify_module_bad.yxc"), [s["modules"][k]["outputs"][0]["file"], out0])
    for n in ("verify_nested", "verify_output_bad", "verify_module_bad"):
        print("  %s.yxc: %d bytes" % (n, os.path.getsize(os.path.join(out, n + ".yxc"))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
