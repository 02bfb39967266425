class MLP(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  fc1 : __torch__.torch.nn.modules.linear.Linear
  act : __torch__.torch.nn.modules.activation.ReLU
  fc2 : __torch__.torch.nn.modules.linear.___torch_mangle_0.Linear
  def forward(self: __torch__.MLP,
    x: Tensor) -> Tensor:
    fc2 = self.fc2
    act = self.act
    fc1 = self.fc1
    _0 = (fc2).forward((act).forward((fc1).forward(x, ), ), )
    return _0
