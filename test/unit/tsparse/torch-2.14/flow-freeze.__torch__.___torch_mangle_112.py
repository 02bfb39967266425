class Flow(Module):
  __parameters__ = []
  __buffers__ = []
  mode : Final[str] = "sum"
  widths : Final[Tuple[int, int, int]] = (1, 2, 3)
  def forward(self: __torch__.___torch_mangle_112.Flow,
    x: Tensor,
    n: int=3,
    opt: Optional[Tensor]=None) -> Tensor:
    _0 = "AssertionError: n must be non-negative"
    _1 = uninitialized(Tensor)
    _2 = uninitialized(bool)
    y = torch.linear(x, CONSTANTS.c0, CONSTANTS.c1)
    y0 = torch.linear(y, CONSTANTS.c2, CONSTANTS.c3)
    y1 = torch.relu(y0)
    input = torch.linear(y1, CONSTANTS.c4, CONSTANTS.c5)
    y2 = torch.sigmoid(input)
    y3 = y2
    _3 = 0
    _4 = torch.gt(n, 0)
    while _4:
      if torch.eq(_3, 1):
        _5, _6, _7, _8, _9 = True, True, y3, _2, _1
      else:
        _10 = torch.ge(_3, 5)
        if _10:
          _11, _12, _13, _14 = False, y3, _2, _1
        else:
          _11, _12, _13, _14 = _2, _1, True, torch.add(y3, _3)
        _5, _6, _7, _8, _9 = _10, _11, _12, _13, _14
      if _5:
        _15, _16 = _6, _7
      else:
        _15, _16 = _8, _9
      _17 = torch.add(_3, 1)
      _18 = torch.__and__(torch.lt(_17, n), _15)
      _4, y3, _3 = _18, _16, _17
    _19 = torch.lt(0, n)
    if _19:
      _21 = bool(torch.gt(torch.sum(y3), 1000000.))
      _20 = torch.__not__(_21)
    else:
      _20 = False
    y4 = y3
    j = 0
    _22 = _20
    while _22:
      j0 = torch.add(j, 1)
      y5 = torch.mul_(y4, 1.5)
      if torch.lt(j0, n):
        _24 = torch.gt(torch.sum(y5), 1000000.)
        _23 = torch.__not__(bool(_24))
      else:
        _23 = False
      _22, y4, j = _23, y5, j0
    y6 = torch.add(y4, 1)
    y7 = torch.add(y6, 2)
    y8 = torch.add(y7, 3)
    if torch.__isnot__(opt, None):
      opt1 = unchecked_cast(Tensor, opt)
      opt0, y9 = opt1, torch.add(y8, opt1)
    else:
      opt0, y9 = opt, y8
    _25 = isinstance(opt0, Tensor)
    if _25:
      y10 = torch.sub(y9, 1)
    else:
      y10 = y9
    y11 = torch.div(y10, 2)
    if _19:
      _26 = torch.le(n, 10)
    else:
      _26 = False
    if _26:
      y12 = torch.mul(y11, 0.5)
    else:
      y12 = y11
    if torch.ge(n, 0):
      pass
    else:
      ops.prim.RaiseException(_0)
    if torch.gt(n, 100):
      ops.prim.RaiseException(torch.add("too many: ", str(n)), "builtins.RuntimeError")
    else:
      pass
    if torch.gt(n, 2):
      _27 = (torch.add(y12, 1), y12)
    else:
      _28 = torch.sub(y12, 1)
      _29 = torch.slice(torch.slice(y12), 1, 1, 3)
      _27 = (_28, _29)
    a, b, = _27
    lst = annotate(List[int], [])
    _30 = torch.append(lst, 1)
    _31 = torch.append(lst, 2)
    _32 = torch.append(lst, 3)
    s = annotate(List[Tensor], [])
    _33 = torch.append(s, a)
    if torch.gt(torch.len(s), 0):
      z = s[0]
    else:
      z = b
    z0 = torch.add(torch.add(z, 1), 1.0000000000000001e-05)
    _34 = torch.add(torch.add(z0, 9), torch.len(lst))
    z1 = torch.add(_34, 1)
    if torch.gt(torch.dim(z1), 99):
      z2 = torch.add(z1, nan)
    else:
      z2 = z1
    z3 = torch.add(torch.mul(z2, 2.5), CONSTANTS.c6)
    x0 = torch.mul(z3, 1)
    z4 = torch.add(torch.mul(x0, 2.), torch.clamp(z3, -1.5))
    _35 = torch.clamp(z4, None, 1.0000000000000001e-05)
    _36 = __torch__.torch.autograd.grad_mode.no_grad.__new__(__torch__.torch.autograd.grad_mode.no_grad)
    _36.prev = False
    with _36:
      z5 = torch.add(z4, torch.mul(_35, 0))
    _37 = torch.remainder(torch.pow(torch.abs(z5), 2), 7)
    _38 = torch.floor_divide(_37, 1)
    _39 = torch.sum(torch.matmul(x, torch.t(x)))
    return torch.add(_38, _39)
