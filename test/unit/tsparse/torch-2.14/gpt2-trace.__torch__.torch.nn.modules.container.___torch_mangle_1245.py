class ModuleList(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  __annotations__["0"] = __torch__.transformers.models.gpt2.modeling_gpt2.GPT2Block
  __annotations__["1"] = __torch__.transformers.models.gpt2.modeling_gpt2.___torch_mangle_1244.GPT2Block
