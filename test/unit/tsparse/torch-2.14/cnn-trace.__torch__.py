class CNN(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  conv : __torch__.torch.nn.modules.conv.Conv2d
  bn : __torch__.torch.nn.modules.batchnorm.BatchNorm2d
  pool : __torch__.torch.nn.modules.pooling.MaxPool2d
  head : __torch__.torch.nn.modules.linear.___torch_mangle_13.Linear
  def forward(self: __torch__.CNN,
    x: Tensor) -> Tensor:
    head = self.head
    pool = self.pool
    bn = self.bn
    conv = self.conv
    input = torch.relu((bn).forward((conv).forward(x, ), ))
    _0 = torch.adaptive_avg_pool2d((pool).forward(input, ), [1, 1])
    input0 = torch.flatten(_0, 1)
    return (head).forward(input0, )
