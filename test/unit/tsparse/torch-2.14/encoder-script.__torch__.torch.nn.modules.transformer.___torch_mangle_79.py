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
    src_key_padding_mask: Optional[Tensor]=None,
    is_causal: bool=False) -> Tensor:
    _0 = __torch__.torch.nn.functional._none_or_dtype
    _1 = __torch__.torch.nn.functional._canonical_mask
    _2 = __torch__.torch.backends.mha.get_fastpath_enabled
    why_not_sparsity_fast_path = "torch.backends.mha.get_fastpath_enabled() was not True"
    _3 = "input not batched; expected src.dim() of 3 but got {}"
    why_not_sparsity_fast_path0 = "self_attn._qkv_same_embed_dim was not True"
    why_not_sparsity_fast_path1 = "activation_relu_or_gelu was not True"
    why_not_sparsity_fast_path2 = "neither src_key_padding_mask nor src_mask are not supported with NestedTensor input"
    why_not_sparsity_fast_path3 = "forward pre-/hooks are attached to the module"
    _4 = "some Tensor argument\'s device is neither one of {}"
    why_not_sparsity_fast_path4 = "grad is enabled and at least one of query or the input/output projection weights or biases requires_grad"
    _5 = uninitialized(Tensor)
    src_key_padding_mask0 = _1(src_key_padding_mask, "src_key_padding_mask", _0(src_mask, ), "src_mask", ops.prim.dtype(src), True, )
    src_mask0 = _1(src_mask, "src_mask", None, "", ops.prim.dtype(src), False, )
    is_fastpath_enabled = _2()
    if torch.__not__(is_fastpath_enabled):
      why_not_sparsity_fast_path5, src_key_padding_mask1 = why_not_sparsity_fast_path, src_key_padding_mask0
    else:
      if torch.ne(torch.dim(src), 3):
        why_not_sparsity_fast_path7 = torch.format(_3, torch.dim(src))
        why_not_sparsity_fast_path6, src_key_padding_mask2 = why_not_sparsity_fast_path7, src_key_padding_mask0
      else:
        training = self.training
        if training:
          why_not_sparsity_fast_path8, src_key_padding_mask3 = "training is enabled", src_key_padding_mask0
        else:
          self_attn = self.self_attn
          _qkv_same_embed_dim = self_attn._qkv_same_embed_dim
          _6 = torch.__not__(_qkv_same_embed_dim)
          if _6:
            why_not_sparsity_fast_path9, src_key_padding_mask4 = why_not_sparsity_fast_path0, src_key_padding_mask0
          else:
            activation_relu_or_gelu = self.activation_relu_or_gelu
            _7 = bool(activation_relu_or_gelu)
            if torch.__not__(_7):
              why_not_sparsity_fast_path10, src_key_padding_mask5 = why_not_sparsity_fast_path1, src_key_padding_mask0
            else:
              if ops.prim.is_nested(src):
                _9 = torch.__isnot__(src_key_padding_mask0, None)
                if _9:
                  src_key_padding_mask8 = unchecked_cast(Tensor, src_key_padding_mask0)
                  _10, src_key_padding_mask7 = True, src_key_padding_mask8
                else:
                  _11 = torch.__isnot__(src_mask0, None)
                  _10, src_key_padding_mask7 = _11, src_key_padding_mask0
                _8, src_key_padding_mask6 = _10, src_key_padding_mask7
              else:
                _8, src_key_padding_mask6 = False, src_key_padding_mask0
              if _8:
                why_not_sparsity_fast_path11 = why_not_sparsity_fast_path2
              else:
                self_attn0 = self.self_attn
                num_heads = self_attn0.num_heads
                _12 = torch.remainder(num_heads, 2)
                if torch.eq(_12, 1):
                  why_not_sparsity_fast_path12 = "num_head is odd"
                else:
                  _13 = torch.is_autocast_enabled()
                  if _13:
                    why_not_sparsity_fast_path13 = "autocast is enabled"
                  else:
                    _14 = annotate(List[int], [])
                    _15 = annotate(Dict[str, Tensor], {})
                    _16 = torch.len(_15)
                    _17 = annotate(Dict[str, Tensor], {})
                    _18 = torch.add(_16, torch.len(_17))
                    _19 = torch.append(_14, _18)
                    _20 = annotate(Dict[str, Tensor], {})
                    _21 = torch.len(_20)
                    _22 = annotate(Dict[str, Tensor], {})
                    _23 = torch.add(_21, torch.len(_22))
                    _24 = torch.append(_14, _23)
                    _25 = annotate(Dict[str, Tensor], {})
                    _26 = torch.len(_25)
                    _27 = annotate(Dict[str, Tensor], {})
                    _28 = torch.add(_26, torch.len(_27))
                    _29 = torch.append(_14, _28)
                    _30 = annotate(Dict[str, Tensor], {})
                    _31 = torch.len(_30)
                    _32 = annotate(Dict[str, Tensor], {})
                    _33 = torch.add(_31, torch.len(_32))
                    _34 = torch.append(_14, _33)
                    _35 = annotate(Dict[str, Tensor], {})
                    _36 = torch.len(_35)
                    _37 = annotate(Dict[str, Tensor], {})
                    _38 = torch.add(_36, torch.len(_37))
                    _39 = torch.append(_14, _38)
                    _40 = annotate(Dict[str, Tensor], {})
                    _41 = torch.len(_40)
                    _42 = annotate(Dict[str, Tensor], {})
                    _43 = torch.add(_41, torch.len(_42))
                    _44 = torch.append(_14, _43)
                    _45 = annotate(Dict[str, Tensor], {})
                    _46 = torch.len(_45)
                    _47 = annotate(Dict[str, Tensor], {})
                    _48 = torch.add(_46, torch.len(_47))
                    _49 = torch.append(_14, _48)
                    _50 = annotate(Dict[str, Tensor], {})
                    _51 = torch.len(_50)
                    _52 = annotate(Dict[str, Tensor], {})
                    _53 = torch.add(_51, torch.len(_52))
                    _54 = torch.append(_14, _53)
                    _55 = annotate(Dict[str, Tensor], {})
                    _56 = torch.len(_55)
                    _57 = annotate(Dict[str, Tensor], {})
                    _58 = torch.add(_56, torch.len(_57))
                    _59 = torch.append(_14, _58)
                    _60 = annotate(Dict[str, Tensor], {})
                    _61 = torch.len(_60)
                    _62 = annotate(Dict[str, Tensor], {})
                    _63 = torch.add(_61, torch.len(_62))
                    _64 = torch.append(_14, _63)
                    if torch.any(_14):
                      why_not_sparsity_fast_path14 = why_not_sparsity_fast_path3
                    else:
                      why_not_sparsity_fast_path14 = ""
                    why_not_sparsity_fast_path13 = why_not_sparsity_fast_path14
                  why_not_sparsity_fast_path12 = why_not_sparsity_fast_path13
                why_not_sparsity_fast_path11 = why_not_sparsity_fast_path12
              why_not_sparsity_fast_path10, src_key_padding_mask5 = why_not_sparsity_fast_path11, src_key_padding_mask6
            why_not_sparsity_fast_path9, src_key_padding_mask4 = why_not_sparsity_fast_path10, src_key_padding_mask5
          why_not_sparsity_fast_path8, src_key_padding_mask3 = why_not_sparsity_fast_path9, src_key_padding_mask4
        why_not_sparsity_fast_path6, src_key_padding_mask2 = why_not_sparsity_fast_path8, src_key_padding_mask3
      why_not_sparsity_fast_path5, src_key_padding_mask1 = why_not_sparsity_fast_path6, src_key_padding_mask2
    _65 = torch.len(why_not_sparsity_fast_path5)
    if torch.__not__(torch.gt(_65, 0)):
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
      _supported_device_type = ["cpu", "cuda", "xpu", "privateuseone"]
      _68 = annotate(List[bool], [])
      _69 = ops.prim.type(ops.prim.device(src))
      _70 = torch.__contains__(_supported_device_type, _69)
      _71 = torch.append(_68, _70)
      _72 = ops.prim.type(ops.prim.device(in_proj_weight))
      _73 = torch.__contains__(_supported_device_type, _72)
      _74 = torch.append(_68, _73)
      _75 = ops.prim.type(ops.prim.device(in_proj_bias))
      _76 = torch.__contains__(_supported_device_type, _75)
      _77 = torch.append(_68, _76)
      _78 = ops.prim.type(ops.prim.device(weight))
      _79 = torch.__contains__(_supported_device_type, _78)
      _80 = torch.append(_68, _79)
      _81 = ops.prim.type(ops.prim.device(bias))
      _82 = torch.__contains__(_supported_device_type, _81)
      _83 = torch.append(_68, _82)
      _84 = ops.prim.type(ops.prim.device(weight0))
      _85 = torch.__contains__(_supported_device_type, _84)
      _86 = torch.append(_68, _85)
      _87 = ops.prim.type(ops.prim.device(bias0))
      _88 = torch.__contains__(_supported_device_type, _87)
      _89 = torch.append(_68, _88)
      _90 = ops.prim.type(ops.prim.device(weight1))
      _91 = torch.__contains__(_supported_device_type, _90)
      _92 = torch.append(_68, _91)
      _93 = ops.prim.type(ops.prim.device(bias1))
      _94 = torch.__contains__(_supported_device_type, _93)
      _95 = torch.append(_68, _94)
      _96 = ops.prim.type(ops.prim.device(weight2))
      _97 = torch.__contains__(_supported_device_type, _96)
      _98 = torch.append(_68, _97)
      _99 = ops.prim.type(ops.prim.device(bias2))
      _100 = torch.__contains__(_supported_device_type, _99)
      _101 = torch.append(_68, _100)
      _102 = ops.prim.type(ops.prim.device(weight3))
      _103 = torch.__contains__(_supported_device_type, _102)
      _104 = torch.append(_68, _103)
      _105 = ops.prim.type(ops.prim.device(bias3))
      _106 = torch.__contains__(_supported_device_type, _105)
      _107 = torch.append(_68, _106)
      if torch.__not__(torch.all(_68)):
        why_not_sparsity_fast_path16 = torch.format(_4, _supported_device_type)
        why_not_sparsity_fast_path15 = why_not_sparsity_fast_path16
      else:
        if torch.is_grad_enabled():
          _109 = annotate(List[bool], [])
          _110 = torch.append(_109, ops.prim.requires_grad(src))
          _111 = ops.prim.requires_grad(in_proj_weight)
          _112 = torch.append(_109, _111)
          _113 = ops.prim.requires_grad(in_proj_bias)
          _114 = torch.append(_109, _113)
          _115 = ops.prim.requires_grad(weight)
          _116 = torch.append(_109, _115)
          _117 = torch.append(_109, ops.prim.requires_grad(bias))
          _118 = ops.prim.requires_grad(weight0)
          _119 = torch.append(_109, _118)
          _120 = torch.append(_109, ops.prim.requires_grad(bias0))
          _121 = ops.prim.requires_grad(weight1)
          _122 = torch.append(_109, _121)
          _123 = torch.append(_109, ops.prim.requires_grad(bias1))
          _124 = ops.prim.requires_grad(weight2)
          _125 = torch.append(_109, _124)
          _126 = torch.append(_109, ops.prim.requires_grad(bias2))
          _127 = ops.prim.requires_grad(weight3)
          _128 = torch.append(_109, _127)
          _129 = torch.append(_109, ops.prim.requires_grad(bias3))
          _108 = torch.any(_109)
        else:
          _108 = False
        if _108:
          why_not_sparsity_fast_path17 = why_not_sparsity_fast_path4
        else:
          why_not_sparsity_fast_path17 = why_not_sparsity_fast_path5
        why_not_sparsity_fast_path15 = why_not_sparsity_fast_path17
      _130 = torch.len(why_not_sparsity_fast_path15)
      if torch.__not__(torch.gt(_130, 0)):
        self_attn5 = self.self_attn
        _133 = (self_attn5).merge_masks(src_mask0, src_key_padding_mask1, src, )
        merged_mask, mask_type, = _133
        self_attn6 = self.self_attn
        embed_dim = self_attn6.embed_dim
        self_attn7 = self.self_attn
        num_heads0 = self_attn7.num_heads
        self_attn8 = self.self_attn
        in_proj_weight0 = self_attn8.in_proj_weight
        self_attn9 = self.self_attn
        in_proj_bias0 = self_attn9.in_proj_bias
        self_attn10 = self.self_attn
        out_proj1 = self_attn10.out_proj
        weight4 = out_proj1.weight
        self_attn11 = self.self_attn
        out_proj2 = self_attn11.out_proj
        bias4 = out_proj2.bias
        activation_relu_or_gelu0 = self.activation_relu_or_gelu
        _134 = torch.eq(activation_relu_or_gelu0, 2)
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
        _135 = torch._transformer_encoder_layer_fwd(src, embed_dim, num_heads0, in_proj_weight0, in_proj_bias0, weight4, bias4, _134, False, 1.0000000000000001e-05, weight5, bias5, weight6, bias6, weight7, bias7, weight8, bias8, merged_mask, mask_type)
        _131, _132 = True, _135
      else:
        _131, _132 = False, _5
      _66, _67 = _131, _132
    else:
      _66, _67 = False, _5
    if _66:
      _136 = _67
    else:
      norm13 = self.norm1
      _137 = (self)._sa_block(src, src_mask0, src_key_padding_mask1, is_causal, )
      x = (norm13).forward(torch.add(src, _137), )
      norm23 = self.norm2
      _138 = torch.add(x, (self)._ff_block(x, ))
      _136 = (norm23).forward(_138, )
    return _136
  def _sa_block(self: __torch__.torch.nn.modules.transformer.___torch_mangle_79.TransformerEncoderLayer,
    x: Tensor,
    attn_mask: Optional[Tensor],
    key_padding_mask: Optional[Tensor],
    is_causal: bool=False) -> Tensor:
    self_attn = self.self_attn
    _139 = (self_attn).forward(x, x, x, key_padding_mask, False, attn_mask, True, is_causal, )
    x0 = (_139)[0]
    dropout1 = self.dropout1
    return (dropout1).forward(x0, )
  def _ff_block(self: __torch__.torch.nn.modules.transformer.___torch_mangle_79.TransformerEncoderLayer,
    x: Tensor) -> Tensor:
    linear2 = self.linear2
    dropout = self.dropout
    linear1 = self.linear1
    _140 = __torch__.torch.nn.functional.relu((linear1).forward(x, ), False, )
    x1 = (linear2).forward((dropout).forward(_140, ), )
    dropout2 = self.dropout2
    return (dropout2).forward(x1, )
