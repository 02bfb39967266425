class MLP(Module):
  __parameters__ = []
  __buffers__ = []
  def forward(self: __torch__.___torch_mangle_1.MLP,
    x: Tensor) -> Tensor:
    input = torch.linear(x, CONSTANTS.c0, CONSTANTS.c1)
    input0 = torch.relu(input)
    _0 = torch.linear(input0, CONSTANTS.c2, CONSTANTS.c3)
    return _0
