class CfIf(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  def forward(self: __torch__.CfIf,
    x: Tensor) -> Tensor:
    if bool(torch.gt(torch.sum(x), 0)):
      y = torch.add(torch.mul(x, 2.), 1.)
    else:
      y = torch.sub(torch.tanh(x), 1.)
    return y
