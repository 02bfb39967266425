class Ctx(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  def forward(self: __torch__.Ctx,
    x: Tensor,
    xs: List[Tensor]) -> Tuple[Tensor, List[int]]:
    out = annotate(List[int], [])
    acc = torch.zeros_like(x)
    acc0 = acc
    for _0 in range(torch.len(xs)):
      t = xs[_0]
      acc1 = torch.add(acc0, t)
      _1 = torch.append(out, torch.numel(t))
      acc0 = acc1
    _2 = bool(torch.lt(torch.max(acc0), 10.))
    if _2:
      _3 = True
    else:
      _3 = False
    acc2 = acc0
    k = 0
    _4 = _3
    while _4:
      acc3 = torch.mul(acc2, 2.)
      k0 = torch.add(k, 1)
      _5 = bool(torch.lt(torch.max(acc3), 10.))
      if _5:
        _6 = torch.lt(k0, 4)
      else:
        _6 = False
      _4, acc2, k = _6, acc3, k0
    def __forked_function():
      return torch.neg(acc2)
    fut = fork(__forked_function)
    acc4 = torch.wait(fut)
    msg = torch.format("got {} tensors", torch.len(xs))
    if torch.eq(torch.len(msg), 0):
      print(msg)
    else:
      pass
    out2 = torch.add(torch.slice(out, 1), torch.slice(out, None, 1))
    torch.Delete(out2, 0)
    return (acc4, out2)
