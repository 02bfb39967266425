"""make_deep.py OUT.pt2 LAYERS [WIDTH]: an MLP of LAYERS Linear+ReLU pairs
(about 2*LAYERS nodes), to check that conversion time grows linearly with
the number of nodes; with LAYERS 16 and WIDTH 4096 it is a stack with 1 GiB
of weights, to check that reading and writing weights is cheap.  Run in the
torch chroot:
bash ../shared/tools/torch-env.sh run sid python3 /src/bench/make_deep.py /src/bench/out/deep-4096.pt2 4096
An OUT ending in .pt writes the same model traced, as a TorchScript archive
(torch.jit.save), for bench/torchscript.sh."""
import sys

import torch

out, layers = sys.argv[1], int(sys.argv[2])
width = int(sys.argv[3]) if len(sys.argv) > 3 else 16
torch.manual_seed(0)


class Deep(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(width, width) for _ in range(layers))

    def forward(self, x):
        for lin in self.layers:
            x = torch.relu(lin(x))
        return x


with torch.no_grad():
    if out.endswith(".pt"):
        torch.jit.save(torch.jit.trace(Deep().eval(), (torch.randn(2, width),)), out)
    else:
        ep = torch.export.export(Deep().eval(), (torch.randn(2, width),))
        torch.export.save(ep, out)
print(out, layers, "layers")
