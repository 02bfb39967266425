class CfWhile(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  def forward(self: __torch__.CfWhile,
    x: Tensor) -> Tuple[Tensor, Tensor]:
    _0 = torch.gt(torch.max(torch.abs(x)), 1.)
    if bool(_0):
      _1 = True
    else:
      _1 = False
    n = 0
    y = x
    _2 = _1
    while _2:
      y0 = torch.mul(y, 0.5)
      n0 = torch.add(n, 1)
      _3 = torch.gt(torch.max(torch.abs(y0)), 1.)
      if bool(_3):
        (y, torch.full([1], n, dtype=4))
