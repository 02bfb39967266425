class Hardsigmoid(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  inplace : Final[bool] = False
  def forward(self: __torch__.torch.nn.modules.activation.___torch_mangle_985.Hardsigmoid,
    input: Tensor) -> Tensor:
    _0 = __torch__.torch.nn.functional.hardsigmoid
    return _0(input, False, )
