class BertAttention(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  self : __torch__.transformers.models.bert.modeling_bert.___torch_mangle_1108.BertSelfAttention
  output : __torch__.transformers.models.bert.modeling_bert.___torch_mangle_1112.BertSelfOutput
  def forward(self: __torch__.transformers.models.bert.modeling_bert.___torch_mangle_1113.BertAttention,
    argument_1: Tensor,
    attention_mask: Tensor) -> Tensor:
    output = self.output
    self0 = self.self
    _0 = (self0).forward(argument_1, attention_mask, )
    return (output).forward(_0, argument_1, )
