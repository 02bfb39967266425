def _check_arg_device(x: Optional[Tensor]) -> bool:
  if torch.__isnot__(x, None):
    x0 = unchecked_cast(Tensor, x)
    _1 = ops.prim.type(ops.prim.device(x0))
    _2 = torch.__contains__(["cpu", "cuda", "privateuseone"], _1)
    _0 = _2
  else:
    _0 = True
  return _0
def _arg_requires_grad(x: Optional[Tensor]) -> bool:
  if torch.__isnot__(x, None):
    x1 = unchecked_cast(Tensor, x)
    _3 = ops.prim.requires_grad(x1)
  else:
    _3 = False
  return _3
def _is_make_fx_tracing() -> bool:
  return False
