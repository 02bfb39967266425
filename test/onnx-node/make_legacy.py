#!/usr/bin/env python3
"""make_legacy.py OUT: real older ONNX files for test/onnx-node, written by torch's
legacy (TorchScript-based, dynamo=False) exporter at opsets 9, 11, 13 and 16, in
the layout of ONNX's node tests (OUT/legacy_NAME_oN/model.onnx,
test_data_set_0/*.pb) with torch's own outputs, so make.py packs them with the
node tests and run.sh checks them as written and after raising their opset.

    ../shared/tools/torch-env.sh run sid python3 test/onnx-node/make_legacy.py build/onnx-node-legacy"""
import io, os, sys, warnings

import numpy as np
import onnx
import torch
from onnx import numpy_helper

warnings.filterwarnings('ignore')
torch.manual_seed(0)
nn = torch.nn


class Cnn(nn.Module):      # Conv, BatchNorm, Relu6 (Clip), Upsample, MaxPool, Softmax(dim=1)
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4 * 6 * 6, 5)

    def forward(self, x):
        y = nn.functional.relu6(self.bn(self.c(x)))
        y = nn.functional.interpolate(y, scale_factor=2, mode='nearest')
        y = nn.functional.max_pool2d(y, 2)
        return torch.softmax(self.fc(y.flatten(1)), dim=1)


class Shapes(nn.Module):   # Slice, Split, Squeeze, Unsqueeze, ReduceMean/Sum, TopK, Pad, Dropout
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(0.3)

    def forward(self, x):
        a, b = x.split([2, 3], dim=1)
        y = self.drop(a[:, :, 1:-1]).unsqueeze(1).squeeze(1)
        z = nn.functional.pad(b, (1, 2), value=0.5).mean(dim=-1, keepdim=True)
        v, i = x.topk(2, dim=-1)
        return y.sum(dim=(1, 2)), z, v, i, torch.log_softmax(x, dim=-1)


class Rnn(nn.Module):      # LSTM and GRU
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 8, batch_first=True)
        self.gru = nn.GRU(8, 4, batch_first=True)

    def forward(self, x):
        y, _ = self.lstm(x)
        z, h = self.gru(y)
        return z, h


class Block(nn.Module):    # LayerNorm (decomposed before 17), attention, GELU
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(16)
        self.qkv = nn.Linear(16, 48)
        self.ff = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 16))

    def forward(self, x):
        q, k, v = self.qkv(self.ln(x)).chunk(3, dim=-1)
        a = torch.softmax(q @ k.transpose(1, 2) / 4.0, dim=-1)
        y = x + a @ v
        return y + self.ff(self.ln(y))


MODELS = [('cnn', Cnn, (2, 3, 6, 6)), ('shapes', Shapes, (2, 5, 7)), ('rnn', Rnn, (2, 5, 6)),
          ('block', Block, (2, 4, 16))]


def write(out, name, model, x, opset):
    f = io.BytesIO()
    outs = model(x)
    outs = outs if isinstance(outs, tuple) else (outs,)
    names = ['out%d' % i for i in range(len(outs))]
    try:
        torch.onnx.export(model, (x,), f, dynamo=False, opset_version=opset, input_names=['x'],
                          output_names=names, dynamic_axes={'x': {0: 'batch'}})
    except Exception as e:          # an op the exporter has no form for at this opset
        print('skip %s at %d: %s' % (name, opset, str(e).splitlines()[0]))
        return
    d = os.path.join(out, 'legacy_%s_o%d' % (name, opset))
    os.makedirs(os.path.join(d, 'test_data_set_0'), exist_ok=True)
    with open(os.path.join(d, 'model.onnx'), 'wb') as g:
        g.write(f.getvalue())
    onnx.save_tensor(numpy_helper.from_array(x.numpy(), 'x'), os.path.join(d, 'test_data_set_0', 'input_0.pb'))
    for i, o in enumerate(outs):
        onnx.save_tensor(numpy_helper.from_array(o.detach().numpy(), names[i]),
                         os.path.join(d, 'test_data_set_0', 'output_%d.pb' % i))


def main(out):
    for name, cls, shape in MODELS:
        torch.manual_seed(1)
        m = cls().eval()
        x = torch.randn(*shape)
        with torch.no_grad():
            for opset in (9, 11, 13, 16):
                write(out, name, m, x, opset)
    print(len(os.listdir(out)), 'legacy models written')


if __name__ == '__main__':
    main(sys.argv[1])
