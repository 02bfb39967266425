class Conv1D(Module):
  __parameters__ = ["weight", "bias", ]
  __buffers__ = []
  weight : Tensor
  bias : Tensor
  training : bool
  _is_full_backward_hook : Optional[bool]
  def forward(self: __torch__.transformers.pytorch_utils.___torch_mangle_1225.Conv1D,
    x: Tensor) -> Tensor:
    weight = self.weight
    bias = self.bias
    _0 = ops.prim.NumToTensor(torch.size(x, 0))
    _1 = int(_0)
    _2 = ops.prim.NumToTensor(torch.size(x, 1))
    _3 = int(_2)
    _4 = ops.prim.NumToTensor(torch.size(x, -1))
    x0 = torch.addmm(bias, torch.view(x, [-1, int(_4)]), weight)
    return torch.view(x0, [_1, _3, 16])
