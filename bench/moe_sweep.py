"""moe_sweep.py OUTDIR [ARCH...]: every mixture-of-experts causal LM of transformers
(issue 27), tiny, exported four ways, for bench/moe_sweep.sh.  Run in the sid chroot
(torch 2.14 + transformers 5.12):

    ../shared/tools/torch-env.sh run sid python3 bench/moe_sweep.py bench/out/moe [ARCH...]

  python3 bench/moe_sweep.py --list     the architectures found, one a line

The architectures are the causal-LM classes of transformers' auto mapping whose config
has expert keys (num_local_experts, num_experts, n_routed_experts, moe_*...).  Each is
built at a tiny configuration (2 layers, width 32, 4 experts, top-2, seeded random
weights: test/models/make_fixtures.py's liven(), plus the constant buffers such as the
expert score bias), and written as the fixtures are (NAME.pt2, NAME.io with torch's
outputs, test/models/README.md), under the names

  ARCH_prefill   input_ids (2, 8), dynamic batch and sequence; logits (static shapes,
                 one case, when the dynamic export fails: the manifest's notes say so)
  ARCH_static    input_ids (2, 8), static shapes (what a first try exports); logits
  ARCH_bmm       ARCH_static with transformers' batched_mm experts (no custom op: what
                 torch.onnx's dynamo exporter can convert, bench/dynamo_nodes.sh)
  ARCH_decode    one token after a KV cache of 8, dynamic batch and past length; logits
                 and the updated cache (built from the cache a prefill returns, so the
                 cache's tensor shapes are the model's own)
  ..._decomp     the same after run_decompositions() (core ATen)

Each has cases at two other sizes of its dynamic dims.  Failures to build or export are
printed as "SKIP NAME: why" (and written to OUTDIR/NAME.skip for the table).
"""
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
MF = os.path.join(HERE, "..", "test", "models", "make_fixtures.py")

ns = {"__name__": "make_fixtures", "__file__": MF}
with open(MF) as f:
    exec(compile(f.read(), MF, "exec"), ns)
torch = ns["torch"]
nn = torch.nn
Dim = torch.export.Dim

EXPERT_KEYS = ("expert", "moe")
VOCAB = 100

# Config keys set when the architecture's config has them (tiny sizes, 4 experts, top 2).
TINY = dict(
    hidden_size=32, intermediate_size=64, moe_intermediate_size=32,
    shared_expert_intermediate_size=32, moe_shared_expert_intermediate_size=32,
    expert_ffn_hidden_size=32, ffn_hidden_size=64, num_hidden_layers=2,
    num_attention_heads=4, num_key_value_heads=2, head_dim=8, vocab_size=VOCAB,
    max_position_embeddings=64, num_local_experts=4, num_experts=4, n_routed_experts=4,
    moe_num_experts=4, num_experts_per_tok=2, moe_topk=2, moe_k=2, top_k_experts=2,
    n_group=2, topk_group=1, first_k_dense_replace=0, moe_layer_start_index=0,
    decoder_sparse_step=1, mlp_only_layers=[], kv_lora_rank=16, q_lora_rank=16,
    qk_rope_head_dim=8, qk_nope_head_dim=8, v_head_dim=8, qk_head_dim=16,
    num_shared_experts=1, n_shared_experts=1, moe_num_shared_experts=1,
    tie_word_embeddings=False, pad_token_id=0, bos_token_id=1, eos_token_id=2,
    initializer_range=0.1, sliding_window=64, expert_layer_period=1,
    expert_layer_offset=0, attn_layer_period=1, attn_layer_offset=0,
    zero_expert_num=1, moe_latent_size=None, router_aux_loss_coef=0.0,
    attention_dropout=0.0, hidden_dropout=0.0, use_cache=True,
)


def arches():
    """(model_type, ForCausalLM class name, config class name) of every MoE causal LM."""
    import transformers
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
    out = []
    for mt, cls in sorted(MODEL_FOR_CAUSAL_LM_MAPPING_NAMES.items()):
        cc = CONFIG_MAPPING_NAMES.get(mt)
        try:
            d = getattr(transformers, cc)().to_dict()
        except Exception:
            continue
        if any(x in k for k in d for x in EXPERT_KEYS):
            out.append((mt, cls, cc))
    return out


def tiny_config(cc):
    import transformers
    C = getattr(transformers, cc)
    base = C().to_dict()
    kw = {k: v for k, v in TINY.items() if k in base}
    if isinstance(base.get("layer_types"), list):
        lt = base["layer_types"]
        kw["layer_types"] = [t for t in lt if "linear" not in t and "mamba" not in t][:1] * 2 \
            or lt[:2]
    if "kv_lora_rank" in base and "num_key_value_heads" in base:
        kw["num_key_value_heads"] = kw["num_attention_heads"]   # MLA: a key per head
    if "is_moe" in base:
        kw["is_moe"] = True
    if "enable_moe_block" in base:
        kw["enable_moe_block"] = True
    if "moe_layers" in base:
        kw["moe_layers"] = [0, 1]
    if "interleave_moe_layer_step" in base:
        kw["interleave_moe_layer_step"] = 1
    cfg = C(**kw)
    cfg._attn_implementation = "eager"
    return cfg


def liven_all(model):
    ns["liven"](model)
    with torch.no_grad():           # constant float buffers: the expert score bias, ...
        for n, b in model.named_buffers():
            if b.is_floating_point() and b.numel() > 1 and "inv_freq" not in n \
                    and bool((b.reshape(-1) == b.reshape(-1)[0]).all()):
                b.copy_(0.1 * torch.randn(b.shape))
    return model.eval()


class Prefill(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, ids):
        return self.m(input_ids=ids, use_cache=False, return_dict=True).logits


class Decode(nn.Module):
    """One token after a cache given as 2 tensors per attention layer (keys, values)."""

    def __init__(self, m, nlayers):
        super().__init__()
        self.m = m
        self.nlayers = nlayers

    def forward(self, ids, kv):
        from transformers import DynamicCache
        cache = DynamicCache(config=self.m.config)
        for i in range(self.nlayers):
            cache.update(kv[2 * i], kv[2 * i + 1], i)
        out = self.m(input_ids=ids, past_key_values=cache, use_cache=True, return_dict=True)
        res = [out.logits]
        for layer in out.past_key_values.layers[:self.nlayers]:
            res += [layer.keys, layer.values]
        return tuple(res)


def build(arch, cls, cc, experts=None):
    import transformers
    cfg = tiny_config(cc)
    if experts:
        cfg._experts_implementation = experts
    return liven_all(getattr(transformers, cls)(cfg))


def ids(b, t):
    return torch.randint(3, VOCAB, (b, t), dtype=torch.int64)


def cache_like(model, b, past):
    """The cache tensors a prefill of (b, past) tokens returns: [k0, v0, k1, v1, ...]."""
    with torch.no_grad():
        out = model(input_ids=ids(b, past), use_cache=True, return_dict=True)
    ts = []
    for layer in out.past_key_values.layers:
        k, v = getattr(layer, "keys", None), getattr(layer, "values", None)
        if not isinstance(k, torch.Tensor) or not isinstance(v, torch.Tensor):
            raise ns["Skip"]("cache layer %s holds no keys/values (a hybrid cache)"
                             % type(layer).__name__)
        ts += [k.clone(), v.clone()]
    return ts


def fx_prefill(arch, cls, cc):
    def make():
        model = build(arch, cls, cc)
        b, s = Dim("batch", min=1, max=64), Dim("seq", min=2, max=64)
        f = ns["SlimFixture"](Prefill(model), (ids(2, 8),), dynamic_shapes=({0: b, 1: s},),
                              cases=[("batch 1, seq 5", (ids(1, 5),)),
                                     ("batch 3, seq 13", (ids(3, 13),))])
        f.notes.append("%s, tiny config, experts implementation %s" % (
            cls, getattr(model.config, "_experts_implementation", None)))
        f.fallback = ("static shapes (2, 8): the dynamic export failed", static)
        return f

    def static():
        return ns["SlimFixture"](Prefill(build(arch, cls, cc)), (ids(2, 8),))
    return make


def fx_static(arch, cls, cc):
    def make():
        model = build(arch, cls, cc)
        f = ns["SlimFixture"](Prefill(model), (ids(2, 8),))
        f.notes.append("%s, tiny config, static shapes" % cls)
        return f
    return make


def fx_bmm(arch, cls, cc):
    def make():
        model = build(arch, cls, cc, "batched_mm")
        got = getattr(model.config, "_experts_implementation", None)
        if got != "batched_mm":
            raise ns["Skip"]("experts implementation batched_mm was asked, the model uses %r" % got)
        f = ns["SlimFixture"](Prefill(model), (ids(2, 8),))
        f.notes.append("%s, tiny config, static shapes, batched_mm experts" % cls)
        return f
    return make


def fx_decode(arch, cls, cc):
    def make():
        model = build(arch, cls, cc)
        kv = cache_like(model, 2, 8)
        nl = len(kv) // 2
        b, p = Dim("batch", min=1, max=64), Dim("past", min=1, max=64)
        ds = ({0: b}, tuple({0: b, t.dim() - 2: p} for t in kv))

        def args(bb, pp):
            return (ids(bb, 1), tuple(cache_like(model, bb, pp)))
        f = ns["SlimFixture"](Decode(model, nl), (ids(2, 1), tuple(kv)),
                              dynamic_shapes=ds,
                              cases=[("batch 1, past 3", args(1, 3)),
                                     ("batch 3, past 12", args(3, 12))])
        f.notes.append("%s decode step, tiny config" % cls)
        return f
    return make


STEPS = (("prefill", fx_prefill), ("static", fx_static), ("decode", fx_decode), ("bmm", fx_bmm))


def main(argv):
    if argv[:1] == ["--list"]:
        for a in arches():
            print(*a)
        return 0
    outdir = argv[0] if argv else os.path.join(HERE, "out", "moe")
    want = set(argv[1:])
    os.makedirs(outdir, exist_ok=True)
    # the training IR first (every prefill, then every decode step), then core ATen;
    # MOE_STEPS=static,decode makes only those steps; MOE_SHARD=K/N makes only every N-th architecture from the K-th (parallel runs)
    k, n = (int(x) for x in os.environ.get("MOE_SHARD", "0/1").split("/"))
    todo = [a for i, a in enumerate(arches()) if i % n == k and (not want or a[0] in want)]
    # MOE_KEEP=1 leaves alone what an earlier run made (NAME.pt2 or NAME.skip)
    keep = os.environ.get("MOE_KEEP") == "1"
    for dec in (False, True):
        for step, mk in STEPS:
            if os.environ.get("MOE_STEPS") and step not in os.environ["MOE_STEPS"].split(","):
                continue
            for arch, cls, cc in todo:
                name = "%s_%s%s" % (arch, step, "_decomp" if dec else "")
                skip = os.path.join(outdir, name + ".skip")
                if keep and (os.path.exists(skip) or os.path.exists(os.path.join(outdir, name + ".pt2"))):
                    continue
                b = mk(arch, cls, cc)
                ns["FIXTURES"][name] = ns["decomposed"](b) if dec else b
                if os.path.exists(skip):
                    os.remove(skip)
                try:
                    ns["generate_one"](name, outdir)
                except Exception as e:
                    why = "%s: %s" % (type(e).__name__, (str(e).strip().splitlines() or [""])[0])
                    print("SKIP %s: %s" % (name, why[:300]))
                    if os.environ.get("TRACEBACK"):
                        traceback.print_exc()
                    with open(skip, "w") as f:
                        f.write(why[:300] + "\n")
                    for p in (name + ".pt2",):
                        if os.path.exists(os.path.join(outdir, p)):
                            os.remove(os.path.join(outdir, p))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
