#!/usr/bin/env python3
"""Writes the `graph` and `=== check` parts of test/lower/quant_*.txt (the quant family's
lowering goldens, issue 32) with torch's own values; then `UPDATE=1 build/test/test_irtext`
writes their `=== onnx` parts. Run in the torch chroot with torchao on PYTHONPATH
(test/models/quant/make.sh sets that up; see test/lower/README.md):
  ../shared/tools/torch-env.sh run sid env PYTHONPATH=/src/build-ao TORCHAO_FORCE_SKIP_LOADING_SO_FILES=1 \\
      python3 /src/test/lower/quant/make_goldens.py /src/test/lower
"""
import os
import sys

import torch

try:
    import torchao  # noqa: F401  (registers torchao's affine ops)
except ImportError:
    torchao = None

qd = torch.ops.quantized_decomposed
DT = {torch.float32: "float32", torch.float64: "float64", torch.int8: "int8", torch.uint8: "uint8",
      torch.int32: "int32", torch.int64: "int64"}


def fmt(t):
    vals = t.reshape(-1).tolist()
    if t.is_floating_point():
        body = ", ".join(repr(float("%.9g" % v)) if v != int(v) else str(int(v)) for v in vals)
    else:
        body = ", ".join(str(int(v)) for v in vals)
    return "%s[%s] = [%s]" % (DT[t.dtype], ",".join(map(str, t.shape)), body)


def ty(t):
    return "%s[%s]" % (DT[t.dtype], ",".join(map(str, t.shape)))


def golden(path, comment, inputs, lines, outputs):
    """inputs: [(name, tensor)], lines: [text graph node lines], outputs: [(name, tensor)]."""
    with open(path, "w") as f:
        for c in comment.strip().split("\n"):
            f.write("# %s\n" % c)
        f.write("graph main(%s) {\n" % ", ".join("%s: %s" % (n, ty(t)) for n, t in inputs))
        for ln in lines:
            f.write("  %s\n" % ln)
        f.write("  return (%s)\n}\n=== check\n" % ", ".join(n for n, _ in outputs))
        for n, t in inputs + outputs:
            f.write("%s: %s\n" % (n, fmt(t).replace("[", "[", 1)))
        f.write("=== onnx\n")
    print(path)


def main(out):
    g = torch.Generator().manual_seed(3)
    x = (torch.randn(2, 4, generator=g) * 4).float()
    x[0, 0] = 9.0                   # beyond the reduced range's 127 steps
    q = qd.quantize_per_tensor.default(x, 0.05, 3, 0, 127, torch.uint8)
    dq = qd.dequantize_per_tensor.default(q, 0.05, 3, 0, 127, torch.uint8)
    golden(os.path.join(out, "quant_per_tensor.txt"),
           "pt2e's per-tensor quantize/dequantize with a reduced range (X86 reduce_range:\n"
           "uint8 0..127): QuantizeLinear saturates to 0..255, so a Clip to 0..127 follows.",
           [("x", x)],
           ["q: %s = quantized_decomposed.quantize_per_tensor.default(input=x, scale=0.05, zero_point=3, "
            "quant_min=0, quant_max=127, dtype=dtype:uint8)" % ty(q),
            "dq: %s = quantized_decomposed.dequantize_per_tensor.default(input=q, scale=0.05, zero_point=3, "
            "quant_min=0, quant_max=127, dtype=dtype:uint8)" % ty(dq)],
           [("q", q), ("dq", dq)])

    x = torch.randn(3, 5, generator=g).float()
    s, zp = qd.choose_qparams.tensor(x, -128, 127, 2 ** -12, torch.int8)
    q = qd.quantize_per_tensor.tensor(x, s, zp, -128, 127, torch.int8)
    dq = qd.dequantize_per_tensor.tensor(q, s, zp, -128, 127, torch.int8)
    ss, sz = qd.choose_qparams_symmetric.tensor(x, -128, 127, 2 ** -12, torch.int8)
    lo, hi = torch.tensor([-100]), torch.tensor([100])
    q2 = qd.quantize_per_tensor.tensor2(x, ss, sz, lo, hi, torch.int8)
    dq2 = qd.dequantize_per_tensor.tensor2(q2, ss, sz, lo, hi, torch.int8)
    golden(os.path.join(out, "quant_dynamic.txt"),
           "pt2e's dynamic per-tensor flow: choose_qparams.tensor (asymmetric) and\n"
           "choose_qparams_symmetric.tensor compute scale and zero point in the graph; the .tensor\n"
           "forms quantize with them (x times 1/scale, then a unit-scale QuantizeLinear: torch's\n"
           "rounding), .tensor2 with tensor bounds (always a Clip).",
           [("x", x), ("lo", lo), ("hi", hi)],
           ["s: float64[1], zp: int64[1] = quantized_decomposed.choose_qparams.tensor(input=x, quant_min=-128, "
            "quant_max=127, eps=0.000244140625, dtype=dtype:int8)",
            "q: int8[3,5] = quantized_decomposed.quantize_per_tensor.tensor(input=x, scale=s, zero_point=zp, "
            "quant_min=-128, quant_max=127, dtype=dtype:int8)",
            "dq: float32[3,5] = quantized_decomposed.dequantize_per_tensor.tensor(input=q, scale=s, zero_point=zp, "
            "quant_min=-128, quant_max=127, dtype=dtype:int8)",
            "ss: float64[1], sz: int64[1] = quantized_decomposed.choose_qparams_symmetric.tensor(input=x, "
            "quant_min=-128, quant_max=127, eps=0.000244140625, dtype=dtype:int8)",
            "q2: int8[3,5] = quantized_decomposed.quantize_per_tensor.tensor2(input=x, scale=ss, zero_point=sz, "
            "quant_min=lo, quant_max=hi, dtype=dtype:int8)",
            "dq2: float32[3,5] = quantized_decomposed.dequantize_per_tensor.tensor2(input=q2, scale=ss, "
            "zero_point=sz, quant_min=lo, quant_max=hi, dtype=dtype:int8)"],
           [("s", s), ("zp", zp), ("q", q), ("dq", dq), ("ss", ss), ("sz", sz), ("q2", q2), ("dq2", dq2)])

    x = torch.randn(2, 3, 2, generator=g).float()
    sc = torch.tensor([0.02, 0.01, 0.03])
    zc = torch.tensor([0, 5, -3])
    q = qd.quantize_per_channel.default(x, sc, zc, 1, -128, 127, torch.int8)
    dq = qd.dequantize_per_channel.default(q, sc, zc, 1, -128, 127, torch.int8)
    fq = qd.fake_quant_per_channel.default(x * 3, sc, zc.int(), 1, -20, 20)
    golden(os.path.join(out, "quant_per_channel.txt"),
           "pt2e's per-channel quantize/dequantize (axis 1: ONNX's axis attribute, zero points\n"
           "cast to int8) and fake_quant_per_channel (float arithmetic as torch writes it, a\n"
           "range of -20..20).",
           [("x", x), ("sc", sc), ("zc", zc)],
           ["q: int8[2,3,2] = quantized_decomposed.quantize_per_channel.default(input=x, scales=sc, zero_points=zc, "
            "axis=1, quant_min=-128, quant_max=127, dtype=dtype:int8)",
            "dq: float32[2,3,2] = quantized_decomposed.dequantize_per_channel.default(input=q, scales=sc, "
            "zero_points=zc, axis=1, quant_min=-128, quant_max=127, dtype=dtype:int8)",
            "x3: float32[2,3,2] = aten.mul.Tensor(self=x, other=3)",
            "zi: int32[3] = aten._to_copy.default(self=zc, dtype=dtype:int32)",
            "fq: float32[2,3,2] = quantized_decomposed.fake_quant_per_channel.default(input=x3, scales=sc, "
            "zero_points=zi, axis=1, quant_min=-20, quant_max=20)"],
           [("q", q), ("dq", dq), ("fq", fq)])

    x = torch.randn(2, 2, 4, generator=g).float()
    s, zp = qd.choose_qparams_per_token_asymmetric.default(x, torch.int8)
    q = qd.quantize_per_token.default(x, s, zp, -128, 127, torch.int8)
    dq = qd.dequantize_per_token.default(q, s, zp, -128, 127, torch.int8, torch.float32)
    s2, z2 = qd.choose_qparams_per_token.default(x, torch.int8)
    s2, z2 = s2.double(), z2.long()      # the dtypes its Meta kernel (the .pt2) records
    golden(os.path.join(out, "quant_per_token.txt"),
           "Per-token quantization (ExecuTorch's dynamic activations): parameters per row of\n"
           "the last dim, the tensor viewed as (rows, 4) with axis 0.",
           [("x", x)],
           ["s: float64[2,2,1], zp: int64[2,2,1] = quantized_decomposed.choose_qparams_per_token_asymmetric.default("
            "input=x, dtype=dtype:int8)",
            "q: int8[2,2,4] = quantized_decomposed.quantize_per_token.default(input=x, scales=s, zero_points=zp, "
            "quant_min=-128, quant_max=127, dtype=dtype:int8)",
            "dq: float32[2,2,4] = quantized_decomposed.dequantize_per_token.default(input=q, scales=s, "
            "zero_points=zp, quant_min=-128, quant_max=127, dtype=dtype:int8, output_dtype=dtype:float32)",
            "s2: float64[2,2,1], z2: int64[2,2,1] = quantized_decomposed.choose_qparams_per_token.default("
            "input=x, dtype=dtype:int8)"],
           [("s", s), ("zp", zp), ("q", q), ("dq", dq), ("s2", s2), ("z2", z2)])

    w = torch.randn(2, 8, generator=g).float()
    sg = torch.tensor([[0.1, 0.2], [0.15, 0.05]])
    zg = torch.tensor([[0, 1], [-1, 0]], dtype=torch.int8)
    q = qd.quantize_per_channel_group.default(w, sg, zg, -8, 7, torch.int8, 4)
    dq = qd.dequantize_per_channel_group.default(q, sg, zg, -8, 7, torch.int8, 4, torch.float32)
    golden(os.path.join(out, "quant_group.txt"),
           "Per-channel-group (int4 values in int8, groups of 4 along the last dim): the\n"
           "tensor viewed as (4, 4), one parameter per group; -8..7 is a Clip.",
           [("w", w), ("sg", sg), ("zg", zg)],
           ["q: int8[2,8] = quantized_decomposed.quantize_per_channel_group.default(input=w, scales=sg, "
            "zero_points=zg, quant_min=-8, quant_max=7, dtype=dtype:int8, group_size=4)",
            "dq: float32[2,8] = quantized_decomposed.dequantize_per_channel_group.default(input=q, scales=sg, "
            "zero_points=zg, quant_min=-8, quant_max=7, dtype=dtype:int8, group_size=4, output_dtype=dtype:float32)"],
           [("q", q), ("dq", dq)])

    if torchao is not None:
        x = torch.randn(3, 8, generator=g).float()
        ao = torch.ops.torchao
        s, zp = ao.choose_qparams_affine.default(x, "ASYMMETRIC", [1, 4], torch.int8, -128, 127, None, None,
                                                 torch.int8)
        q = ao.quantize_affine.default(x, [1, 4], s, zp, torch.int8, -128, 127)
        dq = ao.dequantize_affine.default(q, [1, 4], s, zp, torch.int8, -128, 127)
        ss, sz = ao.choose_qparams_affine.default(x, "SYMMETRIC", [1, 8], torch.int8, -128, 127, 1e-6,
                                                  torch.float32, torch.int8, True)
        q2 = ao.quantize_affine.default(x, [1, 8], ss, sz, torch.int8, -128, 127)
        w = torch.randint(-128, 128, (8, 4), generator=g, dtype=torch.int8)
        a = (q2.int() + 128).to(torch.uint8)
        mm = torch._int_mm(torch.cat([a] * 6)[:17], w)
        golden(os.path.join(out, "quant_affine.txt"),
               "torchao's affine ops: choose_qparams_affine (asymmetric, blocks of 4: the tensor\n"
               "viewed as (6, 4); symmetric per row with keepdim), quantize_affine (x times 1/scale,\n"
               "then a unit-scale QuantizeLinear), dequantize_affine, and aten._int_mm (uint8 x int8\n"
               "-> int32, MatMulInteger).",
               [("x", x), ("w", w)],
               ["s: float32[3,2], zp: int8[3,2] = torchao.choose_qparams_affine.default(input=x, "
                "mapping_type='ASYMMETRIC', block_size=[1, 4], target_dtype=dtype:int8, quant_min=-128, "
                "quant_max=127, eps=None, scale_dtype=None, zero_point_dtype=dtype:int8)",
                "q: int8[3,8] = torchao.quantize_affine.default(input=x, block_size=[1, 4], scale=s, zero_point=zp, "
                "output_dtype=dtype:int8, quant_min=-128, quant_max=127)",
                "dq: float32[3,8] = torchao.dequantize_affine.default(input=q, block_size=[1, 4], scale=s, "
                "zero_point=zp, input_dtype=dtype:int8, quant_min=-128, quant_max=127)",
                "ss: float32[3,1], sz: int8[3,1] = torchao.choose_qparams_affine.default(input=x, "
                "mapping_type='SYMMETRIC', block_size=[1, 8], target_dtype=dtype:int8, quant_min=-128, "
                "quant_max=127, eps=1e-06, scale_dtype=dtype:float32, zero_point_dtype=dtype:int8, keepdim=True)",
                "q2: int8[3,8] = torchao.quantize_affine.default(input=x, block_size=[1, 8], scale=ss, "
                "zero_point=sz, output_dtype=dtype:int8, quant_min=-128, quant_max=127)",
                "i2: int32[3,8] = aten._to_copy.default(self=q2, dtype=dtype:int32)",
                "i3: int32[3,8] = aten.add.Tensor(self=i2, other=128)",
                "a: uint8[3,8] = aten._to_copy.default(self=i3, dtype=dtype:uint8)",
                "a6: uint8[18,8] = aten.cat.default(tensors=[a, a, a, a, a, a])",
                "a17: uint8[17,8] = aten.slice.Tensor(self=a6, dim=0, start=0, end=17)",
                "mm: int32[17,4] = aten._int_mm.default(self=a17, mat2=w)"],
               [("s", s), ("zp", zp), ("q", q), ("dq", dq), ("ss", ss), ("sz", sz), ("q2", q2), ("mm", mm)])


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "test/lower")
