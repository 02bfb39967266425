def relu(input: Tensor,
    inplace: bool=False) -> Tensor:
  if inplace:
    result = torch.relu_(input)
  else:
    result = torch.relu(input)
  return result
def adaptive_avg_pool2d(input: Tensor,
    output_size: List[int]) -> Tensor:
  _0 = torch.gt(torch.len(torch.size(input)), torch.len(output_size))
  if _0:
    pass
  else:
    ops.prim.RaiseException("AssertionError: ")
  _1 = torch.adaptive_avg_pool2d(input, output_size)
  return _1
def batch_norm(input: Tensor,
    running_mean: Optional[Tensor],
    running_var: Optional[Tensor],
    weight: Optional[Tensor]=None,
    bias: Optional[Tensor]=None,
    training: bool=False,
    momentum: float=0.10000000000000001,
    eps: float=1.0000000000000001e-05) -> Tensor:
  _2 = __torch__.torch.nn.functional._verify_batch_size
  _3 = "batch_norm eps must be positive during training, but got {}"
  _4 = "batch_norm eps must be non-negative, but got {}"
  if training:
    _5 = _2(torch.size(input), )
  else:
    pass
  if training:
    _6 = torch.le(eps, 0.)
  else:
    _6 = False
  if _6:
    ops.prim.RaiseException(torch.format(_3, eps), "builtins.ValueError")
  else:
    if torch.lt(eps, 0.):
      ops.prim.RaiseException(torch.format(_4, eps), "builtins.ValueError")
    else:
      pass
  _7 = torch.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, True)
  return _7
def _max_pool2d(input: Tensor,
    kernel_size: List[int],
    stride: Optional[List[int]]=None,
    padding: List[int]=[0, 0],
    dilation: List[int]=[1, 1],
    ceil_mode: bool=False,
    return_indices: bool=False) -> Tensor:
  if torch.__is__(stride, None):
    stride0 = annotate(List[int], [])
  else:
    stride0 = unchecked_cast(List[int], stride)
  _8 = torch.max_pool2d(input, kernel_size, stride0, padding, dilation, ceil_mode)
  return _8
def _verify_batch_size(size: List[int]) -> NoneType:
  _9 = "Expected more than 1 value per channel when training, got input size {}"
  size_prods = size[0]
  size_prods0 = size_prods
  for i in range(torch.sub(torch.len(size), 2)):
    size_prods1 = torch.mul(size_prods0, size[torch.add(i, 2)])
    size_prods0 = size_prods1
  if torch.eq(size_prods0, 1):
    ops.prim.RaiseException(torch.format(_9, size), "builtins.ValueError")
  else:
    pass
  return None
