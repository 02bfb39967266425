class GPT2Model(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  wte : __torch__.torch.nn.modules.sparse.___torch_mangle_1221.Embedding
  wpe : __torch__.torch.nn.modules.sparse.___torch_mangle_1222.Embedding
  drop : __torch__.torch.nn.modules.dropout.___torch_mangle_1223.Dropout
  h : __torch__.torch.nn.modules.container.___torch_mangle_1245.ModuleList
  ln_f : __torch__.torch.nn.modules.normalization.___torch_mangle_1246.LayerNorm
  def forward(self: __torch__.transformers.models.gpt2.modeling_gpt2.GPT2Model,
    input_ids: Tensor) -> Tuple[Tensor]:
    ln_f = self.ln_f
    h = self.h
    _1 = getattr(h, "1")
    h0 = self.h
    _0 = getattr(h0, "0")
    drop = self.drop
    wpe = self.wpe
    wte = self.wte
    _2 = ops.prim.NumToTensor(torch.size(input_ids, 1))
    _3 = int(_2)
    input_ids0 = torch.view(input_ids, [-1, int(_2)])
    _4 = (wte).forward(input_ids0, )
    _5 = ops.prim.NumToTensor(torch.size(_4, 1))
    _6 = torch.arange(annotate(number, _5), dtype=None, layout=None, device=torch.device("cpu"), pin_memory=False)
    position_ids = torch.add(_6, CONSTANTS.c0)
    input = torch.unsqueeze(position_ids, 0)
    position_embeds = torch.to((wpe).forward(input, ), dtype=6, layout=0, device=torch.device("cpu"))
    input0 = torch.add(_4, position_embeds)
    q_length = ops.prim.NumToTensor(torch.size(_4, 1))
    _7 = int(q_length)
    _8 = int(q_length)
    _9 = annotate(number, q_length)
    _10 = annotate(number, q_length)
    _11 = torch.slice(input, 0, 0, 9223372036854775807)
    first_dummy_value = torch.sub(torch.slice(_11, 1, 0, 1), CONSTANTS.c1)
    position_diff = torch.diff(input, 1, -1, first_dummy_value)
    packed_sequence_mask = torch.cumsum(torch.ne(position_diff, 1), -1)
    batch_size = ops.prim.NumToTensor(torch.size(_4, 0))
    _12 = int(batch_size)
    batch_indices = torch.arange(annotate(number, batch_size), dtype=None, layout=None, device=torch.device("cpu"), pin_memory=False)
    _13 = torch.arange(_10, dtype=None, layout=None, device=torch.device("cpu"), pin_memory=False)
    q_indices = torch.add(_13, CONSTANTS.c0)
    _14 = torch.arange(_9, dtype=None, layout=None, device=torch.device("cpu"), pin_memory=False)
    kv_indices = torch.add(_14, CONSTANTS.c0)
    _15 = torch.slice(batch_indices, 0, 0, 9223372036854775807)
    _16 = torch.unsqueeze(torch.unsqueeze(_15, 1), 2)
    batch_idx = torch.unsqueeze(_16, 3)
    _17 = torch.unsqueeze(torch.unsqueeze(q_indices, 0), 1)
    _18 = torch.slice(_17, 2, 0, 9223372036854775807)
    q_idx = torch.unsqueeze(_18, 3)
    _19 = torch.unsqueeze(torch.unsqueeze(kv_indices, 0), 1)
    kv_idx = torch.slice(torch.unsqueeze(_19, 2), 3, 0, 9223372036854775807)
    result = torch.new_ones(q_idx, annotate(List[int], []), dtype=11, layout=None, device=None, pin_memory=False)
    _20 = torch.to(torch.le(kv_idx, q_idx), dtype=11, layout=0, device=torch.device("cpu"))
    result0 = torch.__and__(result, _20)
    _21 = annotate(List[Optional[Tensor]], [batch_idx, q_idx])
    _22 = torch.index(packed_sequence_mask, _21)
    _23 = annotate(List[Optional[Tensor]], [batch_idx, kv_idx])
    _24 = torch.index(packed_sequence_mask, _23)
    _25 = torch.to(torch.eq(_22, _24), dtype=11, layout=0, device=torch.device("cpu"))
    attention_mask = torch.__and__(result0, _25)
    attention_mask0 = torch.expand(attention_mask, [_12, -1, _8, _7])
    _26 = (drop).forward(input0, )
    _27 = ops.prim.NumToTensor(torch.size(_26, -1))
    _28 = int(_27)
    _29 = (_0).forward(_26, attention_mask0, )
    _30 = (_1).forward(_29, attention_mask0, )
    _31 = torch.view((ln_f).forward(_30, ), [-1, _3, _28])
    return (_31,)
class GPT2Block(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  ln_1 : __torch__.torch.nn.modules.normalization.___torch_mangle_1224.LayerNorm
  attn : __torch__.transformers.models.gpt2.modeling_gpt2.GPT2Attention
  ln_2 : __torch__.torch.nn.modules.normalization.___torch_mangle_1228.LayerNorm
  mlp : __torch__.transformers.models.gpt2.modeling_gpt2.GPT2MLP
  def forward(self: __torch__.transformers.models.gpt2.modeling_gpt2.GPT2Block,
    argument_1: Tensor,
    attention_mask: Tensor) -> Tensor:
    mlp = self.mlp
    ln_2 = self.ln_2
    attn = self.attn
    ln_1 = self.ln_1
    _30 = (attn).forward((ln_1).forward(argument_1, ), attention_mask, )
    input = torch.add(_30, argument_1)
    _31 = (mlp).forward((ln_2).forward(input, ), )
    return torch.add(input, _31)
class GPT2Attention(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  c_attn : __torch__.transformers.pytorch_utils.Conv1D
  c_proj : __torch__.transformers.pytorch_utils.___torch_mangle_1225.Conv1D
  attn_dropout : __torch__.torch.nn.modules.dropout.___torch_mangle_1226.Dropout
  resid_dropout : __torch__.torch.nn.modules.dropout.___torch_mangle_1227.Dropout
  def forward(self: __torch__.transformers.models.gpt2.modeling_gpt2.GPT2Attention,
    argument_1: Tensor,
    attention_mask: Tensor) -> Tensor:
    resid_dropout = self.resid_dropout
    c_proj = self.c_proj
    c_attn = self.c_attn
    _32 = torch.split((c_attn).forward(argument_1, ), 16, 2)
    query_states, key_states, value_states, = _32
    _33 = ops.prim.NumToTensor(torch.size(key_states, 0))
    _34 = int(_33)
    _35 = int(_33)
    _36 = ops.prim.NumToTensor(torch.size(key_states, 1))
    _37 = int(_36)
    _38 = torch.view(key_states, [_35, int(_36), -1, 8])
    key = torch.transpose(_38, 1, 2)
    _39 = torch.view(value_states, [_34, _37, -1, 8])
    value = torch.transpose(_39, 1, 2)
    _40 = ops.prim.NumToTensor(torch.size(query_states, 0))
    _41 = int(_40)
    _42 = ops.prim.NumToTensor(torch.size(query_states, 1))
    _43 = torch.view(query_states, [_41, int(_42), -1, 8])
    query = torch.transpose(_43, 1, 2)
    attn_output = torch.scaled_dot_product_attention(query, key, value, attention_mask, 0., False, scale=0.35355339059327379)
    attn_output0 = torch.contiguous(torch.transpose(attn_output, 1, 2))
    _44 = ops.prim.NumToTensor(torch.size(attn_output0, 0))
    _45 = int(_44)
    _46 = ops.prim.NumToTensor(torch.size(attn_output0, 1))
    _47 = torch.reshape(attn_output0, [_45, int(_46), -1])
    x = torch.contiguous(_47)
    _48 = (resid_dropout).forward((c_proj).forward(x, ), )
    return _48
class GPT2MLP(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  c_fc : __torch__.transformers.pytorch_utils.___torch_mangle_1229.Conv1D
  c_proj : __torch__.transformers.pytorch_utils.___torch_mangle_1230.Conv1D
  act : __torch__.transformers.activations.NewGELUActivation
  dropout : __torch__.torch.nn.modules.dropout.___torch_mangle_1231.Dropout
  def forward(self: __torch__.transformers.models.gpt2.modeling_gpt2.GPT2MLP,
    argument_1: Tensor) -> Tensor:
    dropout = self.dropout
    c_proj = self.c_proj
    act = self.act
    c_fc = self.c_fc
    _49 = (act).forward((c_fc).forward(argument_1, ), )
    _50 = (dropout).forward((c_proj).forward(_49, ), )
    return _50
