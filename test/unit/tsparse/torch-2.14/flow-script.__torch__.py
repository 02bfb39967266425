class Flow(Module):
  __parameters__ = []
  __buffers__ = ["steps", ]
  steps : Tensor
  training : bool
  _is_full_backward_hook : NoneType
  eps : float
  big : float
  tag : str
  counts : Dict[str, int]
  maybe : Optional[Tensor]
  blocks : __torch__.torch.nn.modules.container.ModuleList
  named : __torch__.torch.nn.modules.container.ModuleDict
  seq : __torch__.torch.nn.modules.container.Sequential
  mode : Final[str] = "sum"
  widths : Final[Tuple[int, int, int]] = (1, 2, 3)
  def forward(self: __torch__.Flow,
    x: Tensor,
    n: int=3,
    opt: Optional[Tensor]=None) -> Tensor:
    _0 = "AssertionError: n must be non-negative"
    _1 = uninitialized(Tensor)
    _2 = uninitialized(bool)
    blocks = self.blocks
    _00 = getattr(blocks, "0")
    _10 = getattr(blocks, "1")
    y = (_00).forward(x, )
    y0 = (_10).forward(y, )
    named = self.named
    p = named.p
    y1 = (p).forward(y0, )
    seq = self.seq
    y2 = (seq).forward(y1, )
    y3 = y2
    _3 = 0
    _4 = torch.gt(n, 0)
    while _4:
      if torch.eq(_3, 1):
        _5, _6, _7, _8, _9 = True, True, y3, _2, _1
      else:
        if torch.ge(_3, 5):
          _11, _12, _13, _14, _15 = True, False, y3, _2, _1
        else:
          _11, _12, _13, _14, _15 = False, _2, _1, True, torch.add(y3, _3)
        _5, _6, _7, _8, _9 = _11, _12, _13, _14, _15
      if _5:
        _16, _17 = _6, _7
      else:
        _16, _17 = _8, _9
      _18 = torch.add(_3, 1)
      _19 = torch.__and__(torch.lt(_18, n), _16)
      _4, y3, _3 = _19, _17, _18
    if torch.lt(0, n):
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
    maybe = self.maybe
    if torch.__is__(maybe, None):
      y11 = torch.div(y10, 2)
    else:
      y11 = y10
    tag = self.tag
    if torch.eq(tag, "a\"b\\c\n\t\'d\001"):
      y13 = torch.add(torch.clamp(y11, -inf, inf), 0.)
      y12 = y13
    else:
      y12 = y11
    if torch.lt(0, n):
      _26 = torch.le(n, 10)
    else:
      _26 = False
    if _26:
      y14 = torch.mul(y12, 0.5)
    else:
      y14 = y12
    if torch.ge(n, 0):
      pass
    else:
      ops.prim.RaiseException(_0)
    if torch.gt(n, 100):
      ops.prim.RaiseException(torch.add("too many: ", str(n)), "builtins.RuntimeError")
    else:
      pass
    _27 = (self).pick(y14, n, __torch__.Color.RED, )
    a, b, = _27
    d = {"a": a, "b": b}
    lst = annotate(List[int], [])
    _28 = torch.append(lst, 1)
    _29 = torch.append(lst, 2)
    _30 = torch.append(lst, 3)
    s = annotate(List[Tensor], [])
    _31 = torch.append(s, d["a"])
    if torch.gt(torch.len(s), 0):
      z = s[0]
    else:
      z = b
    counts = self.counts
    _32 = torch.add(z, counts["x"])
    eps = self.eps
    z0 = torch.add(_32, eps)
    tag0 = self.tag
    _33 = torch.add(torch.add(z0, torch.len(tag0)), torch.len(lst))
    counts0 = self.counts
    if torch.__contains__(counts0, "x"):
      _34 = 1
    else:
      _34 = 0
    z1 = torch.add(_33, _34)
    if torch.gt(torch.dim(z1), 99):
      z2 = torch.add(z1, nan)
    else:
      z2 = z1
    _35 = torch.mul(z2, 2.5)
    _36 = torch.bitwise_not(torch.tensor([1], dtype=3))
    z3 = torch.add(_35, torch.to(_36, 6))
    _37 = __torch__.helper(z3, 2., ["u"], )
    _38 = __torch__.clamp_pair(z3, -1.5, 1.0000000000000001e-05, )
    z4 = torch.add(_37, (_38)[0])
    p0 = __torch__.clamp_pair(z4, -1.5, 1.0000000000000001e-05, )
    _39 = __torch__.torch.autograd.grad_mode.no_grad.__new__(__torch__.torch.autograd.grad_mode.no_grad)
    _40 = (_39).__init__()
    with _39:
      z5 = torch.add(z4, torch.mul((p0)[1], 0))
    _41 = torch.remainder(torch.pow(torch.abs(z5), 2), 7)
    _42 = torch.floor_divide(_41, 1)
    _43 = torch.sum(torch.matmul(x, torch.t(x)))
    return torch.add(_42, _43)
  def pick(self: __torch__.Flow,
    x: Tensor,
    k: int=1,
    c: __torch__.Color=__torch__.Color.RED) -> Tuple[Tensor, Tensor]:
    if torch.eq(c, __torch__.Color.GREEN):
      _43 = (x, torch.mul(x, 2))
    else:
      if torch.gt(k, 2):
        _44 = (torch.add(x, 1), x)
      else:
        _45 = torch.sub(x, 1)
        _46 = torch.slice(torch.slice(x), 1, 1, 3)
        _44 = (_45, _46)
      _43 = _44
    return _43
class Color(Enum):
  RED = 1
  GREEN = 2
def helper(x: Tensor,
    scale: float=2.,
    names: Optional[List[str]]=None) -> Tensor:
  if torch.__isnot__(names, None):
    names1 = unchecked_cast(List[str], names)
    _47, names0 = torch.gt(torch.len(names1), 0), names1
  else:
    _47, names0 = False, names
  if _47:
    names2 = unchecked_cast(List[str], names0)
    x0 = torch.mul(x, torch.len(names2))
  else:
    x0 = x
  return torch.mul(x0, scale)
def clamp_pair(x: Tensor,
    lo: float=-1.5,
    hi: float=1.0000000000000001e-05) -> __torch__.Pair:
  _48 = __torch__.Pair(torch.clamp(x, lo), torch.clamp(x, None, hi))
  return _48
class Pair(NamedTuple):
  lo : Tensor
  hi : Tensor
