#!/usr/bin/env python3
"""Re-runs archives of make_real.py with this chroot's torch and rewrites their
reference outputs, to tell a conversion that is wrong from a torch version whose
own run of the archive differs (torch 2.6 in Debian trixie gives NaN for frozen
r2plus1d_18 and raft_small and differs by 5e-3 on efficientnet_v2_s, where
torch 2.14 running the same archive agrees with our ONNX to 1e-6).

    ../shared/tools/torch-env.sh run sid python3 bench/jit/reref.py DIR/NAME...

Each DIR/NAME.io/case0/out_K.npy is overwritten: run it on a copy."""
import os
import sys

import numpy as np
import torch

for d in sys.argv[1:]:
    m = torch.jit.load(d + ".pt").eval()
    case = d + ".io/case0"
    xs = [torch.from_numpy(np.load(os.path.join(case, f)))
          for f in sorted(f for f in os.listdir(case) if f.startswith("in_"))]
    with torch.no_grad():
        got = m(*xs)
    outs = list(got) if isinstance(got, (tuple, list)) else [got]
    for i, o in enumerate(outs):
        if isinstance(o, torch.Tensor):
            np.save(os.path.join(case, "out_%d.npy" % i), o.numpy())
    print("%s: %d outputs from torch %s" % (d, len(outs), torch.__version__))
