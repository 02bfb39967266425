class LSTM(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  lstm : __torch__.torch.nn.modules.rnn.___torch_mangle_88.LSTM
  fc : __torch__.torch.nn.modules.linear.___torch_mangle_89.Linear
  def forward(self: __torch__.___torch_mangle_90.LSTM,
    x: Tensor) -> Tensor:
    lstm = self.lstm
    y, _0, = (lstm).forward__0(x, None, )
    h, c, = _0
    fc = self.fc
    _1 = (fc).forward(torch.select(torch.slice(y), 1, -1), )
    _2 = torch.add(torch.add(_1, torch.sum(h)), torch.mean(c))
    return _2
