class MHA(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  mha : __torch__.torch.nn.modules.activation.___torch_mangle_44.MultiheadAttention
  def forward(self: __torch__.___torch_mangle_45.MHA,
    x: Tensor) -> Tensor:
    mha = self.mha
    _0 = (mha).forward(x, x, x, None, False, None, True, False, )
    return (_0)[0]
