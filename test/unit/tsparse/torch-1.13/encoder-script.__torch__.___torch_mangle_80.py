class Encoder(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  layer : __torch__.torch.nn.modules.transformer.___torch_mangle_79.TransformerEncoderLayer
  def forward(self: __torch__.___torch_mangle_80.Encoder,
    x: Tensor) -> Tensor:
    layer = self.layer
    return (layer).forward(x, None, None, )
