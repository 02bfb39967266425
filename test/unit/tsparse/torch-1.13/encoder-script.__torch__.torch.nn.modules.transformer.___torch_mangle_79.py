class TransformerEncoderLayer(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  activation_relu_or_gelu : int
  self_attn : __torch__.torch.nn.modules.activation.___torch_mangle_44.MultiheadAttention
  linear1 : __torch__.torch.nn.modules.linear.___torch_mangle_76.Linear
  dropout : __torch__.torch.nn.modules.dropout.___torch_mangle_77.Dropout
  linear2 : __torch__.torch.nn.modules.linear.___torch_mangle_78.Linear
  norm1 : __torch__.torch.nn.modules.normalization.___torch_mangle_41.LayerNorm
  norm2 : __torch__.torch.nn.modules.normalization.___torch_mangle_41.LayerNorm
  dropout1 : __torch__.torch.nn.modules.dropout.___torch_mangle_77.Dropout
  dropout2 : __torch__.torch.nn.modules.dropout.___torch_mangle_77.Dropout
  norm_first : Final[bool] = False
  def forward(self: __torch__.torch.nn.modules.transformer.___torch_mangle_79.TransformerEncoderLayer,
    src: Tensor,
    src_mask: Optional[Tensor]=None,
    src_key_padding_mask: Optional[Tensor]=None) -> Tensor:
    _0 = "AssertionError: only bool and floating types of key_padding_mask are supported"
    _1 = "input not batched; expected src.dim() of 3 but got {}"
    why_not_sparsity_fast_path = "self_attn._qkv_same_embed_dim was not True"
    why_not_sparsity_fast_path0 = "activation_relu_or_gelu was not True"
    why_not_sparsity_fast_path1 = "src_mask is not supported for fastpath"
    why_not_sparsity_fast_path2 = "src_key_padding_mask is not supported with NestedTensor input for fastpath"
    why_not_sparsity_fast_path3 = "some Tensor argument is neither CUDA nor CPU"
    why_not_sparsity_fast_path4 = "grad is enabled and at least one of query or the input/output projection weights or biases requires_grad"
    _2 = uninitialized(Tensor)
    _3 = torch.__isnot__(src_key_padding_mask, None)
    if _3:
      src_key_padding_mask1 = unchecked_cast(Tensor, src_key_padding_mask)
      _skpm_dtype = ops.prim.dtype(src_key_padding_mask1)
      if torch.ne(_skpm_dtype, 11):
        _5 = torch.is_floating_point(src_key_padding_mask1)
        _4 = torch.__not__(_5)
      else:
        _4 = False
      if _4:
        ops.prim.RaiseException(_0)
      else:
        pass
      src_key_padding_mask0 : Optional[Tensor] = src_key_padding_mask1
    else:
      src_key_padding_mask0 = src_key_padding_mask
    _6 = torch.__not__(torch.eq(torch.dim(src), 3))
    if _6:
      why_not_sparsity_fast_path5, src_mask0, src_key_padding_mask2 = torch.format(_1, torch.dim(src)), src_mask, src_key_padding_mask0
    else:
      training = self.training
      if training:
        why_not_sparsity_fast_path6, src_mask1, src_key_padding_mask3 = "training is enabled", src_mask, src_key_padding_mask0
      else:
        self_attn = self.self_attn
        _qkv_same_embed_dim = self_attn._qkv_same_embed_dim
        _7 = torch.__not__(_qkv_same_embed_dim)
        if _7:
          why_not_sparsity_fast_path7, src_mask2, src_key_padding_mask4 = why_not_sparsity_fast_path, src_mask, src_key_padding_mask0
        else:
          activation_relu_or_gelu = self.activation_relu_or_gelu
          _8 = torch.__not__(bool(activation_relu_or_gelu))
          if _8:
            why_not_sparsity_fast_path8, src_mask3, src_key_padding_mask5 = why_not_sparsity_fast_path0, src_mask, src_key_padding_mask0
          else:
            _9 = torch.__isnot__(src_mask, None)
            if _9:
              src_mask5 = unchecked_cast(Tensor, src_mask)
              why_not_sparsity_fast_path9, src_mask4, src_key_padding_mask6 = why_not_sparsity_fast_path1, src_mask5, src_key_padding_mask0
            else:
              if ops.prim.is_nested(src):
                _11 = torch.__isnot__(src_key_padding_mask0, None)
                _10 = _11
              else:
                _10 = False
              if _10:
                src_key_padding_mask8 = unchecked_cast(Tensor, src_key_padding_mask0)
                why_not_sparsity_fast_path10, src_key_padding_mask7 = why_not_sparsity_fast_path2, src_key_padding_mask8
              else:
                self_attn0 = self.self_attn
                num_heads = self_attn0.num_heads
                _12 = torch.remainder(num_heads, 2)
                if torch.eq(_12, 1):
                  why_not_sparsity_fast_path11 = "num_head is odd"
                else:
                  _13 = torch.is_autocast_enabled()
                  if _13:
                    why_not_sparsity_fast_path12 = "autocast is enabled"
                  else:
                    why_not_sparsity_fast_path12 = ""
                  why_not_sparsity_fast_path11 = why_not_sparsity_fast_path12
                why_not_sparsity_fast_path10, src_key_padding_mask7 = why_not_sparsity_fast_path11, src_key_padding_mask0
              why_not_sparsity_fast_path9, src_mask4, src_key_padding_mask6 = why_not_sparsity_fast_path10, src_mask, src_key_padding_mask7
            why_not_sparsity_fast_path8, src_mask3, src_key_padding_mask5 = why_not_sparsity_fast_path9, src_mask4, src_key_padding_mask6
          why_not_sparsity_fast_path7, src_mask2, src_key_padding_mask4 = why_not_sparsity_fast_path8, src_mask3, src_key_padding_mask5
        why_not_sparsity_fast_path6, src_mask1, src_key_padding_mask3 = why_not_sparsity_fast_path7, src_mask2, src_key_padding_mask4
      why_not_sparsity_fast_path5, src_mask0, src_key_padding_mask2 = why_not_sparsity_fast_path6, src_mask1, src_key_padding_mask3
    _14 = torch.len(why_not_sparsity_fast_path5)
    if torch.__not__(torch.gt(_14, 0)):
      self_attn1 = self.self_attn
      in_proj_weight = self_attn1.in_proj_weight
      self_attn2 = self.self_attn
      in_proj_bias = self_attn2.in_proj_bias
      self_attn3 = self.self_attn
      out_proj = self_attn3.out_proj
      weight = out_proj.weight
      self_attn4 = self.self_attn
      out_proj0 = self_attn4.out_proj
      bias = out_proj0.bias
      norm1 = self.norm1
      weight0 = norm1.weight
      norm10 = self.norm1
      bias0 = norm10.bias
      norm2 = self.norm2
      weight1 = norm2.weight
      norm20 = self.norm2
      bias1 = norm20.bias
      linear1 = self.linear1
      weight2 = linear1.weight
      linear10 = self.linear1
      bias2 = linear10.bias
      linear2 = self.linear2
      weight3 = linear2.weight
      linear20 = self.linear2
      bias3 = linear20.bias
      _17 = annotate(List[bool], [])
      if ops.prim.is_cuda(src):
        _18 = True
      else:
        _19 = str(ops.prim.device(src))
        _20 = torch.find(_19, "cpu", 0, torch.len(_19))
        _18 = torch.ne(_20, -1)
      _21 = torch.append(_17, _18)
      if ops.prim.is_cuda(in_proj_weight):
        _22 = True
      else:
        _23 = str(ops.prim.device(in_proj_weight))
        _24 = torch.find(_23, "cpu", 0, torch.len(_23))
        _22 = torch.ne(_24, -1)
      _25 = torch.append(_17, _22)
      if ops.prim.is_cuda(in_proj_bias):
        _26 = True
      else:
        _27 = str(ops.prim.device(in_proj_bias))
        _28 = torch.find(_27, "cpu", 0, torch.len(_27))
        _26 = torch.ne(_28, -1)
      _29 = torch.append(_17, _26)
      if ops.prim.is_cuda(weight):
        _30 = True
      else:
        _31 = str(ops.prim.device(weight))
        _32 = torch.find(_31, "cpu", 0, torch.len(_31))
        _30 = torch.ne(_32, -1)
      _33 = torch.append(_17, _30)
      if ops.prim.is_cuda(bias):
        _34 = True
      else:
        _35 = str(ops.prim.device(bias))
        _36 = torch.find(_35, "cpu", 0, torch.len(_35))
        _34 = torch.ne(_36, -1)
      _37 = torch.append(_17, _34)
      if ops.prim.is_cuda(weight0):
        _38 = True
      else:
        _39 = str(ops.prim.device(weight0))
        _40 = torch.find(_39, "cpu", 0, torch.len(_39))
        _38 = torch.ne(_40, -1)
      _41 = torch.append(_17, _38)
      if ops.prim.is_cuda(bias0):
        _42 = True
      else:
        _43 = str(ops.prim.device(bias0))
        _44 = torch.find(_43, "cpu", 0, torch.len(_43))
        _42 = torch.ne(_44, -1)
      _45 = torch.append(_17, _42)
      if ops.prim.is_cuda(weight1):
        _46 = True
      else:
        _47 = str(ops.prim.device(weight1))
        _48 = torch.find(_47, "cpu", 0, torch.len(_47))
        _46 = torch.ne(_48, -1)
      _49 = torch.append(_17, _46)
      if ops.prim.is_cuda(bias1):
        _50 = True
      else:
        _51 = str(ops.prim.device(bias1))
        _52 = torch.find(_51, "cpu", 0, torch.len(_51))
        _50 = torch.ne(_52, -1)
      _53 = torch.append(_17, _50)
      if ops.prim.is_cuda(weight2):
        _54 = True
      else:
        _55 = str(ops.prim.device(weight2))
        _56 = torch.find(_55, "cpu", 0, torch.len(_55))
        _54 = torch.ne(_56, -1)
      _57 = torch.append(_17, _54)
      if ops.prim.is_cuda(bias2):
        _58 = True
      else:
        _59 = str(ops.prim.device(bias2))
        _60 = torch.find(_59, "cpu", 0, torch.len(_59))
        _58 = torch.ne(_60, -1)
      _61 = torch.append(_17, _58)
      if ops.prim.is_cuda(weight3):
        _62 = True
      else:
        _63 = str(ops.prim.device(weight3))
        _64 = torch.find(_63, "cpu", 0, torch.len(_63))
        _62 = torch.ne(_64, -1)
      _65 = torch.append(_17, _62)
      if ops.prim.is_cuda(bias3):
        _66 = True
      else:
        _67 = str(ops.prim.device(bias3))
        _68 = torch.find(_67, "cpu", 0, torch.len(_67))
        _66 = torch.ne(_68, -1)
      _69 = torch.append(_17, _66)
      if torch.__not__(torch.all(_17)):
        why_not_sparsity_fast_path13 = why_not_sparsity_fast_path3
      else:
        if torch.is_grad_enabled():
          _71 = annotate(List[bool], [])
          _72 = torch.append(_71, ops.prim.requires_grad(src))
          _73 = ops.prim.requires_grad(in_proj_weight)
          _74 = torch.append(_71, _73)
          _75 = ops.prim.requires_grad(in_proj_bias)
          _76 = torch.append(_71, _75)
          _77 = ops.prim.requires_grad(weight)
          _78 = torch.append(_71, _77)
          _79 = torch.append(_71, ops.prim.requires_grad(bias))
          _80 = ops.prim.requires_grad(weight0)
          _81 = torch.append(_71, _80)
          _82 = torch.append(_71, ops.prim.requires_grad(bias0))
          _83 = ops.prim.requires_grad(weight1)
          _84 = torch.append(_71, _83)
          _85 = torch.append(_71, ops.prim.requires_grad(bias1))
          _86 = ops.prim.requires_grad(weight2)
          _87 = torch.append(_71, _86)
          _88 = torch.append(_71, ops.prim.requires_grad(bias2))
          _89 = ops.prim.requires_grad(weight3)
          _90 = torch.append(_71, _89)
          _91 = torch.append(_71, ops.prim.requires_grad(bias3))
          _70 = torch.any(_71)
        else:
          _70 = False
        if _70:
          why_not_sparsity_fast_path14 = why_not_sparsity_fast_path4
        else:
          why_not_sparsity_fast_path14 = why_not_sparsity_fast_path5
        why_not_sparsity_fast_path13 = why_not_sparsity_fast_path14
      _92 = torch.len(why_not_sparsity_fast_path13)
      if torch.__not__(torch.gt(_92, 0)):
        self_attn5 = self.self_attn
        embed_dim = self_attn5.embed_dim
        self_attn6 = self.self_attn
        num_heads0 = self_attn6.num_heads
        self_attn7 = self.self_attn
        in_proj_weight0 = self_attn7.in_proj_weight
        self_attn8 = self.self_attn
        in_proj_bias0 = self_attn8.in_proj_bias
        self_attn9 = self.self_attn
        out_proj1 = self_attn9.out_proj
        weight4 = out_proj1.weight
        self_attn10 = self.self_attn
        out_proj2 = self_attn10.out_proj
        bias4 = out_proj2.bias
        activation_relu_or_gelu0 = self.activation_relu_or_gelu
        _95 = torch.eq(activation_relu_or_gelu0, 2)
        norm11 = self.norm1
        weight5 = norm11.weight
        norm12 = self.norm1
        bias5 = norm12.bias
        norm21 = self.norm2
        weight6 = norm21.weight
        norm22 = self.norm2
        bias6 = norm22.bias
        linear11 = self.linear1
        weight7 = linear11.weight
        linear12 = self.linear1
        bias7 = linear12.bias
        linear21 = self.linear2
        weight8 = linear21.weight
        linear22 = self.linear2
        bias8 = linear22.bias
        _96 = torch.__isnot__(src_mask0, None)
        if _96:
          src_mask9 = unchecked_cast(Tensor, src_mask0)
          src_mask8, _97 = src_mask9, src_mask9
        else:
          src_mask8, _97 = src_mask0, src_key_padding_mask2
        _98 = torch.__isnot__(src_key_padding_mask2, None)
        if _98:
          src_key_padding_mask12 = unchecked_cast(Tensor, src_key_padding_mask2)
          _99, src_mask10, src_key_padding_mask11 = 1, src_mask8, src_key_padding_mask12
        else:
          _100 = torch.__isnot__(src_mask8, None)
          if _100:
            src_mask12 = unchecked_cast(Tensor, src_mask8)
            _101, src_mask11 = 0, src_mask12
          else:
            _101, src_mask11 = None, src_mask8
          _99, src_mask10, src_key_padding_mask11 = _101, src_mask11, src_key_padding_mask2
        _102 = torch._transformer_encoder_layer_fwd(src, embed_dim, num_heads0, in_proj_weight0, in_proj_bias0, weight4, bias4, _95, False, 1.0000000000000001e-05, weight5, bias5, weight6, bias6, weight7, bias7, weight8, bias8, _97, _99)
        _93, _94, src_mask7, src_key_padding_mask10 = True, _102, src_mask10, src_key_padding_mask11
      else:
        _93, _94, src_mask7, src_key_padding_mask10 = False, _2, src_mask0, src_key_padding_mask2
      _15, _16, src_mask6, src_key_padding_mask9 = _93, _94, src_mask7, src_key_padding_mask10
    else:
      _15, _16, src_mask6, src_key_padding_mask9 = False, _2, src_mask0, src_key_padding_mask2
    if _15:
      _103 = _16
    else:
      norm13 = self.norm1
      _104 = (self)._sa_block(src, src_mask6, src_key_padding_mask9, )
      x = (norm13).forward(torch.add(src, _104), )
      norm23 = self.norm2
      _105 = torch.add(x, (self)._ff_block(x, ))
      _103 = (norm23).forward(_105, )
    return _103
  def _sa_block(self: __torch__.torch.nn.modules.transformer.___torch_mangle_79.TransformerEncoderLayer,
    x: Tensor,
    attn_mask: Optional[Tensor],
    key_padding_mask: Optional[Tensor]) -> Tensor:
    self_attn = self.self_attn
    _106 = (self_attn).forward(x, x, x, key_padding_mask, False, attn_mask, True, )
    x0 = (_106)[0]
    dropout1 = self.dropout1
    return (dropout1).forward(x0, )
  def _ff_block(self: __torch__.torch.nn.modules.transformer.___torch_mangle_79.TransformerEncoderLayer,
    x: Tensor) -> Tensor:
    linear2 = self.linear2
    dropout = self.dropout
    linear1 = self.linear1
    _107 = __torch__.torch.nn.functional.relu((linear1).forward(x, ), False, )
    x1 = (linear2).forward((dropout).forward(_107, ), )
    dropout2 = self.dropout2
    return (dropout2).forward(x1, )
