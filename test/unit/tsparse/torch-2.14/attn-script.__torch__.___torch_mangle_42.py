class Attention(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  heads : int
  qkv : __torch__.torch.nn.modules.linear.___torch_mangle_39.Linear
  out : __torch__.torch.nn.modules.linear.___torch_mangle_40.Linear
  norm : __torch__.torch.nn.modules.normalization.___torch_mangle_41.LayerNorm
  def forward(self: __torch__.___torch_mangle_42.Attention,
    x: Tensor) -> Tensor:
    b, t, d, = torch.size(x)
    qkv = self.qkv
    _0 = torch.chunk((qkv).forward(x, ), 3, -1)
    q, k, v, = _0
    heads = self.heads
    heads0 = self.heads
    _1 = [b, t, heads, torch.floordiv(d, heads0)]
    q0 = torch.transpose(torch.view(q, _1), 1, 2)
    heads1 = self.heads
    heads2 = self.heads
    _2 = [b, t, heads1, torch.floordiv(d, heads2)]
    k0 = torch.transpose(torch.view(k, _2), 1, 2)
    heads3 = self.heads
    heads4 = self.heads
    _3 = [b, t, heads3, torch.floordiv(d, heads4)]
    v0 = torch.transpose(torch.view(v, _3), 1, 2)
    _4 = torch.matmul(q0, torch.transpose(k0, -2, -1))
    heads5 = self.heads
    _5 = torch.sqrt(torch.floordiv(d, heads5))
    a = torch.softmax(torch.div(_4, _5), -1)
    _6 = torch.transpose(torch.matmul(a, v0), 1, 2)
    y = torch.reshape(_6, [b, t, d])
    norm = self.norm
    out = self.out
    _7 = (norm).forward(torch.add(x, (out).forward(y, )), )
    return _7
