"""make_resnet50.py OUT.pt2: torchvision's ResNet-50 (random weights,
103 MB of float32), exported, for the report's cost on a model of that
size (issue 34).  Run in the torch chroot:
bash ../shared/tools/torch-env.sh run sid python3 /src/bench/make_resnet50.py /src/bench/out/resnet50.pt2"""
import sys

import torch
import torchvision

torch.manual_seed(0)
m = torchvision.models.resnet50().eval()
with torch.no_grad():
    ep = torch.export.export(m, (torch.randn(1, 3, 224, 224),))
torch.export.save(ep, sys.argv[1])
print(sys.argv[1])
