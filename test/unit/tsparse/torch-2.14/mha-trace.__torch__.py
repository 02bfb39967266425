class MHA(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  mha : __torch__.torch.nn.modules.activation.MultiheadAttention
  def forward(self: __torch__.MHA,
    x: Tensor) -> Tensor:
    mha = self.mha
    return (mha).forward(x, )
