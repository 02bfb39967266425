class ModuleList(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  __annotations__["0"] = __torch__.transformers.models.bert.modeling_bert.BertLayer
  __annotations__["1"] = __torch__.transformers.models.bert.modeling_bert.___torch_mangle_1121.BertLayer
