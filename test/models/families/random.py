# random.py: random ops, training-mode dropout, weight norm, and dead nodes.
#
# A random output cannot match torch's numbers, so op_random returns checks computed
# inside the model from 20,000 draws each: values in range, integer-valued, mean and
# standard deviation within bounds ten standard errors wide, dropout's zero fraction
# and its 1 / (1 - p) scale, permutations that sort to arange, samples without
# replacement that are distinct. Each check is a bool (as a float in one flat_cat);
# torch's reference is all ones (the builder checks that under several seeds), and a
# lowering with the wrong distribution, range, dtype or scale makes some check 0.

N = (100, 200)          # 20,000 draws per check


def _near(s, m, tol):
    return (s.double().mean() - m).abs() < tol


def _std_near(s, sd, tol):
    return (s.double().std() - sd).abs() < tol


class OpRandom(nn.Module):
    def forward(self, x):
        # base: zeros of shape N that depend on the input, for the *_like ops
        base = torch.zeros(N) + x.sum() * 0
        ck = []
        u = torch.rand(N)
        ck += [(u >= 0).all(), (u < 1).all(), _near(u, 0.5, 0.02), _std_near(u, 12 ** -0.5, 0.02)]
        z = torch.randn(N, dtype=torch.float64)
        ck += [_near(z, 0, 0.07), _std_near(z, 1, 0.07)]
        u = torch.rand_like(base)
        ck += [(u >= 0).all(), (u < 1).all(), _near(u, 0.5, 0.02)]
        z = torch.randn_like(base)
        ck += [_near(z, 0, 0.07), _std_near(z, 1, 0.07)]
        i = torch.randint(5, N)
        ck += [(i >= 0).all(), (i < 5).all()] + [_near((i == k).float(), 0.2, 0.03) for k in range(5)]
        i = torch.randint(2, 7, N)
        ck += [(i >= 2).all(), (i <= 6).all(), _near(i, 4.0, 0.1)]
        i = torch.randint_like(base, 7)
        ck += [(i == i.floor()).all(), (i >= 0).all(), (i <= 6).all(), _near(i, 3.0, 0.1)]
        i = torch.randint_like(base, 3, 9)
        ck += [(i == i.floor()).all(), (i >= 3).all(), (i <= 8).all(), _near(i, 5.5, 0.12)]
        b = torch.bernoulli(base + 0.3)
        ck += [((b == 0) | (b == 1)).all(), _near(b, 0.3, 0.035)]
        b = torch.bernoulli(base, 0.7)
        ck += [((b == 0) | (b == 1)).all(), _near(b, 0.7, 0.035)]
        z = torch.normal(base + 2, 3.0)
        ck += [_near(z, 2, 0.21), _std_near(z, 3, 0.21)]
        z = torch.normal(1.0, base + 0.5)
        ck += [_near(z, 1, 0.035), _std_near(z, 0.5, 0.035)]
        z = torch.normal(base - 1, base + 2)
        ck += [_near(z, -1, 0.14), _std_near(z, 2, 0.14)]
        z = torch.normal(1.0, 2.0, N)
        ck += [_near(z, 1, 0.14), _std_near(z, 2, 0.14)]
        u = torch.empty_like(base).uniform_(-1, 2)
        ck += [(u >= -1).all(), (u < 2).all(), _near(u, 0.5, 0.06), _std_near(u, 3 * 12 ** -0.5, 0.06)]
        e = torch.empty_like(base).exponential_(2.0)
        ck += [(e >= 0).all(), _near(e, 0.5, 0.035), _std_near(e, 0.5, 0.05)]
        p = torch.randperm(50)
        ck += [(p.sort().values == torch.arange(50)).all(), p.dtype == torch.int64 and (p >= 0).all()]
        w = torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0]) + x.sum() * 0      # weights, unnormalized
        m = torch.multinomial(w, 20000, replacement=True)
        ck += [(m != 0).all()] + [_near((m == k).float(), k / 10, 0.035) for k in range(1, 5)]
        m = torch.multinomial(w.expand(2000, 5), 3)
        ck += [(m != 0).all(), ((m[:, 0] != m[:, 1]) & (m[:, 0] != m[:, 2]) & (m[:, 1] != m[:, 2])).all(),
               _near((m[:, 0] == 4).float(), 0.4, 0.11)]
        ones = base + 1
        d = F.dropout(ones, 0.3, training=True)
        ck += [_near((d == 0).float(), 0.3, 0.035), ((d == 0) | ((d - 1 / 0.7).abs() < 1e-5)).all()]
        d = F.dropout1d(torch.ones(20, 1000, 3) + x.sum() * 0, 0.3, training=True)
        ck += [(d.amax(-1) == d.amin(-1)).all(), _near((d[..., 0] == 0).float(), 0.3, 0.035),
               ((d == 0) | ((d - 1 / 0.7).abs() < 1e-5)).all()]
        a = F.alpha_dropout(ones, 0.3, training=True)
        al, p_ = 1.7580993408473766, 0.3
        ka = 1 / ((al * al * p_ + 1) * (1 - p_)) ** 0.5
        kept, dropped = ka * (1 + al * p_), ka * al * (p_ - 1)
        ck += [((a - kept).abs() < 1e-4).logical_or((a - dropped).abs() < 1e-4).all(),
               _near(((a - dropped).abs() < 1e-4).float(), 0.3, 0.035)]
        # the in-place forms
        z = torch.empty_like(base).normal_(1.0, 2.0)
        ck += [_near(z, 1, 0.14), _std_near(z, 2, 0.14)]
        b = torch.empty_like(base).bernoulli_(0.3)
        ck += [((b == 0) | (b == 1)).all(), _near(b, 0.3, 0.035)]
        d = F.dropout(base + 1, 0.3, training=True, inplace=True)
        ck += [_near((d == 0).float(), 0.3, 0.035), ((d == 0) | ((d - 1 / 0.7).abs() < 1e-5)).all()]
        d = F.dropout1d(torch.ones(20, 1000, 3) + x.sum() * 0, 0.3, training=True, inplace=True)
        ck += [(d.amax(-1) == d.amin(-1)).all(), _near((d[..., 0] == 0).float(), 0.3, 0.035)]
        a = F.alpha_dropout(base + 1, 0.3, training=True, inplace=True)
        ck += [((a - kept).abs() < 1e-4).logical_or((a - dropped).abs() < 1e-4).all(),
               _near(((a - dropped).abs() < 1e-4).float(), 0.3, 0.035)]
        # feature alpha dropout: one draw per (sample, channel)
        a = F.feature_alpha_dropout(torch.ones(20, 1000, 3) + x.sum() * 0, 0.3, training=True)
        ck += [(a.amax(-1) == a.amin(-1)).all(),
               ((a - kept).abs() < 1e-4).logical_or((a - dropped).abs() < 1e-4).all(),
               _near(((a[..., 0] - dropped).abs() < 1e-4).float(), 0.3, 0.035)]
        return torch.stack([torch.as_tensor(c) for c in ck]).float()


def fx_op_random():
    m = OpRandom().eval()
    x = r(2, 3)
    for seed in range(5):            # the checks hold for torch's own draws
        torch.manual_seed(seed)
        got = m(x)
        if not bool((got == 1).all()):
            raise RuntimeError("op_random: torch fails checks %s under seed %d"
                               % ((got == 0).nonzero().flatten().tolist(), seed))
    fx = SlimFixture(m, (x,))
    fx.deflate_min = 64             # 500 nodes of checks: their JSON deflates 10x
    return fx


class OpWeightNorm(nn.Module):
    """Weight norm on Conv1d both ways (torch.nn.utils.weight_norm: _weight_norm of
    weight_v, weight_g; parametrizations.weight_norm: the same op on original0/1), one
    on dim 1 and one over the whole weight (dim None: -1)."""

    def __init__(self):
        super().__init__()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.a = nn.utils.weight_norm(nn.Conv1d(2, 3, 3))
            self.c = nn.utils.weight_norm(nn.Conv1d(2, 3, 3), dim=None)
        self.b = nn.utils.parametrizations.weight_norm(nn.Conv1d(2, 3, 3, padding=1), dim=1)
        with torch.no_grad():
            self.a.weight_g.mul_(torch.rand(self.a.weight_g.shape) + 0.5)
            self.c.weight_g.mul_(1.7)
            self.b.parametrizations.weight.original0.mul_(
                torch.rand(self.b.parametrizations.weight.original0.shape) + 0.5)

    def forward(self, x):
        # _weight_norm_interface directly: (w, the norms over dims 1, 2)
        w, nrm = torch._weight_norm_interface(self.a.weight_v * 1.5, self.a.weight_g, 0)
        return flat_cat(self.a(x), self.b(x), self.c(x), w, nrm)


def fx_op_weight_norm():
    return SlimFixture(liven(OpWeightNorm()).eval(), (r(2, 2, 8),))


class OpDead(nn.Module):
    """Nodes no output needs: LayerDrop's draw (torch.rand([]) compared with the
    layerdrop rate, read only in training), a histc (no ONNX lowering) and a reduction
    of it; an in-place update of a buffer stays (a side effect)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.register_buffer("calls", torch.zeros(()))

    def forward(self, x):
        skip = torch.rand([]) < 0.1
        if self.training and skip:
            return x
        h = torch.histc(x, bins=4)
        _unused = h.sum() + 1
        self.calls.add_(1)
        return self.lin(x).relu()


def fx_op_dead():
    return SlimFixture(liven(OpDead()).eval(), (r(3, 4),))


family(["op_random", "op_weight_norm", "op_dead"], versions=("2.14", "2.6"), decomp=True)
