class Conv1D(Module):
  __parameters__ = ["weight", "bias", ]
  __buffers__ = []
  weight : Tensor
  bias : Tensor
  training : bool
  _is_full_backward_hook : Optional[bool]
  def forward(self: __torch__.transformers.pytorch_utils.Conv1D,
    argument_1: Tensor) -> Tensor:
    weight = self.weight
    bias = self.bias
    _0 = ops.prim.NumToTensor(torch.size(argument_1, 0))
    _1 = int(_0)
    _2 = ops.prim.NumToTensor(torch.size(argument_1, 1))
    _3 = int(_2)
    _4 = ops.prim.NumToTensor(torch.size(argument_1, -1))
    _5 = torch.view(argument_1, [-1, int(_4)])
    x = torch.addmm(bias, _5, weight)
    return torch.view(x, [_1, _3, 48])
