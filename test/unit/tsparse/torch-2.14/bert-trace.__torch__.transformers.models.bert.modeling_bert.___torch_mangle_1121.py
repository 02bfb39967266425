class BertLayer(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  attention : __torch__.transformers.models.bert.modeling_bert.___torch_mangle_1113.BertAttention
  intermediate : __torch__.transformers.models.bert.modeling_bert.___torch_mangle_1116.BertIntermediate
  output : __torch__.transformers.models.bert.modeling_bert.___torch_mangle_1120.BertOutput
  def forward(self: __torch__.transformers.models.bert.modeling_bert.___torch_mangle_1121.BertLayer,
    argument_1: Tensor,
    attention_mask: Tensor) -> Tensor:
    output = self.output
    intermediate = self.intermediate
    attention = self.attention
    _0 = (attention).forward(argument_1, attention_mask, )
    _1 = (output).forward((intermediate).forward(_0, ), _0, )
    return _1
