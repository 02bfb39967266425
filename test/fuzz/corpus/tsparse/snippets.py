def f(x: Tensor, n: int=3) -> Tuple[Tensor, Tensor]:
  a, b, = x
  c = -a ** 2 * b + 1e-05 if 0 < n <= 10 else [1., -inf, nan, 2.j, "a\"b\001\x41"]
  d = {"k": (x)[0:2], "m": d[::2]}
  while not c is not None and d not in e:
    c += 1
  with _0 as y:
    def g():
      return torch.add(x, alpha=1)
  assert x, "m"
  del l[0]
  raise
