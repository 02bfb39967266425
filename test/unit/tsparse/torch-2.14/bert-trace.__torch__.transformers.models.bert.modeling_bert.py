class BertModel(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  embeddings : __torch__.transformers.models.bert.modeling_bert.BertEmbeddings
  encoder : __torch__.transformers.models.bert.modeling_bert.BertEncoder
  pooler : __torch__.transformers.models.bert.modeling_bert.BertPooler
  def forward(self: __torch__.transformers.models.bert.modeling_bert.BertModel,
    input_ids: Tensor) -> Tuple[Tensor, Tensor]:
    pooler = self.pooler
    encoder = self.encoder
    embeddings = self.embeddings
    _0 = (embeddings).forward(input_ids, )
    q_length = ops.prim.NumToTensor(torch.size(_0, 1))
    _1 = int(q_length)
    _2 = int(q_length)
    _3 = annotate(number, q_length)
    batch_size = ops.prim.NumToTensor(torch.size(_0, 0))
    _4 = int(batch_size)
    _5 = torch.arange(_3, dtype=None, layout=None, device=torch.device("cpu"), pin_memory=False)
    q_indices = torch.add(_5, CONSTANTS.c0)
    _6 = torch.unsqueeze(torch.unsqueeze(q_indices, 0), 1)
    _7 = torch.slice(_6, 2, 0, 9223372036854775807)
    q_idx = torch.unsqueeze(_7, 3)
    attention_mask = torch.ge(q_idx, 0)
    attention_mask0 = torch.expand(attention_mask, [_4, -1, _2, _1])
    _8 = (encoder).forward(_0, attention_mask0, )
    return (_8, (pooler).forward(_8, ))
class BertEmbeddings(Module):
  __parameters__ = []
  __buffers__ = ["position_ids", "token_type_ids", ]
  position_ids : Tensor
  token_type_ids : Tensor
  training : bool
  _is_full_backward_hook : Optional[bool]
  word_embeddings : __torch__.torch.nn.modules.sparse.Embedding
  position_embeddings : __torch__.torch.nn.modules.sparse.___torch_mangle_1089.Embedding
  token_type_embeddings : __torch__.torch.nn.modules.sparse.___torch_mangle_1090.Embedding
  LayerNorm : __torch__.torch.nn.modules.normalization.___torch_mangle_1091.LayerNorm
  dropout : __torch__.torch.nn.modules.dropout.___torch_mangle_1092.Dropout
  def forward(self: __torch__.transformers.models.bert.modeling_bert.BertEmbeddings,
    input_ids: Tensor) -> Tensor:
    dropout = self.dropout
    LayerNorm = self.LayerNorm
    position_embeddings = self.position_embeddings
    token_type_embeddings = self.token_type_embeddings
    word_embeddings = self.word_embeddings
    token_type_ids = self.token_type_ids
    position_ids = self.position_ids
    batch_size = ops.prim.NumToTensor(torch.size(input_ids, 0))
    _9 = int(batch_size)
    seq_length = ops.prim.NumToTensor(torch.size(input_ids, 1))
    _10 = int(seq_length)
    _11 = int(torch.add(seq_length, CONSTANTS.c0))
    _12 = torch.slice(position_ids, 0, 0, 9223372036854775807)
    position_ids0 = torch.slice(_12, 1, 0, _11)
    _13 = ops.prim.NumToTensor(torch.size(position_ids0, 0))
    buffered_token_type_ids = torch.expand(token_type_ids, [int(_13), -1])
    buffered_token_type_ids0 = torch.gather(buffered_token_type_ids, 1, position_ids0)
    input = torch.expand(buffered_token_type_ids0, [_9, _10])
    _14 = (word_embeddings).forward(input_ids, )
    _15 = (token_type_embeddings).forward(input, )
    embeddings = torch.add(_14, _15)
    _16 = (position_embeddings).forward(position_ids0, )
    input0 = torch.add(embeddings, _16)
    _17 = (dropout).forward((LayerNorm).forward(input0, ), )
    return _17
class BertEncoder(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  layer : __torch__.torch.nn.modules.container.___torch_mangle_1122.ModuleList
  def forward(self: __torch__.transformers.models.bert.modeling_bert.BertEncoder,
    argument_1: Tensor,
    attention_mask: Tensor) -> Tensor:
    layer = self.layer
    _1 = getattr(layer, "1")
    layer0 = self.layer
    _0 = getattr(layer0, "0")
    _18 = (_0).forward(argument_1, attention_mask, )
    return (_1).forward(_18, attention_mask, )
class BertLayer(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  attention : __torch__.transformers.models.bert.modeling_bert.BertAttention
  intermediate : __torch__.transformers.models.bert.modeling_bert.BertIntermediate
  output : __torch__.transformers.models.bert.modeling_bert.BertOutput
  def forward(self: __torch__.transformers.models.bert.modeling_bert.BertLayer,
    argument_1: Tensor,
    attention_mask: Tensor) -> Tensor:
    output = self.output
    intermediate = self.intermediate
    attention = self.attention
    _19 = (attention).forward(argument_1, attention_mask, )
    _20 = (output).forward((intermediate).forward(_19, ), _19, )
    return _20
class BertAttention(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  self : __torch__.transformers.models.bert.modeling_bert.BertSelfAttention
  output : __torch__.transformers.models.bert.modeling_bert.BertSelfOutput
  def forward(self: __torch__.transformers.models.bert.modeling_bert.BertAttention,
    argument_1: Tensor,
    attention_mask: Tensor) -> Tensor:
    output = self.output
    self0 = self.self
    _21 = (self0).forward(argument_1, attention_mask, )
    return (output).forward(_21, argument_1, )
class BertSelfAttention(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  query : __torch__.torch.nn.modules.linear.___torch_mangle_1093.Linear
  key : __torch__.torch.nn.modules.linear.___torch_mangle_1094.Linear
  value : __torch__.torch.nn.modules.linear.___torch_mangle_1095.Linear
  dropout : __torch__.torch.nn.modules.dropout.___torch_mangle_1096.Dropout
  def forward(self: __torch__.transformers.models.bert.modeling_bert.BertSelfAttention,
    argument_1: Tensor,
    attention_mask: Tensor) -> Tensor:
    value = self.value
    key = self.key
    query = self.query
    _22 = ops.prim.NumToTensor(torch.size(argument_1, 0))
    _23 = int(_22)
    _24 = int(_22)
    _25 = int(_22)
    _26 = int(_22)
    _27 = ops.prim.NumToTensor(torch.size(argument_1, 1))
    _28 = int(_27)
    _29 = int(_27)
    _30 = int(_27)
    _31 = int(_27)
    _32 = torch.view((query).forward(argument_1, ), [_26, _31, -1, 8])
    query0 = torch.transpose(_32, 1, 2)
    _33 = torch.view((key).forward(argument_1, ), [_25, _30, -1, 8])
    key0 = torch.transpose(_33, 1, 2)
    _34 = torch.view((value).forward(argument_1, ), [_24, _29, -1, 8])
    value0 = torch.transpose(_34, 1, 2)
    attn_output = torch.scaled_dot_product_attention(query0, key0, value0, attention_mask, 0., False, scale=0.35355339059327379)
    attn_output0 = torch.contiguous(torch.transpose(attn_output, 1, 2))
    _35 = torch.reshape(attn_output0, [_23, _28, -1])
    return torch.contiguous(_35)
class BertSelfOutput(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  dense : __torch__.torch.nn.modules.linear.___torch_mangle_1097.Linear
  LayerNorm : __torch__.torch.nn.modules.normalization.___torch_mangle_1098.LayerNorm
  dropout : __torch__.torch.nn.modules.dropout.___torch_mangle_1099.Dropout
  def forward(self: __torch__.transformers.models.bert.modeling_bert.BertSelfOutput,
    argument_1: Tensor,
    argument_2: Tensor) -> Tensor:
    LayerNorm = self.LayerNorm
    dropout = self.dropout
    dense = self.dense
    _36 = (dropout).forward((dense).forward(argument_1, ), )
    input = torch.add(_36, argument_2)
    return (LayerNorm).forward(input, )
class BertIntermediate(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  dense : __torch__.torch.nn.modules.linear.___torch_mangle_1100.Linear
  intermediate_act_fn : __torch__.transformers.activations.GELUActivation
  def forward(self: __torch__.transformers.models.bert.modeling_bert.BertIntermediate,
    argument_1: Tensor) -> Tensor:
    intermediate_act_fn = self.intermediate_act_fn
    dense = self.dense
    _37 = (intermediate_act_fn).forward((dense).forward(argument_1, ), )
    return _37
class BertOutput(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  dense : __torch__.torch.nn.modules.linear.___torch_mangle_1101.Linear
  LayerNorm : __torch__.torch.nn.modules.normalization.___torch_mangle_1102.LayerNorm
  dropout : __torch__.torch.nn.modules.dropout.___torch_mangle_1103.Dropout
  def forward(self: __torch__.transformers.models.bert.modeling_bert.BertOutput,
    argument_1: Tensor,
    argument_2: Tensor) -> Tensor:
    LayerNorm = self.LayerNorm
    dropout = self.dropout
    dense = self.dense
    _38 = (dropout).forward((dense).forward(argument_1, ), )
    input = torch.add(_38, argument_2)
    return (LayerNorm).forward(input, )
class BertPooler(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  dense : __torch__.torch.nn.modules.linear.___torch_mangle_1123.Linear
  activation : __torch__.torch.nn.modules.activation.___torch_mangle_1124.Tanh
  def forward(self: __torch__.transformers.models.bert.modeling_bert.BertPooler,
    argument_1: Tensor) -> Tensor:
    activation = self.activation
    dense = self.dense
    _39 = torch.slice(argument_1, 0, 0, 9223372036854775807)
    input = torch.select(_39, 1, 0)
    _40 = (activation).forward((dense).forward(input, ), )
    return _40
