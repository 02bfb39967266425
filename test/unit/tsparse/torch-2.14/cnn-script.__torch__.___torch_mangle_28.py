class CNN(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  conv : __torch__.torch.nn.modules.conv.___torch_mangle_24.Conv2d
  bn : __torch__.torch.nn.modules.batchnorm.___torch_mangle_25.BatchNorm2d
  pool : __torch__.torch.nn.modules.pooling.___torch_mangle_26.MaxPool2d
  head : __torch__.torch.nn.modules.linear.___torch_mangle_27.Linear
  def forward(self: __torch__.___torch_mangle_28.CNN,
    x: Tensor) -> Tensor:
    _0 = __torch__.torch.nn.functional.adaptive_avg_pool2d
    pool = self.pool
    bn = self.bn
    conv = self.conv
    _1 = __torch__.torch.nn.functional.relu((bn).forward((conv).forward(x, ), ), False, )
    y = (pool).forward(_1, )
    y0 = torch.flatten(_0(y, [1, 1], ), 1)
    head = self.head
    return (head).forward(y0, )
