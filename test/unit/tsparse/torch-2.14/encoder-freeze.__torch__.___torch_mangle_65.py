class Encoder(Module):
  __parameters__ = []
  __buffers__ = []
  def forward(self: __torch__.___torch_mangle_65.Encoder,
    x: Tensor) -> Tensor:
    _0 = torch._transformer_encoder_layer_fwd(x, 8, 2, CONSTANTS.c0, CONSTANTS.c1, CONSTANTS.c2, CONSTANTS.c3, False, False, 1.0000000000000001e-05, CONSTANTS.c4, CONSTANTS.c3, CONSTANTS.c4, CONSTANTS.c3, CONSTANTS.c5, CONSTANTS.c6, CONSTANTS.c7, CONSTANTS.c8)
    return _0
