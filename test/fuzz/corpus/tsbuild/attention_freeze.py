class AttentionSdpa(Module):
  __parameters__ = []
  __buffers__ = []
  def forward(self: __torch__.___torch_mangle_1.AttentionSdpa,
    x: Tensor,
    mask: Tensor) -> Tensor:
    _0 = torch.size(x, 0)
    _1 = torch.size(x, 1)
    _2 = torch.size(x, 2)
    _3 = ops.prim.NumToTensor(_2)
    _4 = torch.linear(x, CONSTANTS.c0, CONSTANTS.c1)
    q, k, v, = torch.chunk(_4, 3, -1)
    _5 = torch.floor_divide(_3, CONSTANTS.c2)
    _6 = [_0, _1, 2, int(_5)]
    q0 = torch.transpose(torch.view(q, _6), 1, 2)
    k0 = torch.transpose(torch.view(k, _6), 1, 2)
    v0 = torch.transpose(torch.view(v, _6), 1, 2)
    _7 = torch.ones([_1, _1], dtype=11, layout=None, device=torch.device("cpu"), pin_memory=False)
    causal = torch.tril(_7)
    _8 = torch.unsqueeze(torch.unsqueeze(causal, 0), 1)
    _9 = torch.slice(_8, 2, 0, 9223372036854775807)
    _10 = torch.slice(_9, 3, 0, 9223372036854775807)
    _11 = torch.slice(mask, 0, 0, 9223372036854775807)
    _12 = torch.unsqueeze(torch.unsqueeze(_11, 1), 2)
    _13 = torch.slice(_12, 3, 0, 9223372036854775807)
    keep = torch.__and__(_10, _13)
    _14 = torch.matmul(q0, torch.transpose(k0, -2, -1))
    att = torch.div(_14, CONSTANTS.c3)
    att0 = torch.masked_fill(att, torch.bitwise_not(keep), -inf)
    _15 = torch.matmul(torch.softmax(att0, -1), v0)
    _16 = torch.scaled_dot_product_attention(q0, k0, v0, keep)
    y = torch.add(_15, _16)
    input = torch.reshape(torch.transpose(y, 1, 2), [_0, _1, _2])
    _17 = torch.linear(input, CONSTANTS.c4, CONSTANTS.c5)
    input0 = torch.add(x, _17)
    _18 = torch.layer_norm(input0, [16], CONSTANTS.c6, CONSTANTS.c7)
    return _18
