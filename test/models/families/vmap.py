# vmap.py: torch.vmap in the training IR (the torch._functorch.predispatch markers
# _vmap_increment_nesting, _add_batch_dim, _remove_batch_dim, ... around ordinary ATen ops;
# lib/lower/vmap.c rewrites them). run_decompositions() removes the markers, so the _decomp
# twins hold plain ATen ops: they check that both forms give the same numbers.
#
# torch 2.14 cannot export a vmap with out_dims other than 0 (non-strict export fails with
# "We found a fake tensor in the exported program constant's list"), so out_dims stays 0
# here; in_dims 1, 2 and None, nested vmaps and a transformers-style 4-level mask are
# covered.


class OpVmap(nn.Module):
    def forward(self, a, b, pad):
        vm = torch.vmap
        # in_dims 0, a reduction of a batched operand broadcast into another
        y1 = vm(lambda u, v: u * v.sum())(a, b[:3])
        # in_dims (1, 0): batch dims moved to the front
        y2 = vm(lambda u, v: u * v.sum() + u.sum(), in_dims=(1, 0))(a, b)
        # nested, the inner one over u only (v unbatched at level 2)
        y3 = vm(vm(lambda u, v: u * v.sum(), in_dims=(0, None)))(a, b[:3])
        # arange comparison, a reduction over a logical dim
        y4 = vm(lambda u: (u[:, None] > torch.arange(4)).sum(-1), in_dims=1)(a)
        # a batched 0-d index next to an unbatched index tensor
        y5 = vm(lambda i: b[i, torch.arange(5) % 4])(torch.arange(4))
        # in_dims 2, softmax over a logical dim, amax
        y6 = vm(lambda u: u.softmax(-1).amax(0), in_dims=2)(a[None].expand(2, 3, 4) * 1.5)
        # transformers' sdpa mask: 4 nested vmaps over (batch, head, q, kv) aranges,
        # a causal comparison and a padding lookup with batched indices
        def mask_fn(bi, hi, qi, ki):
            return (ki <= qi) & pad[bi, ki]
        f = mask_fn
        for dims in [(None, None, None, 0), (None, None, 0, None), (None, 0, None, None),
                     (0, None, None, None)]:
            f = vm(f, in_dims=dims, out_dims=0)
        m = f(torch.arange(2), torch.arange(1), torch.arange(6), torch.arange(6))
        # nested with in_dims 1 outside, a view and a transpose inside
        y8 = vm(vm(lambda u: u.reshape(2, 2).transpose(0, 1).exp()), in_dims=1)(a[None].expand(2, 3, 4)[..., None])
        return flat_cat(y1, y2, y3, y4.float(), y5, y6, m.float(), y8)


def fx_op_vmap():
    pad = torch.ones(2, 6, dtype=torch.bool)
    pad[1, 4:] = False
    fx = SlimFixture(OpVmap().eval(), (r(3, 4), r(4, 5), pad))
    fx.deflate_min = 64             # the JSON of 120 nodes deflates well
    return fx


def fx_hf_falcon(attn="eager"):
    # Falcon builds its causal mask under torch.vmap (create_causal_mask with an
    # and_mask_function). No attention_mask: with one, transformers indexes the padding
    # mask through TransformGetItemToIndex, which torch 2.14 cannot serialize (flat_apply).
    transformers, cfg = _hf("FalconConfig", attn, vocab_size=100, hidden_size=16,
                            num_hidden_layers=HF_LAYERS, num_attention_heads=2, alibi=False,
                            new_decoder_architecture=False, initializer_range=0.1,
                            bos_token_id=1, eos_token_id=2, use_cache=False)
    ids, _ = _ids(100)
    fx = _hf_fixture(transformers, transformers.FalconForCausalLM(cfg), ("input_ids",),
                     (ids,), attn, use_cache=False, return_dict=False)
    fx.deflate_min = 64
    return fx


# torch 2.6 cannot export these vmaps (non-strict): "NYI: querying is_contiguous inside of
# vmap for memory_format other than torch.contiguous_format", then every later vmap fails
# with "called random operation while in randomness error mode"; so 2.14 only.
family(["op_vmap"], versions=("2.14",), decomp=True)
family(["hf_falcon"], versions=("2.14",), decomp=True)
