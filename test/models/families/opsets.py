# opsets.py: fixtures for the ONNX operators of opsets 24 to 26 (TensorScatter, BitCast);
# test/run-ort.sh also converts them at those opsets (test/ort/opsets/NN.txt).


class OpBitcast(nn.Module):
    """view(dtype) between dtypes of one element size: ONNX's BitCast (opset 26)."""

    def forward(self, x, h, b):
        # x float32 (2, 3), h float16 (2, 3), b bfloat16 (2, 3)
        xi = x.view(torch.int32)                       # float32 bits as int32
        hi = h.view(torch.int16)                       # float16 bits as int16
        bi = b.view(torch.int16)                       # bfloat16 bits as int16
        up = (xi + 1).view(torch.float32)              # int32 -> float32: the next float
        h2 = (hi ^ 1).view(torch.float16)              # int16 -> float16
        b2 = (bi + 1).view(torch.bfloat16)             # int16 -> bfloat16
        y = x.clone()
        y.view(torch.int32).add_(1)                    # a write through the view: y's next floats
        ints = flat_cat(xi, hi.to(torch.int32), bi.to(torch.int32))
        floats = flat_cat(up, h2.float(), b2.float(), y)
        return ints, floats


def fx_op_bitcast():
    args = (r(2, 3), r(2, 3).half(), r(2, 3).bfloat16())
    cases = [("other values", (r(2, 3) * 100, r(2, 3).half() * 10, r(2, 3).bfloat16() * 1000))]
    return SlimFixture(OpBitcast().eval(), args, cases=cases)


class OpKVCache(nn.Module):
    """A static KV cache written at a position along the sequence axis, then attention
    over it: ONNX's TensorScatter (opset 24) for each write, and Attention's
    nonpad_kv_seqlen (24) for the mask of the positions written so far."""

    def forward(self, cache, qkv, past):
        # cache (2, 2, 1, 6, 2): the key and value buffers (batch 2, 1 head, 6 positions);
        # qkv (3, 2, 1, 2, 2): q, k, v of two new tokens; past (2, P): the P tokens before
        # them, so they go at P (dynamic).
        k_cache, v_cache = cache[0], cache[1]
        q, k, v = qkv[0], qkv[1], qkv[2]
        p = past.shape[1]
        kc = k_cache.index_copy(2, torch.arange(p, p + k.shape[2]), k)
        vc = v_cache.slice_scatter(v, dim=2, start=p, end=p + v.shape[2])
        k2 = k_cache.index_copy(2, torch.arange(2), k)          # at 0 (a prefill)
        v2 = v_cache.slice_scatter(v * 2, dim=2, start=-2)      # the last two positions
        k3 = k_cache.clone()
        k3[:, :, torch.arange(p, p + 2)] = k * 3                # index_put at the position
        keep = (torch.arange(6) < p + 2).view(1, 6)             # the positions written so far
        att = F.scaled_dot_product_attention(q, kc, vc, attn_mask=keep)
        att2 = F.scaled_dot_product_attention(q, k2, v2)
        return flat_cat(att, att2, kc, vc, k2, v2, k3)


def fx_op_kvcache():
    p = Dim("p", min=0, max=4)
    ds = {"cache": None, "qkv": None, "past": {1: p}}
    cases = [("position 4", (r(2, 2, 1, 6, 2), r(3, 2, 1, 2, 2), r(2, 4))),
             ("position 0", (r(2, 2, 1, 6, 2), r(3, 2, 1, 2, 2), r(2, 0)))]
    return SlimFixture(OpKVCache().eval(), (r(2, 2, 1, 6, 2), r(3, 2, 1, 2, 2), r(2, 2)),
                       dynamic_shapes=ds, cases=cases)


class OpCumprod(nn.Module):
    """cumprod along a dynamic dim: ONNX's CumProd (opset 26); the Mul chain of earlier
    opsets needs a static dim."""

    def forward(self, x, n):
        # x (2, S) float32, S dynamic; n (3, 2) int32
        return flat_cat(x.cumprod(1), torch.cumprod(x, 0, dtype=torch.float64).float(),
                        n.cumprod(0).float())


def fx_op_cumprod():
    s = Dim("s", min=2, max=64)
    n = torch.tensor([[1, -2], [3, 2], [-1, 5]], dtype=torch.int32)
    cases = [("seven columns", (r(2, 7) * 0.5 + 1, n * 2))]
    return SlimFixture(OpCumprod().eval(), (r(2, 5) * 0.5 + 1, n),
                       dynamic_shapes={"x": {1: s}, "n": None}, cases=cases)


family(["op_bitcast", "op_kvcache", "op_cumprod"], versions=("2.14", "2.6"), decomp=True)
