class LSTM(Module):
  __parameters__ = ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_ih_l1", "weight_hh_l1", "bias_ih_l1", "bias_hh_l1", ]
  __buffers__ = []
  weight_ih_l0 : Tensor
  weight_hh_l0 : Tensor
  bias_ih_l0 : Tensor
  bias_hh_l0 : Tensor
  weight_ih_l1 : Tensor
  weight_hh_l1 : Tensor
  bias_ih_l1 : Tensor
  bias_hh_l1 : Tensor
  training : bool
  _is_full_backward_hook : Optional[bool]
  def forward(self: __torch__.torch.nn.modules.rnn.LSTM,
    x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    bias_hh_l1 = self.bias_hh_l1
    bias_ih_l1 = self.bias_ih_l1
    weight_hh_l1 = self.weight_hh_l1
    weight_ih_l1 = self.weight_ih_l1
    bias_hh_l0 = self.bias_hh_l0
    bias_ih_l0 = self.bias_ih_l0
    weight_hh_l0 = self.weight_hh_l0
    weight_ih_l0 = self.weight_ih_l0
    max_batch_size = ops.prim.NumToTensor(torch.size(x, 0))
    _0 = int(max_batch_size)
    hx = torch.zeros([2, int(max_batch_size), 6], dtype=6, layout=None, device=torch.device("cpu"), pin_memory=False)
    hx0 = torch.zeros([2, _0, 6], dtype=6, layout=None, device=torch.device("cpu"), pin_memory=False)
    _1 = [hx, hx0]
    _2 = [weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0, weight_ih_l1, weight_hh_l1, bias_ih_l1, bias_hh_l1]
    y, h, c = torch.lstm(x, _1, _2, True, 2, 0., False, False, True)
    return (y, h, c)
