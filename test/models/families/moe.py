# moe.py: mixture of experts (family "moe", issue 10 family 8): aten._grouped_mm in the
# four forms torch allows (2-D x 3-D with offs: tokens grouped by expert; 3-D x 3-D: a
# batched mm; 2-D x 2-D with offs along K; 3-D x 2-D with offs along N), and a tiny
# Mixtral exported with transformers' default experts implementation ("grouped_mm"),
# which on CPU calls its custom op transformers::grouped_mm_fallback (ops/library.def).
# _grouped_mm's meta kernel takes bfloat16 (or float16 on GPUs) only, so op_grouped_mm
# runs in bfloat16 with small values (one bfloat16 step stays below the 1e-2 bound).

class OpGroupedMM(nn.Module):
    def forward(self, a, b, a3, b2, offs, offs_k, offs_n):
        # a (6, 8), b (3, 8, 16), a3 (3, 2, 8), b2 (8, 48) bfloat16; offs (3,) row ends
        # per group, the last 6 (torch's kernel leaves rows past it unwritten: garbage
        # in the reference); offs_k, offs_n (3,) ends along K, N
        y1 = torch._grouped_mm(a, b, offs=offs)                 # (6, 16)
        y2 = torch._grouped_mm(a3, b)                           # (3, 2, 16)
        y3 = torch._grouped_mm(a3.reshape(6, 8)[:2].repeat(1, 3)[:, :16].contiguous(),
                               b2[:, :16].t().contiguous(), offs=offs_k)   # (3, 2, 16)
        y4 = torch._grouped_mm(a3, b2, offs=offs_n)             # (2, 48)
        return flat_cat(y1, y2, y3, y4)


def _gmm_args(seed, offs):
    g = torch.Generator().manual_seed(seed)
    def t(*shape):
        return (0.3 * torch.randn(*shape, generator=g)).to(torch.bfloat16)
    i32 = lambda v: torch.tensor(v, dtype=torch.int32)  # noqa: E731
    return (t(6, 8), t(3, 8, 16), t(3, 2, 8), t(8, 48), i32(offs), i32([8, 8, 16]),
            i32([16, 32, 48]))


def fx_op_grouped_mm():
    return SlimFixture(OpGroupedMM(), _gmm_args(1, [2, 2, 6]),
                       cases=[("all rows in the last group", _gmm_args(2, [0, 0, 6])),
                              ("an empty last group", _gmm_args(3, [1, 6, 6]))])


def fx_hf_mixtral(attn="eager"):
    # 4 experts, top-2; transformers' default experts implementation (grouped_mm)
    f = _causal_lm("MixtralConfig", "MixtralForCausalLM", attn, num_attention_heads=4,
                   num_key_value_heads=2, num_local_experts=4, num_experts_per_tok=2)
    got = getattr(f.model.m.config, "_experts_implementation", None)
    f.notes.append("experts implementation %s" % got)
    return f


class OpRouter(nn.Module):
    """The router ops of issue 27 in one graph: a top-k mask written in place
    (full_like(-inf).scatter_), counts by scatter_add_, tokens split into groups of
    data-dependent sizes, a stable sort of expert ids with ties, and the aliases
    concat / concatenate / reshape_as / where.Scalar."""

    def forward(self, x, e):
        # x (6, 4) router logits; e (6,) int64 expert ids in [0, 4) with ties
        v, i = torch.topk(x, 2)
        masked = torch.full_like(x, float("-inf")).scatter_(1, i, v)         # scatter_.src
        counts = torch.zeros(4, dtype=torch.int64).scatter_add_(0, e, torch.ones_like(e))
        sv, si = torch.sort(e, stable=True)                                   # sort.stable
        order = torch.argsort(e, stable=True)                                 # argsort.stable
        sizes = counts.tolist()
        for s in sizes:
            torch._check(s >= 0)
        torch._check(sizes[0] + sizes[1] + sizes[2] + sizes[3] == 6)
        groups = torch.split(x[order], sizes)                                 # split_with_sizes
        sums = torch.concat([g.sum(0) for g in groups])                       # concat
        sign = torch.where(x > 0, 1.0, -1.0)                                  # where.Scalar
        shaped = sign.reshape_as(x.t())                                       # reshape_as
        both = torch.concatenate([masked.reshape(-1), sums])                  # concatenate
        return flat_cat(both, counts.float(), sv.float(), si.float(), order.float(), shaped)


def _router_args(seed):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(6, 4, generator=g), torch.randint(0, 4, (6,), generator=g))


def fx_op_router():
    return SlimFixture(OpRouter(), _router_args(1),
                       cases=[("other ids", _router_args(2)), ("other ids", _router_args(3))])


def _live_buffers(model):
    # liven() leaves buffers alone: the constant ones (an expert score bias of zeros)
    # get seeded values, so that they affect the routing
    with torch.no_grad():
        for n, b in model.named_buffers():
            if b.is_floating_point() and b.numel() > 1 and "inv_freq" not in n \
                    and bool((b.reshape(-1) == b.reshape(-1)[0]).all()):
                b.copy_(0.1 * torch.randn(b.shape))
    return model


def fx_hf_deepseek_v3(attn="eager"):
    # sigmoid routing with an expert score bias, group-limited (2 groups, the best 1),
    # a shared expert, multi-head latent attention (issue 27)
    f = _causal_lm("DeepseekV3Config", "DeepseekV3ForCausalLM", attn, num_attention_heads=2,
                   num_key_value_heads=2, n_routed_experts=4, num_experts_per_tok=2, n_group=2,
                   topk_group=1, first_k_dense_replace=0, moe_intermediate_size=16,
                   n_shared_experts=1, kv_lora_rank=8, q_lora_rank=8, qk_rope_head_dim=4,
                   qk_nope_head_dim=4, v_head_dim=4, head_dim=4)
    _live_buffers(f.model)
    return f


class _Decode(nn.Module):
    """One decode step of a causal LM after a KV cache given as (keys, values) per layer:
    logits and the updated cache."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, ids, kv):
        from transformers import DynamicCache
        cache = DynamicCache(config=self.m.config)
        for i in range(len(kv) // 2):
            cache.update(kv[2 * i], kv[2 * i + 1], i)
        out = self.m(input_ids=ids, past_key_values=cache, use_cache=True, return_dict=True)
        res = [out.logits]
        for layer in out.past_key_values.layers:
            res += [layer.keys, layer.values]
        return tuple(res)


def fx_hf_mixtral_decode(attn="eager"):
    # a KV-cache decode step with dynamic batch and past length: the MoE dispatch over a
    # dynamic token count (index_put_ into empty_like, scatter, histc; issue 27)
    transformers, cfg = _hf("MixtralConfig", attn, hidden_size=16, intermediate_size=32,
                            num_hidden_layers=HF_LAYERS, max_position_embeddings=64,
                            tie_word_embeddings=False, bos_token_id=1, eos_token_id=2,
                            pad_token_id=0, num_attention_heads=4, num_key_value_heads=2,
                            num_local_experts=4, num_experts_per_tok=2,
                            vocab_size=100, initializer_range=0.1, use_cache=True)
    model = liven(transformers.MixtralForCausalLM(cfg)).eval()

    def args(b, past):
        ids = torch.randint(3, 100, (b, past), dtype=torch.int64)
        with torch.no_grad():
            out = model(input_ids=ids, use_cache=True, return_dict=True)
        kv = []
        for layer in out.past_key_values.layers:
            kv += [layer.keys.clone(), layer.values.clone()]
        return (torch.randint(3, 100, (b, 1), dtype=torch.int64), tuple(kv))
    a = args(2, 8)
    batch, past = Dim("batch", min=1, max=64), Dim("past", min=1, max=64)
    ds = ({0: batch}, tuple({0: batch, 2: past} for _ in a[1]))
    f = SlimFixture(_Decode(model), a, dynamic_shapes=ds,
                    cases=[("batch 1, past 3", args(1, 3)), ("batch 3, past 12", args(3, 12))])
    f.notes.append("transformers %s, MixtralForCausalLM decode step" % transformers.__version__)
    return f


family(["op_grouped_mm", "hf_mixtral"], versions=("2.14",), decomp=True)
family(["hf_deepseek_v3", "hf_mixtral_decode", "op_router"], versions=("2.14",),
       decomp=False)
