def _none_or_dtype(input: Optional[Tensor]) -> Optional[int]:
  if torch.__is__(input, None):
    _0 : Optional[int] = None
  else:
    input0 = unchecked_cast(Tensor, input)
    input1 = unchecked_cast(Tensor, input0)
    _0 = ops.prim.dtype(input1)
  return _0
def _canonical_mask(mask: Optional[Tensor],
    mask_name: str,
    other_type: Optional[int],
    other_name: str,
    target_type: int,
    check_other: bool=True) -> Optional[Tensor]:
  _1 = "only bool and floating types of {} are supported"
  _2 = "Support for mismatched {} and {} is deprecated. Use same type for both instead."
  if torch.__isnot__(mask, None):
    mask1 = unchecked_cast(Tensor, mask)
    _mask_dtype = ops.prim.dtype(mask1)
    _mask_is_float = torch.is_floating_point(mask1)
    if torch.ne(_mask_dtype, 11):
      _3 = torch.__not__(_mask_is_float)
    else:
      _3 = False
    if _3:
      _4 = torch.add("AssertionError: ", torch.format(_1, mask_name))
      ops.prim.RaiseException(_4)
    else:
      pass
    if check_other:
      _5 = torch.__isnot__(other_type, None)
    else:
      _5 = False
    if _5:
      other_type0 = unchecked_cast(int, other_type)
      _6 = torch.ne(_mask_dtype, other_type0)
      if _6:
        _7 = torch.format(_2, mask_name, other_name)
        torch.warn(_7)
      else:
        pass
    else:
      pass
    if torch.__not__(_mask_is_float):
      _8 = torch.zeros_like(mask1, dtype=target_type)
      mask3 = torch.masked_fill_(_8, mask1, -inf)
      mask2 = mask3
    else:
      mask2 = mask1
    mask0 : Optional[Tensor] = mask2
  else:
    mask0 = mask
  return mask0
def multi_head_attention_forward(query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Optional[Tensor],
    in_proj_bias: Optional[Tensor],
    bias_k: Optional[Tensor],
    bias_v: Optional[Tensor],
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Optional[Tensor],
    training: bool=True,
    key_padding_mask: Optional[Tensor]=None,
    need_weights: bool=True,
    attn_mask: Optional[Tensor]=None,
    use_separate_proj_weight: bool=False,
    q_proj_weight: Optional[Tensor]=None,
    k_proj_weight: Optional[Tensor]=None,
    v_proj_weight: Optional[Tensor]=None,
    static_k: Optional[Tensor]=None,
    static_v: Optional[Tensor]=None,
    average_attn_weights: bool=True,
    is_causal: bool=False) -> Tuple[Tensor, Optional[Tensor]]:
  _9 = __torch__.torch.nn.functional._mha_shape_check
  _10 = __torch__.torch.nn.functional._none_or_dtype
  _11 = __torch__.torch.nn.functional._canonical_mask
  _12 = "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method `generate_square_subsequent_mask` to create this mask."
  _13 = "was expecting embedding dimension of {}, but got {}"
  _14 = "embed_dim {} not divisible by num_heads {}"
  _15 = "key\'s sequence and batch dims {} do not match value\'s {}"
  _16 = "key shape {} does not match value shape {}"
  _17 = "AssertionError: use_separate_proj_weight is False but in_proj_weight is None"
  _18 = __torch__.torch.nn.functional._in_projection_packed
  _19 = "AssertionError: use_separate_proj_weight is True but q_proj_weight is None"
  _20 = "AssertionError: use_separate_proj_weight is True but k_proj_weight is None"
  _21 = "AssertionError: use_separate_proj_weight is True but v_proj_weight is None"
  _22 = __torch__.torch.nn.functional._in_projection
  _23 = "The shape of the 2D attn_mask is {}, but should be {}."
  _24 = "The shape of the 3D attn_mask is {}, but should be {}."
  _25 = "attn_mask\'s dimension {} is not supported"
  _26 = "AssertionError: bias cannot be added to static key."
  _27 = "AssertionError: bias cannot be added to static value."
  _28 = "AssertionError: bias_k is set but bias_v is None"
  _29 = "AssertionError: bias_v is set but bias_k is None"
  _30 = "expecting static_k.size(0) of {}, but got {}"
  _31 = "expecting static_k.size(2) of {}, but got {}"
  _32 = "expecting static_v.size(0) of {}, but got {}"
  _33 = "expecting static_v.size(2) of {}, but got {}"
  _34 = "AssertionError: FIXME: is_causal not implemented for need_weights"
  _35 = uninitialized(Optional[Tensor])
  _36 = uninitialized(Optional[Tensor])
  _37 = uninitialized(Tensor)
  is_batched = _9(query, key, value, key_padding_mask, attn_mask, num_heads, )
  if torch.__not__(is_batched):
    query1 = torch.unsqueeze(query, 1)
    key1 = torch.unsqueeze(key, 1)
    value1 = torch.unsqueeze(value, 1)
    _38 = torch.__isnot__(key_padding_mask, None)
    if _38:
      key_padding_mask2 = unchecked_cast(Tensor, key_padding_mask)
      key_padding_mask3 = torch.unsqueeze(key_padding_mask2, 0)
      key_padding_mask1 : Optional[Tensor] = key_padding_mask3
    else:
      key_padding_mask1 = key_padding_mask
    query0, key0, key_padding_mask0, value0 = query1, key1, key_padding_mask1, value1
  else:
    query0, key0, key_padding_mask0, value0 = query, key, key_padding_mask, value
  tgt_len, bsz, embed_dim, = torch.size(query0)
  src_len, _39, _40, = torch.size(key0)
  key_padding_mask4 = _11(key_padding_mask0, "key_padding_mask", _10(attn_mask, ), "attn_mask", ops.prim.dtype(query0), True, )
  if is_causal:
    _41 = torch.__is__(attn_mask, None)
  else:
    _41 = False
  if _41:
    ops.prim.RaiseException(_12, "builtins.RuntimeError")
  else:
    pass
  if is_causal:
    _43 = torch.__is__(key_padding_mask4, None)
    _42 = _43
  else:
    _42 = False
  if _42:
    _44 = torch.__not__(need_weights)
  else:
    _44 = False
  if _44:
    attn_mask0, key_padding_mask5, is_causal0 = None, key_padding_mask4, is_causal
  else:
    attn_mask1 = _11(attn_mask, "attn_mask", None, "", ops.prim.dtype(query0), False, )
    _45 = torch.__isnot__(key_padding_mask4, None)
    if _45:
      key_padding_mask7 = unchecked_cast(Tensor, key_padding_mask4)
      key_padding_mask6, is_causal1 = key_padding_mask7, False
    else:
      key_padding_mask6, is_causal1 = key_padding_mask4, is_causal
    attn_mask0, key_padding_mask5, is_causal0 = attn_mask1, key_padding_mask6, is_causal1
  _46 = torch.ne(embed_dim, embed_dim_to_check)
  if _46:
    _47 = torch.format(_13, embed_dim_to_check, embed_dim)
    ops.prim.RaiseException(torch.add("AssertionError: ", _47))
  else:
    pass
  embed_dim0 = unchecked_cast(int, embed_dim)
  head_dim = torch.floordiv(embed_dim0, num_heads)
  _48 = torch.ne(torch.mul(head_dim, num_heads), embed_dim0)
  if _48:
    _49 = torch.format(_14, embed_dim0, num_heads)
    ops.prim.RaiseException(torch.add("AssertionError: ", _49))
  else:
    pass
  if use_separate_proj_weight:
    _50 = torch.slice(torch.size(key0), None, 2)
    _51 = torch.slice(torch.size(value0), None, 2)
    if torch.ne(_50, _51):
      _52 = torch.slice(torch.size(key0), None, 2)
      _53 = torch.slice(torch.size(value0), None, 2)
      _54 = torch.add("AssertionError: ", torch.format(_15, _52, _53))
      ops.prim.RaiseException(_54)
    else:
      pass
  else:
    _55 = torch.ne(torch.size(key0), torch.size(value0))
    if _55:
      _56 = torch.format(_16, torch.size(key0), torch.size(value0))
      _57 = torch.add("AssertionError: ", _56)
      ops.prim.RaiseException(_57)
    else:
      pass
  _58 = torch.__not__(use_separate_proj_weight)
  if _58:
    if torch.__is__(in_proj_weight, None):
      ops.prim.RaiseException(_17)
      in_proj_weight0 = _37
    else:
      in_proj_weight1 = unchecked_cast(Tensor, in_proj_weight)
      in_proj_weight0 = in_proj_weight1
    _59 = _18(query0, key0, value0, in_proj_weight0, in_proj_bias, )
    q0, k0, v0, = _59
    k, v, q = k0, v0, q0
  else:
    if torch.__is__(q_proj_weight, None):
      ops.prim.RaiseException(_19)
      q_proj_weight0 = _37
    else:
      q_proj_weight1 = unchecked_cast(Tensor, q_proj_weight)
      q_proj_weight0 = q_proj_weight1
    if torch.__is__(k_proj_weight, None):
      ops.prim.RaiseException(_20)
      k_proj_weight0 = _37
    else:
      k_proj_weight1 = unchecked_cast(Tensor, k_proj_weight)
      k_proj_weight0 = k_proj_weight1
    if torch.__is__(v_proj_weight, None):
      ops.prim.RaiseException(_21)
      v_proj_weight0 = _37
    else:
      v_proj_weight1 = unchecked_cast(Tensor, v_proj_weight)
      v_proj_weight0 = v_proj_weight1
    if torch.__is__(in_proj_bias, None):
      b_q, b_k, b_v = None, None, None
    else:
      in_proj_bias0 = unchecked_cast(Tensor, in_proj_bias)
      b_q0, b_k0, b_v0, = torch.chunk(in_proj_bias0, 3)
      b_q, b_k, b_v = b_q0, b_k0, b_v0
    _60 = _22(query0, key0, value0, q_proj_weight0, k_proj_weight0, v_proj_weight0, b_q, b_k, b_v, )
    q1, k1, v1, = _60
    k, v, q = k1, v1, q1
  if torch.__isnot__(attn_mask0, None):
    attn_mask3 = unchecked_cast(Tensor, attn_mask0)
    if torch.eq(torch.dim(attn_mask3), 2):
      correct_2d_size = (tgt_len, src_len)
      _61 = torch.ne(torch.size(attn_mask3), [tgt_len, src_len])
      if _61:
        _62 = torch.format(_23, torch.size(attn_mask3), correct_2d_size)
        ops.prim.RaiseException(_62, "builtins.RuntimeError")
      else:
        pass
      attn_mask4 = torch.unsqueeze(attn_mask3, 0)
    else:
      _63 = torch.eq(torch.dim(attn_mask3), 3)
      if _63:
        _64 = torch.mul(bsz, num_heads)
        correct_3d_size = (_64, tgt_len, src_len)
        _65 = torch.ne(torch.size(attn_mask3), [_64, tgt_len, src_len])
        if _65:
          _66 = torch.format(_24, torch.size(attn_mask3), correct_3d_size)
          ops.prim.RaiseException(_66, "builtins.RuntimeError")
        else:
          pass
      else:
        _67 = torch.format(_25, torch.dim(attn_mask3))
        ops.prim.RaiseException(_67, "builtins.RuntimeError")
      attn_mask4 = attn_mask3
    attn_mask2 : Optional[Tensor] = attn_mask4
  else:
    attn_mask2 = attn_mask0
  if torch.__isnot__(bias_k, None):
    bias_k1 = unchecked_cast(Tensor, bias_k)
    _68, bias_k0 = torch.__isnot__(bias_v, None), bias_k1
  else:
    _68, bias_k0 = False, bias_k
  if _68:
    bias_k2 = unchecked_cast(Tensor, bias_k0)
    bias_v0 = unchecked_cast(Tensor, bias_v)
    if torch.__isnot__(static_k, None):
      ops.prim.RaiseException(_26)
      static_k1 : Optional[Tensor] = _36
    else:
      static_k1 = static_k
    if torch.__isnot__(static_v, None):
      ops.prim.RaiseException(_27)
      static_v1 : Optional[Tensor] = _35
    else:
      static_v1 = static_v
    _69 = [k, torch.repeat(bias_k2, [1, bsz, 1])]
    k3 = torch.cat(_69)
    _70 = [v, torch.repeat(bias_v0, [1, bsz, 1])]
    v3 = torch.cat(_70)
    if torch.__isnot__(attn_mask2, None):
      attn_mask7 = unchecked_cast(Tensor, attn_mask2)
      attn_mask8 = __torch__.torch.nn.functional.pad(attn_mask7, [0, 1], "constant", None, )
      attn_mask6 : Optional[Tensor] = attn_mask8
    else:
      attn_mask6 = attn_mask2
    _71 = torch.__isnot__(key_padding_mask5, None)
    if _71:
      key_padding_mask10 = unchecked_cast(Tensor, key_padding_mask5)
      key_padding_mask11 = __torch__.torch.nn.functional.pad(key_padding_mask10, [0, 1], "constant", None, )
      key_padding_mask9 : Optional[Tensor] = key_padding_mask11
    else:
      key_padding_mask9 = key_padding_mask5
    static_k0, k2, static_v0, v2, attn_mask5, key_padding_mask8 = static_k1, k3, static_v1, v3, attn_mask6, key_padding_mask9
  else:
    if torch.__isnot__(bias_k0, None):
      ops.prim.RaiseException(_28)
    else:
      pass
    if torch.__isnot__(bias_v, None):
      ops.prim.RaiseException(_29)
    else:
      pass
    static_k0, k2, static_v0, v2, attn_mask5, key_padding_mask8 = static_k, k, static_v, v, attn_mask2, key_padding_mask5
  _72 = [tgt_len, torch.mul(bsz, num_heads), head_dim]
  q2 = torch.transpose(torch.view(q, _72), 0, 1)
  if torch.__is__(static_k0, None):
    _73 = [(torch.size(k2))[0], torch.mul(bsz, num_heads), head_dim]
    k5 = torch.transpose(torch.view(k2, _73), 0, 1)
    k4 = k5
  else:
    static_k2 = unchecked_cast(Tensor, static_k0)
    _74 = torch.ne(torch.size(static_k2, 0), torch.mul(bsz, num_heads))
    if _74:
      _75 = torch.format(_30, torch.mul(bsz, num_heads), torch.size(static_k2, 0))
      _76 = torch.add("AssertionError: ", _75)
      ops.prim.RaiseException(_76)
    else:
      pass
    _77 = torch.ne(torch.size(static_k2, 2), head_dim)
    if _77:
      _78 = torch.format(_31, head_dim, torch.size(static_k2, 2))
      _79 = torch.add("AssertionError: ", _78)
      ops.prim.RaiseException(_79)
    else:
      pass
    k4 = static_k2
  if torch.__is__(static_v0, None):
    _80 = [(torch.size(v2))[0], torch.mul(bsz, num_heads), head_dim]
    v5 = torch.transpose(torch.view(v2, _80), 0, 1)
    v4 = v5
  else:
    static_v2 = unchecked_cast(Tensor, static_v0)
    _81 = torch.ne(torch.size(static_v2, 0), torch.mul(bsz, num_heads))
    if _81:
      _82 = torch.format(_32, torch.mul(bsz, num_heads), torch.size(static_v2, 0))
      _83 = torch.add("AssertionError: ", _82)
      ops.prim.RaiseException(_83)
    else:
      pass
    _84 = torch.ne(torch.size(static_v2, 2), head_dim)
    if _84:
      _85 = torch.format(_33, head_dim, torch.size(static_v2, 2))
      _86 = torch.add("AssertionError: ", _85)
      ops.prim.RaiseException(_86)
    else:
      pass
    v4 = static_v2
  if add_zero_attn:
    _87 = torch.mul(bsz, num_heads)
    _88 = ops.prim.dtype(k4)
    _89 = ops.prim.device(k4)
    _90 = torch.zeros([_87, 1, head_dim], dtype=_88, layout=None, device=_89)
    k7 = torch.cat([k4, _90], 1)
    _91 = ops.prim.dtype(v4)
    _92 = ops.prim.device(v4)
    _93 = torch.zeros([_87, 1, head_dim], dtype=_91, layout=None, device=_92)
    v7 = torch.cat([v4, _93], 1)
    if torch.__isnot__(attn_mask5, None):
      attn_mask11 = unchecked_cast(Tensor, attn_mask5)
      attn_mask12 = __torch__.torch.nn.functional.pad(attn_mask11, [0, 1], "constant", None, )
      attn_mask10 : Optional[Tensor] = attn_mask12
    else:
      attn_mask10 = attn_mask5
    _94 = torch.__isnot__(key_padding_mask8, None)
    if _94:
      key_padding_mask14 = unchecked_cast(Tensor, key_padding_mask8)
      key_padding_mask15 = __torch__.torch.nn.functional.pad(key_padding_mask14, [0, 1], "constant", None, )
      key_padding_mask13 : Optional[Tensor] = key_padding_mask15
    else:
      key_padding_mask13 = key_padding_mask8
    k6, key_padding_mask12, attn_mask9, v6 = k7, key_padding_mask13, attn_mask10, v7
  else:
    k6, key_padding_mask12, attn_mask9, v6 = k4, key_padding_mask8, attn_mask5, v4
  src_len0 = torch.size(k6, 1)
  _95 = torch.__isnot__(key_padding_mask12, None)
  if _95:
    key_padding_mask16 = unchecked_cast(Tensor, key_padding_mask12)
    _96 = torch.view(key_padding_mask16, [bsz, 1, 1, src_len0])
    _97 = torch.expand(_96, [-1, num_heads, -1, -1])
    _98 = [torch.mul(bsz, num_heads), 1, src_len0]
    key_padding_mask17 = torch.reshape(_97, _98)
    if torch.__is__(attn_mask9, None):
      attn_mask14 = key_padding_mask17
    else:
      attn_mask15 = unchecked_cast(Tensor, attn_mask9)
      attn_mask16 = torch.add(attn_mask15, key_padding_mask17)
      attn_mask14 = attn_mask16
    attn_mask13 : Optional[Tensor] = attn_mask14
  else:
    attn_mask13 = attn_mask9
  if torch.__not__(training):
    dropout_p0 = 0.
  else:
    dropout_p0 = dropout_p
  if need_weights:
    _B, _Nt, E, = torch.size(q2)
    q_scaled = torch.mul(q2, torch.sqrt(torch.div(1., float(E))))
    if is_causal0:
      _100 = torch.__is__(attn_mask13, None)
    else:
      _100 = False
    if _100:
      ops.prim.RaiseException(_34)
    else:
      pass
    if torch.__isnot__(attn_mask13, None):
      attn_mask17 = unchecked_cast(Tensor, attn_mask13)
      attn_output_weights0 = torch.baddbmm(attn_mask17, q_scaled, torch.transpose(k6, -2, -1))
      attn_output_weights = attn_output_weights0
    else:
      attn_output_weights1 = torch.bmm(q_scaled, torch.transpose(k6, -2, -1))
      attn_output_weights = attn_output_weights1
    attn_output_weights2 = __torch__.torch.nn.functional.softmax(attn_output_weights, -1, 3, None, )
    if torch.gt(dropout_p0, 0.):
      attn_output_weights4 = __torch__.torch.nn.functional.dropout(attn_output_weights2, dropout_p0, True, False, )
      attn_output_weights3 = attn_output_weights4
    else:
      attn_output_weights3 = attn_output_weights2
    attn_output = torch.bmm(attn_output_weights3, v6)
    _101 = torch.transpose(attn_output, 0, 1)
    _102 = [torch.mul(tgt_len, bsz), embed_dim0]
    attn_output0 = torch.reshape(_101, _102)
    attn_output1 = torch.linear(attn_output0, out_proj_weight, out_proj_bias)
    _103 = [tgt_len, bsz, torch.size(attn_output1, 1)]
    attn_output2 = torch.view(attn_output1, _103)
    attn_output_weights5 = torch.view(attn_output_weights3, [bsz, num_heads, tgt_len, src_len0])
    if average_attn_weights:
      attn_output_weights7 = torch.mean(attn_output_weights5, [1])
      attn_output_weights6 = attn_output_weights7
    else:
      attn_output_weights6 = attn_output_weights5
    if torch.__not__(is_batched):
      attn_output4 = torch.squeeze(attn_output2, 1)
      attn_output_weights9 = torch.squeeze(attn_output_weights6, 0)
      attn_output3, attn_output_weights8 = attn_output4, attn_output_weights9
    else:
      attn_output3, attn_output_weights8 = attn_output2, attn_output_weights6
    _104 = (attn_output3, attn_output_weights8)
    _99 = _104
  else:
    if torch.__isnot__(attn_mask13, None):
      attn_mask19 = unchecked_cast(Tensor, attn_mask13)
      _105 = torch.eq(torch.size(attn_mask19, 0), 1)
      if _105:
        _107 = torch.eq(torch.dim(attn_mask19), 3)
        _106 = _107
      else:
        _106 = False
      if _106:
        attn_mask20 = torch.unsqueeze(attn_mask19, 0)
      else:
        attn_mask21 = torch.view(attn_mask19, [bsz, num_heads, -1, src_len0])
        attn_mask20 = attn_mask21
      attn_mask18 : Optional[Tensor] = attn_mask20
    else:
      attn_mask18 = attn_mask13
    q3 = torch.view(q2, [bsz, num_heads, tgt_len, head_dim])
    _108 = [bsz, num_heads, src_len0, head_dim]
    k8 = torch.view(k6, _108)
    _109 = [bsz, num_heads, src_len0, head_dim]
    v8 = torch.view(v6, _109)
    attn_output5 = torch.scaled_dot_product_attention(q3, k8, v8, attn_mask18, dropout_p0, is_causal0)
    _110 = torch.permute(attn_output5, [2, 0, 1, 3])
    _111 = [torch.mul(bsz, tgt_len), embed_dim0]
    attn_output6 = torch.reshape(_110, _111)
    attn_output7 = torch.linear(attn_output6, out_proj_weight, out_proj_bias)
    _112 = [tgt_len, bsz, torch.size(attn_output7, 1)]
    attn_output8 = torch.view(attn_output7, _112)
    if torch.__not__(is_batched):
      attn_output9 = torch.squeeze(attn_output8, 1)
    else:
      attn_output9 = attn_output8
    _99 = (attn_output9, None)
  return _99
def _mha_shape_check(query: Tensor,
    key: Tensor,
    value: Tensor,
    key_padding_mask: Optional[Tensor],
    attn_mask: Optional[Tensor],
    num_heads: int) -> bool:
  _113 = "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found {}-D and {}-D tensors respectively"
  _114 = "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but found {}-D tensor instead"
  _115 = "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found {}-D tensor instead"
  _116 = "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found {}-D and {}-D tensors respectively"
  _117 = "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but found {}-D tensor instead"
  _118 = "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found {}-D tensor instead"
  _119 = "Expected `attn_mask` shape to be {} but got {}"
  _120 = "query should be unbatched 2D or batched 3D tensor but received {}-D query tensor"
  _121 = uninitialized(bool)
  if torch.eq(torch.dim(query), 3):
    if torch.ne(torch.dim(key), 3):
      _122 = True
    else:
      _122 = torch.ne(torch.dim(value), 3)
    if _122:
      _123 = torch.format(_113, torch.dim(key), torch.dim(value))
      _124 = torch.add("AssertionError: ", _123)
      ops.prim.RaiseException(_124)
    else:
      pass
    _125 = torch.__isnot__(key_padding_mask, None)
    if _125:
      key_padding_mask18 = unchecked_cast(Tensor, key_padding_mask)
      _126 = torch.ne(torch.dim(key_padding_mask18), 2)
      if _126:
        _127 = torch.format(_114, torch.dim(key_padding_mask18))
        _128 = torch.add("AssertionError: ", _127)
        ops.prim.RaiseException(_128)
      else:
        pass
    else:
      pass
    if torch.__isnot__(attn_mask, None):
      attn_mask22 = unchecked_cast(Tensor, attn_mask)
      _129 = torch.dim(attn_mask22)
      _130 = torch.__not__(torch.__contains__([2, 3], _129))
      if _130:
        _131 = torch.format(_115, torch.dim(attn_mask22))
        _132 = torch.add("AssertionError: ", _131)
        ops.prim.RaiseException(_132)
      else:
        pass
    else:
      pass
    is_batched = True
  else:
    if torch.eq(torch.dim(query), 2):
      if torch.ne(torch.dim(key), 2):
        _133 = True
      else:
        _133 = torch.ne(torch.dim(value), 2)
      if _133:
        _134 = torch.format(_116, torch.dim(key), torch.dim(value))
        _135 = torch.add("AssertionError: ", _134)
        ops.prim.RaiseException(_135)
      else:
        pass
      _136 = torch.__isnot__(key_padding_mask, None)
      if _136:
        key_padding_mask19 = unchecked_cast(Tensor, key_padding_mask)
        _137 = torch.ne(torch.dim(key_padding_mask19), 1)
        if _137:
          _138 = torch.format(_117, torch.dim(key_padding_mask19))
          _139 = torch.add("AssertionError: ", _138)
          ops.prim.RaiseException(_139)
        else:
          pass
      else:
        pass
      if torch.__isnot__(attn_mask, None):
        attn_mask23 = unchecked_cast(Tensor, attn_mask)
        _140 = torch.dim(attn_mask23)
        _141 = torch.__contains__([2, 3], _140)
        if torch.__not__(_141):
          _142 = torch.format(_118, torch.dim(attn_mask23))
          _143 = torch.add("AssertionError: ", _142)
          ops.prim.RaiseException(_143)
        else:
          pass
        _144 = torch.eq(torch.dim(attn_mask23), 3)
        if _144:
          _145 = (torch.size(query))[0]
          _146 = (torch.size(key))[0]
          expected_shape = (num_heads, _145, _146)
          _147 = torch.ne(torch.size(attn_mask23), [num_heads, _145, _146])
          if _147:
            _148 = torch.format(_119, expected_shape, torch.size(attn_mask23))
            _149 = torch.add("AssertionError: ", _148)
            ops.prim.RaiseException(_149)
          else:
            pass
        else:
          pass
      else:
        pass
      is_batched0 = False
    else:
      _150 = torch.format(_120, torch.dim(query))
      _151 = torch.add("AssertionError: ", _150)
      ops.prim.RaiseException(_151)
      is_batched0 = _121
    is_batched = is_batched0
  return is_batched
def _in_projection_packed(q: Tensor,
    k: Tensor,
    v: Tensor,
    w: Tensor,
    b: Optional[Tensor]=None) -> List[Tensor]:
  E = torch.size(q, -1)
  if torch.__is__(k, v):
    if torch.__is__(q, k):
      proj = torch.linear(q, w, b)
      _154 = torch.unsqueeze(torch.unflatten(proj, -1, [3, E]), 0)
      _155 = torch.squeeze(torch.transpose(_154, 0, -2), -2)
      proj0 = torch.contiguous(_155)
      _156 = [torch.select(proj0, 0, 0), torch.select(proj0, 0, 1), torch.select(proj0, 0, 2)]
      _153 = _156
    else:
      _157 = torch.split(w, [E, torch.mul(E, 2)])
      w_q, w_kv, = _157
      if torch.__is__(b, None):
        b_q, b_kv = None, None
      else:
        b0 = unchecked_cast(Tensor, b)
        _158 = torch.split(b0, [E, torch.mul(E, 2)])
        b_q1, b_kv0, = _158
        b_q, b_kv = b_q1, b_kv0
      q_proj = torch.linear(q, w_q, b_q)
      kv_proj = torch.linear(k, w_kv, b_kv)
      _159 = torch.unflatten(kv_proj, -1, [2, E])
      _160 = torch.transpose(torch.unsqueeze(_159, 0), 0, -2)
      kv_proj0 = torch.contiguous(torch.squeeze(_160, -2))
      _161 = [q_proj, torch.select(kv_proj0, 0, 0), torch.select(kv_proj0, 0, 1)]
      _153 = _161
    _152 = _153
  else:
    w_q0, w_k, w_v, = torch.chunk(w, 3)
    if torch.__is__(b, None):
      b_q2, b_k, b_v = None, None, None
    else:
      b1 = unchecked_cast(Tensor, b)
      b_q3, b_k1, b_v1, = torch.chunk(b1, 3)
      b_q2, b_k, b_v = b_q3, b_k1, b_v1
    _162 = [torch.linear(q, w_q0, b_q2), torch.linear(k, w_k, b_k), torch.linear(v, w_v, b_v)]
    _152 = _162
  return _152
def _in_projection(q: Tensor,
    k: Tensor,
    v: Tensor,
    w_q: Tensor,
    w_k: Tensor,
    w_v: Tensor,
    b_q: Optional[Tensor]=None,
    b_k: Optional[Tensor]=None,
    b_v: Optional[Tensor]=None) -> Tuple[Tensor, Tensor, Tensor]:
  _163 = "expecting query weights shape of {}, but got {}"
  _164 = "expecting key weights shape of {}, but got {}"
  _165 = "expecting value weights shape of {}, but got {}"
  _166 = "expecting query bias shape of {}, but got {}"
  _167 = "expecting key bias shape of {}, but got {}"
  _168 = "expecting value bias shape of {}, but got {}"
  _169 = uninitialized(Optional[Tensor])
  _170 = uninitialized(Optional[Tensor])
  _171 = uninitialized(Optional[Tensor])
  Eq = torch.size(q, -1)
  Ek = torch.size(k, -1)
  Ev = torch.size(v, -1)
  if torch.ne(torch.size(w_q), [Eq, Eq]):
    _172 = torch.format(_163, (Eq, Eq), torch.size(w_q))
    ops.prim.RaiseException(torch.add("AssertionError: ", _172))
  else:
    pass
  if torch.ne(torch.size(w_k), [Eq, Ek]):
    _173 = torch.format(_164, (Eq, Ek), torch.size(w_k))
    ops.prim.RaiseException(torch.add("AssertionError: ", _173))
  else:
    pass
  if torch.ne(torch.size(w_v), [Eq, Ev]):
    _174 = torch.format(_165, (Eq, Ev), torch.size(w_v))
    ops.prim.RaiseException(torch.add("AssertionError: ", _174))
  else:
    pass
  if torch.__isnot__(b_q, None):
    b_q5 = unchecked_cast(Tensor, b_q)
    _175, b_q4 = torch.ne(torch.size(b_q5), [Eq]), b_q5
  else:
    _175, b_q4 = False, b_q
  if _175:
    b_q7 = unchecked_cast(Tensor, b_q4)
    _176 = torch.format(_166, (Eq,), torch.size(b_q7))
    ops.prim.RaiseException(torch.add("AssertionError: ", _176))
    b_q6 : Optional[Tensor] = _171
  else:
    b_q6 = b_q4
  if torch.__isnot__(b_k, None):
    b_k3 = unchecked_cast(Tensor, b_k)
    _177, b_k2 = torch.ne(torch.size(b_k3), [Eq]), b_k3
  else:
    _177, b_k2 = False, b_k
  if _177:
    b_k5 = unchecked_cast(Tensor, b_k2)
    _178 = torch.format(_167, (Eq,), torch.size(b_k5))
    ops.prim.RaiseException(torch.add("AssertionError: ", _178))
    b_k4 : Optional[Tensor] = _170
  else:
    b_k4 = b_k2
  if torch.__isnot__(b_v, None):
    b_v3 = unchecked_cast(Tensor, b_v)
    _179, b_v2 = torch.ne(torch.size(b_v3), [Eq]), b_v3
  else:
    _179, b_v2 = False, b_v
  if _179:
    b_v5 = unchecked_cast(Tensor, b_v2)
    _180 = torch.format(_168, (Eq,), torch.size(b_v5))
    ops.prim.RaiseException(torch.add("AssertionError: ", _180))
    b_v4 : Optional[Tensor] = _169
  else:
    b_v4 = b_v2
  _181 = (torch.linear(q, w_q, b_q6), torch.linear(k, w_k, b_k4), torch.linear(v, w_v, b_v4))
  return _181
def pad(input: Tensor,
    pad: List[int],
    mode: str="constant",
    value: Optional[float]=None) -> Tensor:
  return torch.pad(input, pad, mode, value)
def softmax(input: Tensor,
    dim: Optional[int]=None,
    _stacklevel: int=3,
    dtype: Optional[int]=None) -> Tensor:
  _182 = __torch__.torch.nn.functional._get_softmax_dim
  if torch.__is__(dim, None):
    dim1 = _182("softmax", torch.dim(input), _stacklevel, )
    dim0 = dim1
  else:
    dim0 = unchecked_cast(int, dim)
  if torch.__is__(dtype, None):
    ret = torch.softmax(input, dim0)
  else:
    dtype0 = unchecked_cast(int, dtype)
    ret = torch.softmax(input, dim0, dtype0)
  return ret
def dropout(input: Tensor,
    p: float=0.5,
    training: bool=True,
    inplace: bool=False) -> Tensor:
  _183 = "dropout probability has to be between 0 and 1, but got {}"
  if torch.lt(p, 0.):
    _184 = True
  else:
    _184 = torch.gt(p, 1.)
  if _184:
    ops.prim.RaiseException(torch.format(_183, p), "builtins.ValueError")
  else:
    pass
  if inplace:
    _185 = torch.dropout_(input, p, training)
  else:
    _185 = torch.dropout(input, p, training)
  return _185
def _get_softmax_dim(name: str,
    ndim: int,
    stacklevel: int) -> int:
  _186 = "Implicit dimension choice for {} has been deprecated. Change the call to include dim=X as an argument."
  torch.warn(torch.format(_186, name), stacklevel)
  if torch.eq(ndim, 0):
    _187 = True
  else:
    _187 = torch.eq(ndim, 1)
  if _187:
    _188 = True
  else:
    _188 = torch.eq(ndim, 3)
  if _188:
    ret = 0
  else:
    ret = 1
  return ret
