class DynBatch(Module):
  __parameters__ = []
  __buffers__ = []
  def forward(self: __torch__.___torch_mangle_0.DynBatch,
    x: Tensor) -> Tensor:
    _0 = torch._convolution(x, CONSTANTS.c0, CONSTANTS.c1, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, False, False, True, True)
    y = torch.relu(_0)
    input = torch.reshape(y, [torch.size(y, 0), -1])
    y0 = torch.linear(input, CONSTANTS.c2, CONSTANTS.c3)
    _1 = torch.sub(y0, torch.mean(y0, [0], True))
    return _1
