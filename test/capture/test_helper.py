#!/usr/bin/env python3
"""test_helper.py: tests of cmd/yobx_capture.py, run by test/capture/run.sh in a torch
chroot (torch 2.6 or 2.14). Prints "ok - ..." / "FAIL - ..." lines and
"helper: N passed, N failed"; exits 1 on a failure."""

import json
import os
import struct
import subprocess
import sys
import tempfile
import zipfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "cmd"))
sys.path.insert(0, here)

import torch  # noqa: E402
import yobx_capture  # noqa: E402
import models  # noqa: E402

passed = failed = 0


def check(cond, what, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print("ok - %s" % what)
    else:
        failed += 1
        print("FAIL - %s%s" % (what, (": %s" % (detail,)) if detail != "" else ""))


def data_offsets(path):
    """name -> offset of the entry's data in the file, read from the local headers."""
    out = {}
    with zipfile.ZipFile(path) as z, open(path, "rb") as f:
        for i in z.infolist():
            f.seek(i.header_offset)
            h = f.read(30)
            n, x = struct.unpack("<HH", h[26:30])
            out[i.filename] = (i.header_offset + 30 + n + x, i.compress_type)
    return out


def test_bundle_layout(tmp):
    model, args, ds = models.every_strategy()
    path = os.path.join(tmp, "a.yxc")
    s = yobx_capture.capture(model, args, path, dynamic_shapes=ds,
                             strategies=["nostrict", "strict", "jit"])
    check([a["strategy"] for a in s["attempts"]] == ["nostrict", "strict", "jit"],
          "attempts in the order asked", s["attempts"])
    check(all(a["ok"] for a in s["attempts"]), "all three captured", s["attempts"])
    check(all(isinstance(a["seconds"], float) and a["seconds"] >= 0 for a in s["attempts"]),
          "each attempt has its seconds")
    with zipfile.ZipFile(path) as z:
        cap = json.loads(z.read("capture.json"))
        names = z.namelist()
        check(cap == s, "capture.json is the returned summary")
        check(cap["format"] == "yobx-capture" and cap["version"] == 1, "format and version")
        check(cap["torch"] == torch.__version__, "torch version recorded", cap["torch"])
        check(cap["model_class"] == "models.SmallMLP", "model class recorded", cap["model_class"])
        check(names[0] == "capture.json" and "captures/nostrict.pt2" in names
              and "captures/jit.pt" in names, "entries", names)
        x = z.read(cap["inputs"][0]["file"])
        check(x == args[0].numpy().tobytes() and cap["inputs"][0]["shape"] == [4, 6]
              and cap["inputs"][0]["dtype"] == "float32", "input bytes, shape and dtype")
        with torch.no_grad():
            y = model(*args)
        check(z.read(cap["outputs"][0]["file"]) == y.numpy().tobytes(), "eager output bytes")
        # the .pt2 inside loads back as an ExportedProgram
        ep = torch.export.load(z.open("captures/nostrict.pt2"))
        check(torch.allclose(ep.module()(*args), y), "the nostrict capture runs")
    offs = data_offsets(path)
    check(all(m == zipfile.ZIP_STORED for _, m in offs.values()), "every entry stored")
    check(all(o % 64 == 0 for o, _ in offs.values()), "every entry's data 64-byte aligned",
          {k: o % 64 for k, (o, _) in offs.items()})


def test_raising_strategy_does_not_stop(tmp):
    model, args = models.only_tracing()
    path = os.path.join(tmp, "b.yxc")
    s = yobx_capture.capture(model, args, path,
                             strategies=["nostrict", "strict", "tracing", "jit"])
    by = {a["strategy"]: a for a in s["attempts"]}
    check(not by["nostrict"]["ok"] and by["nostrict"]["error"]["type"] == "RuntimeError"
          and "refuses torch.export" in by["nostrict"]["error"]["message"],
          "a raising strategy is recorded with its type and message", by["nostrict"])
    check(by["tracing"]["ok"] and by["jit"]["ok"], "the others still ran", s["attempts"])
    with zipfile.ZipFile(path) as z:
        check("captures/nostrict.pt2" not in z.namelist(), "no file for a failed capture")


def test_bfloat16_and_scalars(tmp):
    class M(torch.nn.Module):
        def forward(self, x, n: int):
            return x * 2, x.shape[0] + n, 0.5, None
    x = torch.randn(3, 2).to(torch.bfloat16)
    path = os.path.join(tmp, "c.yxc")
    s = yobx_capture.capture(M(), (x, 3), path, strategies=["nostrict"])
    with zipfile.ZipFile(path) as z:
        ins, outs = s["inputs"], s["outputs"]
        check([i["dtype"] for i in ins] == ["bfloat16", "int64"], "input dtypes", ins)
        check(z.read(ins[0]["file"]) == x.view(torch.int16).numpy().tobytes(),
              "bfloat16 stored as its bit pattern")
        check([(o["dtype"], o["shape"]) for o in outs]
              == [("bfloat16", [3, 2]), ("int64", []), ("float64", [])],
              "int and float outputs as 0-d tensors, None dropped", outs)
        check(struct.unpack("<q", z.read(outs[1]["file"]))[0] == 6, "the int output's value")


def test_unknown_strategy(tmp):
    try:
        yobx_capture.capture(models.SmallMLP(), (torch.randn(1, 6),), os.path.join(tmp, "d.yxc"),
                             strategies=["nostrict", "bogus"])
        check(False, "an unknown strategy raises")
    except ValueError as e:
        check("bogus" in str(e), "an unknown strategy raises ValueError naming it", e)
    check(not os.path.exists(os.path.join(tmp, "d.yxc")), "and writes nothing")


def test_cli(tmp):
    out = os.path.join(tmp, "e.yxc")
    script = os.path.join(here, "..", "..", "cmd", "yobx_capture.py")
    r = subprocess.run([sys.executable, script, "models:strict_fails", "-o", out,
                        "--strategies", "nostrict,strict"], cwd=here, capture_output=True, text=True)
    check(r.returncode == 0, "the command line captures", r.stderr[-500:])
    check("1 of 2 captures (nostrict)" in r.stdout, "and says what it captured", r.stdout)
    with zipfile.ZipFile(out) as z:
        cap = json.loads(z.read("capture.json"))
    check([a["ok"] for a in cap["attempts"]] == [True, False], "strict failed, nostrict worked",
          cap["attempts"])
    r = subprocess.run([sys.executable, script, "models", "-o", out], cwd=here,
                       capture_output=True, text=True)
    check(r.returncode != 0 and "MODULE:FACTORY" in r.stderr, "a bad factory spec is refused",
          r.stderr[-300:])


def test_module_outputs(tmp):
    """Every submodule call recorded in the order the calls end, child before parent, the
    bytes in modules/; the cap leaves calls out and counts them; 0 records none."""
    model, args = models.verify_nested()
    out = os.path.join(tmp, "m.yxc")
    s = yobx_capture.capture(model, args, out, strategies=["nostrict"])
    names = [m["name"] for m in s.get("modules", [])]
    check(names == ["blocks.0.fc", "blocks.0.act", "blocks.0", "blocks.1.fc", "blocks.1.act",
                    "blocks.1", "blocks", "head"], "module calls in the order they end", names)
    check(s["modules_skipped"] == 0, "none skipped under the default cap", s["modules_skipped"])
    with zipfile.ZipFile(out) as z:
        m = s["modules"][5]
        got = z.read(m["outputs"][0]["file"])
        want = model.blocks[1](model.blocks[0](args[0])).detach().numpy().tobytes()
    check(m["class"].endswith("models.Block") and got == want, "blocks.1's output is stored as computed")
    s = yobx_capture.capture(model, args, out, strategies=["nostrict"], module_outputs=100)
    check(len(s["modules"]) < 8 and s["modules_skipped"] == 8 - len(s["modules"])
          and "cap" in s["modules_skipped_why"], "a cap of 100 bytes skips calls and says so",
          (len(s["modules"]), s["modules_skipped"]))
    s = yobx_capture.capture(model, args, out, strategies=["nostrict"], module_outputs=0)
    check("modules" not in s, "module_outputs=0 records none")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for t in [test_bundle_layout, test_raising_strategy_does_not_stop,
                  test_bfloat16_and_scalars, test_unknown_strategy, test_cli, test_module_outputs]:
            try:
                t(tmp)
            except Exception as e:
                check(False, "%s raised %s: %s" % (t.__name__, type(e).__name__, e))
    print("helper (torch %s): %d passed, %d failed" % (torch.__version__, passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
