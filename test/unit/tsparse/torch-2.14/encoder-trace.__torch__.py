class Encoder(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  layer : __torch__.torch.nn.modules.transformer.TransformerEncoderLayer
  def forward(self: __torch__.Encoder,
    x: Tensor) -> Tensor:
    layer = self.layer
    return (layer).forward(x, )
