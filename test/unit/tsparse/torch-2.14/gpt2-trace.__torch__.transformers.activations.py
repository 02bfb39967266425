class NewGELUActivation(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  def forward(self: __torch__.transformers.activations.NewGELUActivation,
    argument_1: Tensor) -> Tensor:
    _0 = torch.mul(argument_1, CONSTANTS.c2)
    _1 = torch.mul(torch.pow(argument_1, 3.), CONSTANTS.c3)
    _2 = torch.mul(torch.add(argument_1, _1), CONSTANTS.c4)
    _3 = torch.add(torch.tanh(_2), CONSTANTS.c5)
    return torch.mul(_0, _3)
