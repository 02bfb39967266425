class MobileNetV3(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  features : __torch__.torch.nn.modules.container.___torch_mangle_551.Sequential
  avgpool : __torch__.torch.nn.modules.pooling.___torch_mangle_552.AdaptiveAvgPool2d
  classifier : __torch__.torch.nn.modules.container.___torch_mangle_557.Sequential
  def forward(self: __torch__.torchvision.models.mobilenetv3.MobileNetV3,
    x: Tensor) -> Tensor:
    classifier = self.classifier
    avgpool = self.avgpool
    features = self.features
    _0 = (avgpool).forward((features).forward(x, ), )
    input = torch.flatten(_0, 1)
    return (classifier).forward(input, )
class InvertedResidual(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  block : __torch__.torch.nn.modules.container.___torch_mangle_368.Sequential
  def forward(self: __torch__.torchvision.models.mobilenetv3.InvertedResidual,
    argument_1: Tensor) -> Tensor:
    block = self.block
    return (block).forward(argument_1, )
