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


family(["op_grouped_mm", "hf_mixtral"], versions=("2.14",), decomp=True)
