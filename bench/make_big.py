"""make_big.py OUT.pt2 [GiB]: a .pt2 whose weights total about GiB gigabytes
(default 1.05): a stack of Linear(4096, 4096) layers with ReLU.  Run it in the
torch chroot: bash ../shared/tools/torch-env.sh run [sid|trixie] python3 /src/bench/make_big.py /src/bench/out/big.pt2"""
import sys

import torch

out = sys.argv[1]
gib = float(sys.argv[2]) if len(sys.argv) > 2 else 1.05
width = 4096
layers = max(1, int(gib * (1 << 30) / (width * width * 4)))
torch.manual_seed(0)


class Big(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(width, width) for _ in range(layers))

    def forward(self, x):
        for lin in self.layers:
            x = torch.relu(lin(x))
        return x


with torch.no_grad():
    m = Big().eval()
    ep = torch.export.export(m, (torch.randn(2, width),))
    torch.export.save(ep, out)
print(out, layers, "layers,", sum(p.numel() * 4 for p in m.parameters()) / (1 << 30), "GiB of weights")
