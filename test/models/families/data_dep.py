# data_dep.py: data-dependent results (family "data_dep", issue 10 family 7): boolean
# masks (masked_select, x[mask], x[mask] = v, masked_scatter), unique in all its forms
# (_unique2, unique_dim, unique_consecutive with and without dim, inverse and counts),
# nonzero_static (padding and truncation) and argwhere. Their sizes are unbacked symbols;
# every result goes into one flat float tensor (flat_cat; ints are exact in float32).

def _dd_ints(seed, shape, lo=-2, hi=3):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(lo, hi, shape, generator=g).float()


def _dd_input(seed):
    """(4, 5) small integers with repeated values, row 2 a copy of row 0 (unique_dim finds
    a duplicate row) and columns 1 and 2 equal (unique_consecutive over dim 1 merges them)."""
    x = _dd_ints(seed, (4, 5))
    x[2] = x[0]
    x[:, 2] = x[:, 1]
    return x


def _dd_dense(t):
    """unique over dim 1 (and argwhere in torch 2.6) returns a tensor that is not contiguous on CPU while its meta
    says it is, so the decomposed flat_cat's view(-1) fails on it: an explicit copy."""
    return t.clone(memory_format=torch.contiguous_format)


class OpDataDep(nn.Module):
    def __init__(self, consecutive=True):
        super().__init__()
        self.consecutive = consecutive

    def forward(self, x, s):
        # x (4, 5) small integers (see _dd_input); s (20,) the masked_scatter source
        m = x > 0
        sel = torch.masked_select(x, m)                       # 1-D, count(m)
        sel_b = torch.masked_select(x, m[:1])                 # the mask broadcasts over rows
        idx = x[m]                                            # index.Tensor, bool index
        put = x.clone()
        put[m] = -7.0                                         # index_put_, bool index, scalar
        put[x[:, 0] < 0] = s[:5]                              # a row mask, rows broadcast
        u, inv, cnt = torch.unique(x, sorted=True, return_inverse=True, return_counts=True)
        u1 = torch.unique(x[1])                               # sorted, values only
        ui, invi = torch.unique(x.int(), sorted=False, return_inverse=True)   # int32; torch
        ub = torch.unique(m)                                  # sorts anyway; bool
        ud, invd, cntd = torch.unique(x, dim=0, return_inverse=True, return_counts=True)
        ud1 = _dd_dense(torch.unique(x, dim=1))
        consec = ()
        if self.consecutive:
            uc, invc, cntc = torch.unique_consecutive(x, return_inverse=True, return_counts=True)
            ucd, invcd, cntcd = torch.unique_consecutive(x, dim=1, return_inverse=True,
                                                         return_counts=True)
            consec = (uc, invc, cntc, _dd_dense(ucd), invcd, cntcd)
        nz_pad = torch.nonzero_static(m, size=24, fill_value=-1)   # more rows than trues
        nz_cut = torch.nonzero_static(m, size=3)                   # fewer: the first 3
        aw = _dd_dense(torch.argwhere(x < 0))                 # (the same in torch 2.6)
        ms = x.masked_scatter(m, s.reshape(4, 5))
        return flat_cat(sel, sel_b, idx, put, u, inv, cnt, u1, ui, invi, ub, ud, invd, cntd,
                        ud1, *consec, nz_pad, nz_cut, aw, ms)


def fx_op_data_dep(consecutive=True):
    def without():
        return fx_op_data_dep(False)
    return SlimFixture(OpDataDep(consecutive), (_dd_input(1), r(20)),
                       cases=[("other values", (_dd_input(2), r(20))),
                              ("all positive", (_dd_ints(3, (4, 5), 1, 3), r(20)))],
                       fallback=("without unique_consecutive (torch 2.6 has no meta kernel for it)",
                                 without) if consecutive else None)


family(["op_data_dep"], versions=("2.14", "2.6"), decomp=True)
DEFAULT_SET["2.6"].discard("op_data_dep_decomp")  # the fixture budget: one core-ATen twin is enough
