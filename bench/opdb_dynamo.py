# bench/opdb_dynamo.py DIR: torch.onnx's dynamo exporter beside ours, on the cases
# bench/opdb_export.py wrote into DIR: each DIR/NAME/model.pt2 (reloaded) becomes
# DIR/NAME/dynamo.onnx at opset 18, unless it exists; DIR/dynamo.tsv lists NAME and
# "ok" or why not.  Run in the torch chroot with onnxscript on the path:
#   ../shared/tools/torch-env.sh run sid env PYTHONPATH=/src/bench/out/py/onnxscript:/src/bench/out/py/ir-py/src python3 bench/opdb_dynamo.py DIR
import os
import sys
import warnings

import torch

warnings.filterwarnings("ignore")
top = sys.argv[1]
with open(top + "/dynamo.tsv", "a") as log:
    for name in sorted(os.listdir(top)):
        d = top + "/" + name
        if not os.path.exists(d + "/model.pt2") or os.path.exists(d + "/dynamo.onnx"):
            continue
        try:
            ep = torch.export.load(d + "/model.pt2")
            torch.onnx.export(ep, (), d + "/dynamo.onnx", dynamo=True, opset_version=18, verbose=False)
            r = "ok"
        except Exception as e:  # noqa: BLE001
            r = (str(e).splitlines() or [type(e).__name__])[0][:150]
        log.write("%s\t%s\n" % (name, r.replace("\t", " ")))
        log.flush()
