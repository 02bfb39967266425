class TransformerEncoderLayer(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  self_attn : __torch__.torch.nn.modules.activation.___torch_mangle_47.MultiheadAttention
  linear1 : __torch__.torch.nn.modules.linear.___torch_mangle_48.Linear
  dropout : __torch__.torch.nn.modules.dropout.Dropout
  linear2 : __torch__.torch.nn.modules.linear.___torch_mangle_49.Linear
  norm1 : __torch__.torch.nn.modules.normalization.___torch_mangle_50.LayerNorm
  norm2 : __torch__.torch.nn.modules.normalization.___torch_mangle_51.LayerNorm
  dropout1 : __torch__.torch.nn.modules.dropout.___torch_mangle_52.Dropout
  dropout2 : __torch__.torch.nn.modules.dropout.___torch_mangle_53.Dropout
  def forward(self: __torch__.torch.nn.modules.transformer.TransformerEncoderLayer,
    x: Tensor) -> Tensor:
    linear2 = self.linear2
    bias = linear2.bias
    linear20 = self.linear2
    weight = linear20.weight
    linear1 = self.linear1
    bias0 = linear1.bias
    linear10 = self.linear1
    weight0 = linear10.weight
    norm2 = self.norm2
    bias1 = norm2.bias
    norm20 = self.norm2
    weight1 = norm20.weight
    norm1 = self.norm1
    bias2 = norm1.bias
    norm10 = self.norm1
    weight2 = norm10.weight
    self_attn = self.self_attn
    out_proj = self_attn.out_proj
    bias3 = out_proj.bias
    self_attn0 = self.self_attn
    out_proj0 = self_attn0.out_proj
    weight3 = out_proj0.weight
    self_attn1 = self.self_attn
    in_proj_bias = self_attn1.in_proj_bias
    self_attn2 = self.self_attn
    in_proj_weight = self_attn2.in_proj_weight
    _0 = torch._transformer_encoder_layer_fwd(x, 8, 2, in_proj_weight, in_proj_bias, weight3, bias3, False, False, 1.0000000000000001e-05, weight2, bias2, weight1, bias1, weight0, bias0, weight, bias)
    return _0
