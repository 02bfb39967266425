class Attention(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  qkv : __torch__.torch.nn.modules.linear.___torch_mangle_29.Linear
  out : __torch__.torch.nn.modules.linear.___torch_mangle_30.Linear
  norm : __torch__.torch.nn.modules.normalization.LayerNorm
  def forward(self: __torch__.Attention,
    x: Tensor) -> Tensor:
    norm = self.norm
    out = self.out
    qkv = self.qkv
    b = ops.prim.NumToTensor(torch.size(x, 0))
    _0 = int(b)
    _1 = int(b)
    _2 = int(b)
    _3 = int(b)
    t = ops.prim.NumToTensor(torch.size(x, 1))
    _4 = int(t)
    _5 = int(t)
    _6 = int(t)
    _7 = int(t)
    d = ops.prim.NumToTensor(torch.size(x, 2))
    _8 = int(d)
    _9 = torch.chunk((qkv).forward(x, ), 3, -1)
    q, k, v, = _9
    _10 = int(torch.floor_divide(d, CONSTANTS.c0))
    q0 = torch.transpose(torch.view(q, [_3, _7, 2, _10]), 1, 2)
    _11 = int(torch.floor_divide(d, CONSTANTS.c0))
    k0 = torch.transpose(torch.view(k, [_2, _6, 2, _11]), 1, 2)
    _12 = int(torch.floor_divide(d, CONSTANTS.c0))
    v0 = torch.transpose(torch.view(v, [_1, _5, 2, _12]), 1, 2)
    _13 = torch.matmul(q0, torch.transpose(k0, -2, -1))
    a = torch.softmax(torch.div(_13, CONSTANTS.c1), -1)
    _14 = torch.transpose(torch.matmul(a, v0), 1, 2)
    input = torch.reshape(_14, [_0, _4, _8])
    input0 = torch.add(x, (out).forward(input, ))
    return (norm).forward(input0, )
