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
    average_attn_weights: bool=True) -> Tuple[Tensor, Optional[Tensor]]:
  _0 = __torch__.torch.nn.functional._mha_shape_check
  _1 = "AssertionError: only bool and floating types of key_padding_mask are supported"
  _2 = "was expecting embedding dimension of {}, but got {}"
  _3 = "embed_dim {} not divisible by num_heads {}"
  _4 = "key\'s sequence and batch dims {} do not match value\'s {}"
  _5 = "key shape {} does not match value shape {}"
  _6 = "AssertionError: use_separate_proj_weight is False but in_proj_weight is None"
  _7 = __torch__.torch.nn.functional._in_projection_packed
  _8 = "AssertionError: use_separate_proj_weight is True but q_proj_weight is None"
  _9 = "AssertionError: use_separate_proj_weight is True but k_proj_weight is None"
  _10 = "AssertionError: use_separate_proj_weight is True but v_proj_weight is None"
  _11 = __torch__.torch.nn.functional._in_projection
  _12 = "Byte tensor for attn_mask in nn.MultiheadAttention is deprecated. Use bool tensor instead."
  _13 = "Only float, byte, and bool types are supported for attn_mask, not {}"
  _14 = "The shape of the 2D attn_mask is {}, but should be {}."
  _15 = "The shape of the 3D attn_mask is {}, but should be {}."
  _16 = "attn_mask\'s dimension {} is not supported"
  _17 = "AssertionError: bias cannot be added to static key."
  _18 = "AssertionError: bias cannot be added to static value."
  _19 = "expecting static_k.size(0) of {}, but got {}"
  _20 = "expecting static_k.size(2) of {}, but got {}"
  _21 = "expecting static_v.size(0) of {}, but got {}"
  _22 = "expecting static_v.size(2) of {}, but got {}"
  _23 = "expecting key_padding_mask shape of {}, but got {}"
  _24 = uninitialized(Optional[Tensor])
  _25 = uninitialized(Optional[Tensor])
  _26 = uninitialized(Tensor)
  is_batched = _0(query, key, value, key_padding_mask, attn_mask, num_heads, )
  if torch.__not__(is_batched):
    query1 = torch.unsqueeze(query, 1)
    key1 = torch.unsqueeze(key, 1)
    value1 = torch.unsqueeze(value, 1)
    _27 = torch.__isnot__(key_padding_mask, None)
    if _27:
      key_padding_mask2 = unchecked_cast(Tensor, key_padding_mask)
      key_padding_mask3 = torch.unsqueeze(key_padding_mask2, 0)
      key_padding_mask1 : Optional[Tensor] = key_padding_mask3
    else:
      key_padding_mask1 = key_padding_mask
    query0, key0, key_padding_mask0, value0 = query1, key1, key_padding_mask1, value1
  else:
    query0, key0, key_padding_mask0, value0 = query, key, key_padding_mask, value
  tgt_len, bsz, embed_dim, = torch.size(query0)
  src_len, _28, _29, = torch.size(key0)
  _30 = torch.__isnot__(key_padding_mask0, None)
  if _30:
    key_padding_mask5 = unchecked_cast(Tensor, key_padding_mask0)
    _kpm_dtype = ops.prim.dtype(key_padding_mask5)
    if torch.ne(_kpm_dtype, 11):
      _32 = torch.is_floating_point(key_padding_mask5)
      _31 = torch.__not__(_32)
    else:
      _31 = False
    if _31:
      ops.prim.RaiseException(_1)
    else:
      pass
    key_padding_mask4 : Optional[Tensor] = key_padding_mask5
  else:
    key_padding_mask4 = key_padding_mask0
  _33 = torch.eq(embed_dim, embed_dim_to_check)
  if _33:
    pass
  else:
    _34 = torch.format(_2, embed_dim_to_check, embed_dim)
    ops.prim.RaiseException(torch.add("AssertionError: ", _34))
  embed_dim0 = unchecked_cast(int, embed_dim)
  head_dim = torch.floordiv(embed_dim0, num_heads)
  _35 = torch.eq(torch.mul(head_dim, num_heads), embed_dim0)
  if _35:
    pass
  else:
    _36 = torch.format(_3, embed_dim0, num_heads)
    ops.prim.RaiseException(torch.add("AssertionError: ", _36))
  if use_separate_proj_weight:
    _37 = torch.slice(torch.size(key0), None, 2)
    _38 = torch.slice(torch.size(value0), None, 2)
    if torch.eq(_37, _38):
      pass
    else:
      _39 = torch.slice(torch.size(key0), None, 2)
      _40 = torch.slice(torch.size(value0), None, 2)
      _41 = torch.add("AssertionError: ", torch.format(_4, _39, _40))
      ops.prim.RaiseException(_41)
  else:
    _42 = torch.eq(torch.size(key0), torch.size(value0))
    if _42:
      pass
    else:
      _43 = torch.format(_5, torch.size(key0), torch.size(value0))
      _44 = torch.add("AssertionError: ", _43)
      ops.prim.RaiseException(_44)
  _45 = torch.__not__(use_separate_proj_weight)
  if _45:
    _46 = torch.__isnot__(in_proj_weight, None)
    if _46:
      in_proj_weight1 = unchecked_cast(Tensor, in_proj_weight)
      in_proj_weight0 = in_proj_weight1
    else:
      ops.prim.RaiseException(_6)
      in_proj_weight0 = _26
    _47 = _7(query0, key0, value0, in_proj_weight0, in_proj_bias, )
    q0, k0, v0, = _47
    k, v, q = k0, v0, q0
  else:
    _48 = torch.__isnot__(q_proj_weight, None)
    if _48:
      q_proj_weight1 = unchecked_cast(Tensor, q_proj_weight)
      q_proj_weight0 = q_proj_weight1
    else:
      ops.prim.RaiseException(_8)
      q_proj_weight0 = _26
    _49 = torch.__isnot__(k_proj_weight, None)
    if _49:
      k_proj_weight1 = unchecked_cast(Tensor, k_proj_weight)
      k_proj_weight0 = k_proj_weight1
    else:
      ops.prim.RaiseException(_9)
      k_proj_weight0 = _26
    _50 = torch.__isnot__(v_proj_weight, None)
    if _50:
      v_proj_weight1 = unchecked_cast(Tensor, v_proj_weight)
      v_proj_weight0 = v_proj_weight1
    else:
      ops.prim.RaiseException(_10)
      v_proj_weight0 = _26
    if torch.__is__(in_proj_bias, None):
      b_q, b_k, b_v = None, None, None
    else:
      in_proj_bias0 = unchecked_cast(Tensor, in_proj_bias)
      b_q0, b_k0, b_v0, = torch.chunk(in_proj_bias0, 3)
      b_q, b_k, b_v = b_q0, b_k0, b_v0
    _51 = _11(query0, key0, value0, q_proj_weight0, k_proj_weight0, v_proj_weight0, b_q, b_k, b_v, )
    q1, k1, v1, = _51
    k, v, q = k1, v1, q1
  if torch.__isnot__(attn_mask, None):
    attn_mask1 = unchecked_cast(Tensor, attn_mask)
    _52 = torch.eq(ops.prim.dtype(attn_mask1), 0)
    if _52:
      torch.warn(_12)
      attn_mask2 = torch.to(attn_mask1, 11)
    else:
      _53 = torch.is_floating_point(attn_mask1)
      if _53:
        _54 = True
      else:
        _55 = torch.eq(ops.prim.dtype(attn_mask1), 11)
        _54 = _55
      if _54:
        pass
      else:
        _56 = torch.format(_13, ops.prim.dtype(attn_mask1))
        _57 = torch.add("AssertionError: ", _56)
        ops.prim.RaiseException(_57)
      attn_mask2 = attn_mask1
    if torch.eq(torch.dim(attn_mask2), 2):
      correct_2d_size = (tgt_len, src_len)
      _58 = torch.ne(torch.size(attn_mask2), [tgt_len, src_len])
      if _58:
        _59 = torch.format(_14, torch.size(attn_mask2), correct_2d_size)
        ops.prim.RaiseException(_59, "builtins.RuntimeError")
      else:
        pass
      attn_mask3 = torch.unsqueeze(attn_mask2, 0)
    else:
      _60 = torch.eq(torch.dim(attn_mask2), 3)
      if _60:
        _61 = torch.mul(bsz, num_heads)
        correct_3d_size = (_61, tgt_len, src_len)
        _62 = torch.ne(torch.size(attn_mask2), [_61, tgt_len, src_len])
        if _62:
          _63 = torch.format(_15, torch.size(attn_mask2), correct_3d_size)
          ops.prim.RaiseException(_63, "builtins.RuntimeError")
        else:
          pass
      else:
        _64 = torch.format(_16, torch.dim(attn_mask2))
        ops.prim.RaiseException(_64, "builtins.RuntimeError")
      attn_mask3 = attn_mask2
    attn_mask0 : Optional[Tensor] = attn_mask3
  else:
    attn_mask0 = attn_mask
  if torch.__isnot__(bias_k, None):
    bias_k1 = unchecked_cast(Tensor, bias_k)
    _65, bias_k0 = torch.__isnot__(bias_v, None), bias_k1
  else:
    _65, bias_k0 = False, bias_k
  if _65:
    bias_k2 = unchecked_cast(Tensor, bias_k0)
    bias_v0 = unchecked_cast(Tensor, bias_v)
    if torch.__is__(static_k, None):
      static_k1 : Optional[Tensor] = static_k
    else:
      ops.prim.RaiseException(_17)
      static_k1 = _25
    if torch.__is__(static_v, None):
      static_v1 : Optional[Tensor] = static_v
    else:
      ops.prim.RaiseException(_18)
      static_v1 = _24
    _66 = [k, torch.repeat(bias_k2, [1, bsz, 1])]
    k3 = torch.cat(_66)
    _67 = [v, torch.repeat(bias_v0, [1, bsz, 1])]
    v3 = torch.cat(_67)
    if torch.__isnot__(attn_mask0, None):
      attn_mask6 = unchecked_cast(Tensor, attn_mask0)
      attn_mask5 : Optional[Tensor] = torch.pad(attn_mask6, [0, 1])
    else:
      attn_mask5 = attn_mask0
    _68 = torch.__isnot__(key_padding_mask4, None)
    if _68:
      key_padding_mask8 = unchecked_cast(Tensor, key_padding_mask4)
      key_padding_mask9 = torch.pad(key_padding_mask8, [0, 1])
      key_padding_mask7 : Optional[Tensor] = key_padding_mask9
    else:
      key_padding_mask7 = key_padding_mask4
    static_k0, k2, static_v0, v2, attn_mask4, key_padding_mask6 = static_k1, k3, static_v1, v3, attn_mask5, key_padding_mask7
  else:
    if torch.__is__(bias_k0, None):
      pass
    else:
      ops.prim.RaiseException("AssertionError: ")
    if torch.__is__(bias_v, None):
      pass
    else:
      ops.prim.RaiseException("AssertionError: ")
    static_k0, k2, static_v0, v2, attn_mask4, key_padding_mask6 = static_k, k, static_v, v, attn_mask0, key_padding_mask4
  _69 = torch.contiguous(q)
  _70 = [tgt_len, torch.mul(bsz, num_heads), head_dim]
  q2 = torch.transpose(torch.view(_69, _70), 0, 1)
  if torch.__is__(static_k0, None):
    _71 = torch.contiguous(k2)
    _72 = [(torch.size(k2))[0], torch.mul(bsz, num_heads), head_dim]
    k5 = torch.transpose(torch.view(_71, _72), 0, 1)
    k4 = k5
  else:
    static_k2 = unchecked_cast(Tensor, static_k0)
    _73 = torch.eq(torch.size(static_k2, 0), torch.mul(bsz, num_heads))
    if _73:
      pass
    else:
      _74 = torch.format(_19, torch.mul(bsz, num_heads), torch.size(static_k2, 0))
      _75 = torch.add("AssertionError: ", _74)
      ops.prim.RaiseException(_75)
    _76 = torch.eq(torch.size(static_k2, 2), head_dim)
    if _76:
      pass
    else:
      _77 = torch.format(_20, head_dim, torch.size(static_k2, 2))
      _78 = torch.add("AssertionError: ", _77)
      ops.prim.RaiseException(_78)
    k4 = static_k2
  if torch.__is__(static_v0, None):
    _79 = torch.contiguous(v2)
    _80 = [(torch.size(v2))[0], torch.mul(bsz, num_heads), head_dim]
    v5 = torch.transpose(torch.view(_79, _80), 0, 1)
    v4 = v5
  else:
    static_v2 = unchecked_cast(Tensor, static_v0)
    _81 = torch.eq(torch.size(static_v2, 0), torch.mul(bsz, num_heads))
    if _81:
      pass
    else:
      _82 = torch.format(_21, torch.mul(bsz, num_heads), torch.size(static_v2, 0))
      _83 = torch.add("AssertionError: ", _82)
      ops.prim.RaiseException(_83)
    _84 = torch.eq(torch.size(static_v2, 2), head_dim)
    if _84:
      pass
    else:
      _85 = torch.format(_22, head_dim, torch.size(static_v2, 2))
      _86 = torch.add("AssertionError: ", _85)
      ops.prim.RaiseException(_86)
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
    if torch.__isnot__(attn_mask4, None):
      attn_mask9 = unchecked_cast(Tensor, attn_mask4)
      attn_mask8 : Optional[Tensor] = torch.pad(attn_mask9, [0, 1])
    else:
      attn_mask8 = attn_mask4
    _94 = torch.__isnot__(key_padding_mask6, None)
    if _94:
      key_padding_mask12 = unchecked_cast(Tensor, key_padding_mask6)
      key_padding_mask13 = torch.pad(key_padding_mask12, [0, 1])
      key_padding_mask11 : Optional[Tensor] = key_padding_mask13
    else:
      key_padding_mask11 = key_padding_mask6
    k6, key_padding_mask10, attn_mask7, v6 = k7, key_padding_mask11, attn_mask8, v7
  else:
    k6, key_padding_mask10, attn_mask7, v6 = k4, key_padding_mask6, attn_mask4, v4
  src_len0 = torch.size(k6, 1)
  _95 = torch.__isnot__(key_padding_mask10, None)
  if _95:
    key_padding_mask14 = unchecked_cast(Tensor, key_padding_mask10)
    _96 = torch.eq(torch.size(key_padding_mask14), [bsz, src_len0])
    if _96:
      pass
    else:
      _97 = torch.format(_23, (bsz, src_len0), torch.size(key_padding_mask14))
      _98 = torch.add("AssertionError: ", _97)
      ops.prim.RaiseException(_98)
    _99 = torch.view(key_padding_mask14, [bsz, 1, 1, src_len0])
    _100 = torch.expand(_99, [-1, num_heads, -1, -1])
    _101 = [torch.mul(bsz, num_heads), 1, src_len0]
    key_padding_mask15 = torch.reshape(_100, _101)
    if torch.__is__(attn_mask7, None):
      attn_mask11 = key_padding_mask15
    else:
      attn_mask12 = unchecked_cast(Tensor, attn_mask7)
      _102 = torch.eq(ops.prim.dtype(attn_mask12), 11)
      if _102:
        attn_mask14 = torch.logical_or(attn_mask12, key_padding_mask15)
        attn_mask13 = attn_mask14
      else:
        attn_mask15 = torch.masked_fill(attn_mask12, key_padding_mask15, -inf)
        attn_mask13 = attn_mask15
      attn_mask11 = attn_mask13
    attn_mask10 : Optional[Tensor] = attn_mask11
  else:
    attn_mask10 = attn_mask7
  if torch.__isnot__(attn_mask10, None):
    attn_mask17 = unchecked_cast(Tensor, attn_mask10)
    _104 = torch.eq(ops.prim.dtype(attn_mask17), 11)
    _103, attn_mask16 = _104, attn_mask17
  else:
    _103, attn_mask16 = False, attn_mask10
  if _103:
    attn_mask19 = unchecked_cast(Tensor, attn_mask16)
    new_attn_mask = torch.zeros_like(attn_mask19, dtype=ops.prim.dtype(q2))
    _105 = torch.masked_fill_(new_attn_mask, attn_mask19, -inf)
    attn_mask18 : Optional[Tensor] = new_attn_mask
  else:
    attn_mask18 = attn_mask16
  if torch.__not__(training):
    dropout_p0 = 0.
  else:
    dropout_p0 = dropout_p
  B, Nt, E, = torch.size(q2)
  q_scaled = torch.div(q2, torch.sqrt(E))
  if torch.__isnot__(attn_mask18, None):
    attn_mask20 = unchecked_cast(Tensor, attn_mask18)
    attn_output_weights0 = torch.baddbmm(attn_mask20, q_scaled, torch.transpose(k6, -2, -1))
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
  _106 = torch.contiguous(torch.transpose(attn_output, 0, 1))
  attn_output0 = torch.view(_106, [torch.mul(tgt_len, bsz), embed_dim0])
  attn_output1 = torch.linear(attn_output0, out_proj_weight, out_proj_bias)
  _107 = [tgt_len, bsz, torch.size(attn_output1, 1)]
  attn_output2 = torch.view(attn_output1, _107)
  if need_weights:
    attn_output_weights5 = torch.view(attn_output_weights3, [bsz, num_heads, tgt_len, src_len0])
    if average_attn_weights:
      _109 = torch.sum(attn_output_weights5, [1])
      attn_output_weights6 = torch.div(_109, num_heads)
    else:
      attn_output_weights6 = attn_output_weights5
    if torch.__not__(is_batched):
      attn_output4 = torch.squeeze(attn_output2, 1)
      attn_output_weights8 = torch.squeeze(attn_output_weights6, 0)
      attn_output3, attn_output_weights7 = attn_output4, attn_output_weights8
    else:
      attn_output3, attn_output_weights7 = attn_output2, attn_output_weights6
    _110 = (attn_output3, attn_output_weights7)
    _108 = _110
  else:
    if torch.__not__(is_batched):
      attn_output5 = torch.squeeze(attn_output2, 1)
    else:
      attn_output5 = attn_output2
    _108 = (attn_output5, None)
  return _108
def _mha_shape_check(query: Tensor,
    key: Tensor,
    value: Tensor,
    key_padding_mask: Optional[Tensor],
    attn_mask: Optional[Tensor],
    num_heads: int) -> bool:
  _111 = "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found {}-D and {}-D tensors respectively"
  _112 = "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but found {}-D tensor instead"
  _113 = "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found {}-D tensor instead"
  _114 = "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found {}-D and {}-D tensors respectively"
  _115 = "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but found {}-D tensor instead"
  _116 = "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found {}-D tensor instead"
  _117 = "Expected `attn_mask` shape to be {} but got {}"
  _118 = "query should be unbatched 2D or batched 3D tensor but received {}-D query tensor"
  _119 = uninitialized(bool)
  if torch.eq(torch.dim(query), 3):
    if torch.eq(torch.dim(key), 3):
      _120 = torch.eq(torch.dim(value), 3)
    else:
      _120 = False
    if _120:
      pass
    else:
      _121 = torch.format(_111, torch.dim(key), torch.dim(value))
      _122 = torch.add("AssertionError: ", _121)
      ops.prim.RaiseException(_122)
    _123 = torch.__isnot__(key_padding_mask, None)
    if _123:
      key_padding_mask16 = unchecked_cast(Tensor, key_padding_mask)
      _124 = torch.eq(torch.dim(key_padding_mask16), 2)
      if _124:
        pass
      else:
        _125 = torch.format(_112, torch.dim(key_padding_mask16))
        _126 = torch.add("AssertionError: ", _125)
        ops.prim.RaiseException(_126)
    else:
      pass
    if torch.__isnot__(attn_mask, None):
      attn_mask21 = unchecked_cast(Tensor, attn_mask)
      _127 = torch.dim(attn_mask21)
      if torch.__contains__([2, 3], _127):
        pass
      else:
        _128 = torch.format(_113, torch.dim(attn_mask21))
        _129 = torch.add("AssertionError: ", _128)
        ops.prim.RaiseException(_129)
    else:
      pass
    is_batched = True
  else:
    if torch.eq(torch.dim(query), 2):
      if torch.eq(torch.dim(key), 2):
        _130 = torch.eq(torch.dim(value), 2)
      else:
        _130 = False
      if _130:
        pass
      else:
        _131 = torch.format(_114, torch.dim(key), torch.dim(value))
        _132 = torch.add("AssertionError: ", _131)
        ops.prim.RaiseException(_132)
      _133 = torch.__isnot__(key_padding_mask, None)
      if _133:
        key_padding_mask17 = unchecked_cast(Tensor, key_padding_mask)
        _134 = torch.eq(torch.dim(key_padding_mask17), 1)
        if _134:
          pass
        else:
          _135 = torch.format(_115, torch.dim(key_padding_mask17))
          _136 = torch.add("AssertionError: ", _135)
          ops.prim.RaiseException(_136)
      else:
        pass
      if torch.__isnot__(attn_mask, None):
        attn_mask22 = unchecked_cast(Tensor, attn_mask)
        _137 = torch.dim(attn_mask22)
        _138 = torch.__contains__([2, 3], _137)
        if _138:
          pass
        else:
          _139 = torch.format(_116, torch.dim(attn_mask22))
          _140 = torch.add("AssertionError: ", _139)
          ops.prim.RaiseException(_140)
        _141 = torch.eq(torch.dim(attn_mask22), 3)
        if _141:
          _142 = (torch.size(query))[0]
          _143 = (torch.size(key))[0]
          expected_shape = (num_heads, _142, _143)
          _144 = torch.eq(torch.size(attn_mask22), [num_heads, _142, _143])
          if _144:
            pass
          else:
            _145 = torch.format(_117, expected_shape, torch.size(attn_mask22))
            _146 = torch.add("AssertionError: ", _145)
            ops.prim.RaiseException(_146)
        else:
          pass
      else:
        pass
      is_batched0 = False
    else:
      _147 = torch.format(_118, torch.dim(query))
      _148 = torch.add("AssertionError: ", _147)
      ops.prim.RaiseException(_148)
      is_batched0 = _119
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
      _151 = torch.chunk(torch.linear(q, w, b), 3, -1)
      _150 = _151
    else:
      _152 = torch.split(w, [E, torch.mul(E, 2)])
      w_q, w_kv, = _152
      if torch.__is__(b, None):
        b_q, b_kv = None, None
      else:
        b0 = unchecked_cast(Tensor, b)
        _153 = torch.split(b0, [E, torch.mul(E, 2)])
        b_q1, b_kv0, = _153
        b_q, b_kv = b_q1, b_kv0
      _154 = torch.linear(q, w_q, b_q)
      _155 = torch.chunk(torch.linear(k, w_kv, b_kv), 2, -1)
      _150 = torch.add([_154], _155)
    _149 = _150
  else:
    w_q0, w_k, w_v, = torch.chunk(w, 3)
    if torch.__is__(b, None):
      b_q2, b_k, b_v = None, None, None
    else:
      b1 = unchecked_cast(Tensor, b)
      b_q3, b_k1, b_v1, = torch.chunk(b1, 3)
      b_q2, b_k, b_v = b_q3, b_k1, b_v1
    _156 = [torch.linear(q, w_q0, b_q2), torch.linear(k, w_k, b_k), torch.linear(v, w_v, b_v)]
    _149 = _156
  return _149
def _in_projection(q: Tensor,
    k: Tensor,
    v: Tensor,
    w_q: Tensor,
    w_k: Tensor,
    w_v: Tensor,
    b_q: Optional[Tensor]=None,
    b_k: Optional[Tensor]=None,
    b_v: Optional[Tensor]=None) -> Tuple[Tensor, Tensor, Tensor]:
  _157 = "expecting query weights shape of {}, but got {}"
  _158 = "expecting key weights shape of {}, but got {}"
  _159 = "expecting value weights shape of {}, but got {}"
  _160 = "expecting query bias shape of {}, but got {}"
  _161 = "expecting key bias shape of {}, but got {}"
  _162 = "expecting value bias shape of {}, but got {}"
  _163 = uninitialized(Optional[Tensor])
  _164 = uninitialized(Optional[Tensor])
  _165 = uninitialized(Optional[Tensor])
  Eq = torch.size(q, -1)
  Ek = torch.size(k, -1)
  Ev = torch.size(v, -1)
  if torch.eq(torch.size(w_q), [Eq, Eq]):
    pass
  else:
    _166 = torch.format(_157, (Eq, Eq), torch.size(w_q))
    ops.prim.RaiseException(torch.add("AssertionError: ", _166))
  if torch.eq(torch.size(w_k), [Eq, Ek]):
    pass
  else:
    _167 = torch.format(_158, (Eq, Ek), torch.size(w_k))
    ops.prim.RaiseException(torch.add("AssertionError: ", _167))
  if torch.eq(torch.size(w_v), [Eq, Ev]):
    pass
  else:
    _168 = torch.format(_159, (Eq, Ev), torch.size(w_v))
    ops.prim.RaiseException(torch.add("AssertionError: ", _168))
  if torch.__is__(b_q, None):
    _169, b_q4 = True, b_q
  else:
    b_q5 = unchecked_cast(Tensor, b_q)
    _169, b_q4 = torch.eq(torch.size(b_q5), [Eq]), b_q5
  if _169:
    b_q6 : Optional[Tensor] = b_q4
  else:
    b_q7 = unchecked_cast(Tensor, b_q4)
    _170 = torch.format(_160, (Eq,), torch.size(b_q7))
    ops.prim.RaiseException(torch.add("AssertionError: ", _170))
    b_q6 = _165
  if torch.__is__(b_k, None):
    _171, b_k2 = True, b_k
  else:
    b_k3 = unchecked_cast(Tensor, b_k)
    _171, b_k2 = torch.eq(torch.size(b_k3), [Eq]), b_k3
  if _171:
    b_k4 : Optional[Tensor] = b_k2
  else:
    b_k5 = unchecked_cast(Tensor, b_k2)
    _172 = torch.format(_161, (Eq,), torch.size(b_k5))
    ops.prim.RaiseException(torch.add("AssertionError: ", _172))
    b_k4 = _164
  if torch.__is__(b_v, None):
    _173, b_v2 = True, b_v
  else:
    b_v3 = unchecked_cast(Tensor, b_v)
    _173, b_v2 = torch.eq(torch.size(b_v3), [Eq]), b_v3
  if _173:
    b_v4 : Optional[Tensor] = b_v2
  else:
    b_v5 = unchecked_cast(Tensor, b_v2)
    _174 = torch.format(_162, (Eq,), torch.size(b_v5))
    ops.prim.RaiseException(torch.add("AssertionError: ", _174))
    b_v4 = _163
  _175 = (torch.linear(q, w_q, b_q6), torch.linear(k, w_k, b_k4), torch.linear(v, w_v, b_v4))
  return _175
def softmax(input: Tensor,
    dim: Optional[int]=None,
    _stacklevel: int=3,
    dtype: Optional[int]=None) -> Tensor:
  _176 = __torch__.torch.nn.functional._get_softmax_dim
  if torch.__is__(dim, None):
    dim1 = _176("softmax", torch.dim(input), _stacklevel, )
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
  _177 = "dropout probability has to be between 0 and 1, but got {}"
  if torch.lt(p, 0.):
    _178 = True
  else:
    _178 = torch.gt(p, 1.)
  if _178:
    ops.prim.RaiseException(torch.format(_177, p), "builtins.ValueError")
  else:
    pass
  if inplace:
    _179 = torch.dropout_(input, p, training)
  else:
    _179 = torch.dropout(input, p, training)
  return _179
def _get_softmax_dim(name: str,
    ndim: int,
    stacklevel: int) -> int:
  _180 = "Implicit dimension choice for {} has been deprecated. Change the call to include dim=X as an argument."
  torch.warn(torch.format(_180, name), stacklevel)
  if torch.eq(ndim, 0):
    _181 = True
  else:
    _181 = torch.eq(ndim, 1)
  if _181:
    _182 = True
  else:
    _182 = torch.eq(ndim, 3)
  if _182:
    ret = 0
  else:
    ret = 1
  return ret
