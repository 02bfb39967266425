def _apply_permutation(tensor: Tensor,
    permutation: Tensor,
    dim: int=1) -> Tensor:
  _0 = torch.index_select(tensor, dim, permutation)
  return _0
