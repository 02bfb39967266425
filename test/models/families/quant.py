# quant.py: quantized models (family "quant", issue 32). Three tiny models (a CNN, a
# transformer block, a 2-layer transformers Llama) through the CPU quantization flows of
# torch 2.14 + torchao: pt2e with the XNNPACK quantizer (static per-tensor, static
# per-channel, dynamic) and the X86 Inductor quantizer (with and without reduce_range),
# and torchao's quantize_ configs (IntxWeightOnly int8 per-axis and int4 per-group 32,
# Int8WeightOnly, Int8DynamicActivationIntxWeight int4 "8da4w", Int8DynamicActivation
# Int8Weight "W8A8") with unwrap_tensor_subclass. Int4WeightOnlyConfig needs CUDA
# kernels and is not made. torchao is not packaged in Debian: these fixtures are made
# only when named, by test/models/quant/make.sh (which puts torchao on PYTHONPATH); a
# run without torchao skips them. The reference outputs are torch's quantized eager
# outputs (the exported program), not the float model's.

QUANT_MODELS = ("cnn", "block", "llama")
QUANT_FLOWS = ("xs", "xc", "xd", "x86", "x86rr", "iw8", "iw4", "w8", "da4w", "w8a8")
QUANT_FIXTURES = "q_ops q_cnn_xs q_cnn_xc q_cnn_xd q_cnn_x86 q_cnn_x86rr q_cnn_iw8 q_cnn_iw4 q_cnn_w8 q_cnn_da4w q_cnn_w8a8 q_block_xs q_block_xc q_block_xd q_block_x86 q_block_x86rr q_block_iw8 q_block_iw4 q_block_w8 q_block_da4w q_block_w8a8 q_llama_x86 q_llama_x86rr q_llama_iw8 q_llama_iw4 q_llama_w8 q_llama_da4w q_llama_w8a8"


def _torchao():
    try:
        import torchao  # noqa: F401
    except ImportError:
        raise Skip("torchao is not importable (test/models/quant/make.sh puts it on PYTHONPATH)")
    return torchao


class QCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = nn.Conv2d(8, 8, 3, padding=1)
        self.fc = nn.Linear(8 * 4 * 4, 32)
        self.out = nn.Linear(32, 10)

    def forward(self, x):
        y = F.relu(self.c1(x))
        y = F.max_pool2d(F.relu(self.c2(y)), 2)
        y = F.relu(self.fc(torch.flatten(y, 1)))
        return self.out(y)


class QBlock(nn.Module):
    """A pre-norm transformer block: LayerNorm, 2-head attention, LayerNorm, MLP."""

    def __init__(self, d=32, h=2):
        super().__init__()
        self.h = h
        self.n1, self.n2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.up = nn.Linear(d, 2 * d)
        self.down = nn.Linear(2 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.n1(x)).reshape(b, t, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.down(F.gelu(self.up(self.n2(x))))


def _q_model(kind):
    """-> (float model, example args, extra cases)"""
    g = torch.Generator().manual_seed(7)
    if kind == "cnn":
        m = liven(QCNN()).eval()
        mk = lambda: (torch.randn(2, 3, 8, 8, generator=g),)  # noqa: E731
    elif kind == "block":
        m = liven(QBlock()).eval()
        mk = lambda: (torch.randn(2, 6, 32, generator=g),)  # noqa: E731
    else:
        transformers = _require_transformers()
        cfg = transformers.LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64,
                                       num_hidden_layers=2, num_attention_heads=2,
                                       num_key_value_heads=1, max_position_embeddings=32,
                                       tie_word_embeddings=False, use_cache=False,
                                       bos_token_id=1, eos_token_id=2, pad_token_id=0)
        cfg._attn_implementation = "eager"
        m = _HFWrapper(liven(transformers.LlamaForCausalLM(cfg)).eval(), ("input_ids",),
                       use_cache=False, return_dict=False).eval()
        mk = lambda: (torch.randint(0, 64, (1, 8), generator=g),)  # noqa: E731
    return m, mk(), [("other inputs", mk())]


def _pt2e(m, args, calib, quantizer):
    from torchao.quantization.pt2e.quantize_pt2e import prepare_pt2e, convert_pt2e
    gm = torch.export.export(m, args, strict=False).module()
    gm = prepare_pt2e(gm, quantizer)
    with torch.no_grad():
        for a in calib:
            gm(*a)
    return convert_pt2e(gm)


def _quantizer(flow):
    if flow.startswith("x86"):
        from torchao.quantization.pt2e.quantizer.x86_inductor_quantizer import (
            X86InductorQuantizer, get_default_x86_inductor_quantization_config)
        return X86InductorQuantizer().set_global(
            get_default_x86_inductor_quantization_config(reduce_range=flow == "x86rr"))
    from torchao.testing.pt2e._xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config)
    cfg = get_symmetric_quantization_config(is_per_channel=flow != "xs", is_dynamic=flow == "xd")
    return XNNPACKQuantizer().set_global(cfg)


def _ao_config(flow):
    from torchao.quantization import (IntxWeightOnlyConfig, Int8WeightOnlyConfig,
                                      Int8DynamicActivationIntxWeightConfig,
                                      Int8DynamicActivationInt8WeightConfig)
    from torchao.quantization.granularity import PerAxis, PerGroup
    return {"iw8": lambda: IntxWeightOnlyConfig(weight_dtype=torch.int8, granularity=PerAxis(0)),
            "iw4": lambda: IntxWeightOnlyConfig(weight_dtype=torch.int4, granularity=PerGroup(32)),
            "w8": lambda: Int8WeightOnlyConfig(),
            "da4w": lambda: Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int4,
                                                                  weight_granularity=PerGroup(32)),
            "w8a8": lambda: Int8DynamicActivationInt8WeightConfig()}[flow]()


def _q_fixture(kind, flow):
    _torchao()
    if kind == "llama" and flow in ("xs", "xc", "xd"):
        # torchao 0.19's XNNPACK annotation (even set_module_type(nn.Linear)) shares a
        # quantization spec into the causal mask's integer index tensors: calibration then
        # fails in aten.index ("tensors used as indices must be long...").  The X86
        # quantizer makes the Llama's pt2e fixtures.
        raise Skip("XNNPACKQuantizer quantizes the Llama mask's index tensors (calibration fails)")
    m, args, cases = _q_model(kind)
    if flow in ("xs", "xc", "xd", "x86", "x86rr"):
        g = torch.Generator().manual_seed(11)
        calib = [args] + [tuple(torch.randn(a.shape, generator=g) if a.is_floating_point()
                                else torch.randint(0, 64, a.shape, generator=g) for a in args)
                          for _ in range(3)]
        m = _pt2e(m, args, calib, _quantizer(flow))
    else:
        from torchao.quantization import quantize_
        from torchao.utils import unwrap_tensor_subclass
        quantize_(m, _ao_config(flow))
        m = unwrap_tensor_subclass(m)
    f = SlimFixture(m, args, cases=cases)
    f.deflate_min = 64          # the graph JSON is most of each file: deflated, a fifth
    f.after_export = _q_tolerance
    f.notes.append("torchao quantization flow %s on %s" % (flow, kind))
    return f


def _q_arg(n, env, name):
    """Argument `name` of fx node n (by its schema), as a value of env."""
    for i, a in enumerate(n.target._schema.arguments):
        if a.name == name:
            v = n.args[i] if i < len(n.args) else n.kwargs.get(name)
            return env[v] if isinstance(v, torch.fx.Node) else v
    return None


def _q_tolerance(fx, ep, cases):
    """The output bound of a quantized fixture: 3 quantization steps of the last quantized
    activations before the outputs (issue 32: torch multiplies by 1/scale where ONNX
    divides, onnxruntime's QDQ fusions requantize in integers, and float ops before a
    quantization (LayerNorm, Softmax, accumulation order) move values across a rounding
    boundary: one step of difference in a quantized tensor is not a wrong model). The
    step of a quantization is its scale, at run time for the dynamic flows; the last ones
    are the quantize nodes met first walking back from the outputs (weights excluded:
    their quantization is in the file). Weight-only flows keep the default bound."""
    gm = ep.module()
    last = {}
    outs = [n for n in gm.graph.nodes if n.op == "output"]
    seen, todo, found = set(), list(outs), []
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        t = str(getattr(n, "target", ""))
        if n.op == "call_function" and t.split(".")[-2:-1] and t.split(".")[-2].startswith("quantize_"):
            found.append(n)
            continue
        todo.extend(a for a in n.all_input_nodes)
    if not found:
        return

    class Rec(torch.fx.Interpreter):
        def run_node(self, n):
            r = super().run_node(n)
            if n in found:
                s = _q_arg(n, self.env, "scale")
                if s is None:
                    s = _q_arg(n, self.env, "scales")
                last[n] = max(last.get(n, 0.0), float(torch.as_tensor(s).abs().max()))
            return r

    for _, args in cases:
        with torch.no_grad():
            Rec(gm).run(*clone_tree(args))
    step = max(last.values())
    # the same bound for `--verify` (test/verify/run.sh converts with NAME.io/options.yaml)
    fx.options = "verify_tolerance: %.3g\n" % (3 * step)
    fx.tolerance = {"atol": float("%.3g" % (3 * step)),
                    "why": "3 steps (scale %.3g) of the last quantized activations before the "
                           "outputs: quantized models match in quantization steps (issue 32)" % step}


for _k in QUANT_MODELS:
    for _f in QUANT_FLOWS:
        globals()["fx_q_%s_%s" % (_k, _f)] = (lambda k, f: lambda: _q_fixture(k, f))(_k, _f)
family(["q_%s_%s" % (k, f) for k in QUANT_MODELS for f in QUANT_FLOWS], versions=(), decomp=False)

class QOps(nn.Module):
    """The quantized_decomposed overloads no flow above writes, called directly (the
    lowering goldens test/lower/quant_*.txt hold the same calls). Not here:
    choose_qparams_per_token, whose kernel returns float32 where its Meta kernel says
    float64/int64, so torch.export refuses the graph ("Tensor dtype mismatch"); its
    golden (test/lower/quant_per_token.txt) checks it."""

    def __init__(self):
        super().__init__()
        self.register_buffer("sc", torch.tensor([0.02, 0.01, 0.03, 0.02]))
        self.register_buffer("zc", torch.tensor([0, 5, -3, 1]))
        self.register_buffer("sg", torch.tensor([[0.1, 0.2], [0.15, 0.05], [0.1, 0.1], [0.3, 0.2]]))
        self.register_buffer("zg", torch.tensor([[0, 1], [-1, 0], [0, 0], [2, 0]], dtype=torch.int8))
        self.register_buffer("lo", torch.tensor([-100]))
        self.register_buffer("hi", torch.tensor([100]))

    def forward(self, x):
        # x (2, 4, 8) float32
        qd = torch.ops.quantized_decomposed
        ss, sz = qd.choose_qparams_symmetric.tensor(x, -128, 127, 2 ** -12, torch.int8)
        q2 = qd.quantize_per_tensor.tensor2(x, ss, sz, self.lo, self.hi, torch.int8)
        dq2 = qd.dequantize_per_tensor.tensor2(q2, ss, sz, self.lo, self.hi, torch.int8)
        qc = qd.quantize_per_channel.default(x, self.sc, self.zc, 1, -128, 127, torch.int8)
        fq = qd.fake_quant_per_channel.default(x * 3, self.sc, self.zc.int(), 1, -20, 20)
        st, zt = qd.choose_qparams_per_token_asymmetric.default(x, torch.int8)
        qt = qd.quantize_per_token.default(x, st, zt, -128, 127, torch.int8)
        dqt = qd.dequantize_per_token.default(qt, st, zt, -128, 127, torch.int8, torch.float32)
        w = x[0]                                                  # (4, 8), groups of 4
        qg = qd.quantize_per_channel_group.default(w, self.sg, self.zg, -8, 7, torch.int8, 4)
        dqg = qd.dequantize_per_channel_group.default(qg, self.sg, self.zg, -8, 7, torch.int8, 4,
                                                      torch.float32)
        ce = qd.convert_element_type.no_fuse(qc, torch.float32)
        return flat_cat(dq2, q2.float(), ce, fq, st.float(), zt.float(), dqt, qg.float(), dqg)


def fx_q_ops():
    importlib.import_module("torch.ao.quantization.fx._decomposed")   # registers the namespace
    g = torch.Generator().manual_seed(9)
    mk = lambda: (torch.randn(2, 4, 8, generator=g),)  # noqa: E731
    f = SlimFixture(QOps(), mk(), cases=[("other inputs", mk())])
    f.deflate_min = 64          # exact: the default bound (its outputs match to 0.0)
    return f


family(["q_ops"], versions=(), decomp=False)
