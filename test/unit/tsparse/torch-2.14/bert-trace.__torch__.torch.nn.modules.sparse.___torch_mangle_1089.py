class Embedding(Module):
  __parameters__ = ["weight", ]
  __buffers__ = []
  weight : Tensor
  training : bool
  _is_full_backward_hook : Optional[bool]
  def forward(self: __torch__.torch.nn.modules.sparse.___torch_mangle_1089.Embedding,
    position_ids: Tensor) -> Tensor:
    weight = self.weight
    position_embeddings = torch.embedding(weight, position_ids)
    return position_embeddings
