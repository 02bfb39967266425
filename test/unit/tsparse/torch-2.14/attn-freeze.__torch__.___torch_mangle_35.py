class Attention(Module):
  __parameters__ = []
  __buffers__ = []
  def forward(self: __torch__.___torch_mangle_35.Attention,
    x: Tensor) -> Tensor:
    _0 = torch.size(x, 0)
    _1 = torch.size(x, 1)
    _2 = torch.size(x, 2)
    d = ops.prim.NumToTensor(_2)
    _3 = torch.linear(x, CONSTANTS.c0, CONSTANTS.c1)
    q, k, v, = torch.chunk(_3, 3, -1)
    _4 = int(torch.floor_divide(d, CONSTANTS.c2))
    _5 = [_0, _1, 2, _4]
    q0 = torch.transpose(torch.view(q, _5), 1, 2)
    k0 = torch.transpose(torch.view(k, _5), 1, 2)
    v0 = torch.transpose(torch.view(v, _5), 1, 2)
    _6 = torch.matmul(q0, torch.transpose(k0, -2, -1))
    a = torch.softmax(torch.div(_6, CONSTANTS.c3), -1)
    _7 = torch.transpose(torch.matmul(a, v0), 1, 2)
    input = torch.reshape(_7, [_0, _1, _2])
    _8 = torch.linear(input, CONSTANTS.c4, CONSTANTS.c5)
    input0 = torch.add(x, _8)
    _9 = torch.layer_norm(input0, [8], CONSTANTS.c6, CONSTANTS.c7)
    return _9
