class InvertedResidual(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  use_res_connect : bool
  out_channels : int
  _is_cn : bool
  block : __torch__.torch.nn.modules.container.___torch_mangle_989.Sequential
  def forward(self: __torch__.torchvision.models.mobilenetv3.___torch_mangle_990.InvertedResidual,
    input: Tensor) -> Tensor:
    block = self.block
    result = (block).forward(input, )
    use_res_connect = self.use_res_connect
    if use_res_connect:
      result0 = torch.add_(result, input)
    else:
      result0 = result
    return result0
