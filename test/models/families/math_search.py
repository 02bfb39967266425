# math_search.py: op fixtures of the search, special-function and math families
# (ops/search.def, ops/special.def, ...): order statistics, searches, histograms,
# running extrema, special functions and the pointwise math torch has beyond ONNX.
# Run by make_fixtures.py in its namespace (r, SlimFixture, flat_cat, family, ...).


class OpSearch(nn.Module):
    def forward(self, x, xn, b, bu, q):
        # x (3, 6) distinct floats in (-1.5, 1.5), some equal to boundaries; xn (2, 5) with
        # NaNs (row 1 all but one); b (5,) sorted boundaries; bu (5,) b shuffled; q (3, 4)
        # sorted rows
        xr = (x * 2).round()                                  # repeated values
        mv, mi = torch.median(x, dim=1)
        mv2, mi2 = torch.median(x, 0, keepdim=True)
        nv, ni = torch.nanmedian(xn, dim=1)
        md, mdi = torch.median(xn, dim=-1, keepdim=True)
        kv, ki = torch.kthvalue(x, 2, dim=1)
        kv2, ki2 = torch.kthvalue(x, 3, dim=0, keepdim=True)
        cmx, cmxi = torch.cummax(x, dim=1)
        cmn, cmni = torch.cummin(xn, dim=1)
        cmx2, cmxi2 = torch.cummax(xr, 0)
        cmn2, cmni2 = torch.cummin(xr, -1)
        mo, moi = torch.mode(xr, 1)
        amn, amx = torch.aminmax(x, dim=0)
        amn2, amx2 = torch.aminmax(x)
        f = flat_cat(torch.median(x), torch.nanmedian(xn), mv, mv2, nv, md, kv, kv2, cmx, cmn,
                     cmx2, cmn2, mo, torch.logcumsumexp(x * 30, dim=1), torch.logcumsumexp(xn, 0),
                     amn, amx, amn2, amx2, torch.histc(x, bins=5, min=-1, max=1),
                     torch.histc(x, bins=4), torch.histc(xr, bins=3, min=-1, max=-1))
        i = flat_cat(mi, mi2, ni, mdi, ki, ki2, cmxi, cmni, cmxi2, cmni2, moi,
                     torch.bucketize(x, b), torch.bucketize(x, b, right=True),
                     torch.bucketize(x, b, out_int32=True), torch.bucketize(0.5, b),
                     torch.searchsorted(b, x), torch.searchsorted(b, x, right=True),
                     torch.searchsorted(q, x[:, :4]), torch.searchsorted(q, x[:, 2:], side="right"),
                     torch.searchsorted(bu, x, sorter=torch.argsort(bu)),
                     torch.searchsorted(b, 0.25, out_int32=True))
        return f, i


def fx_op_search():
    x = torch.randperm(18).float().view(3, 6) / 6 - 1.45
    x[0, 1], x[1, 3], x[2, 0] = 0.5, -1.0, 0.0
    xn = torch.randn(2, 5)
    xn[0, 1] = xn[1, 0] = xn[1, 2] = xn[1, 3] = xn[1, 4] = float("nan")
    b = torch.tensor([-1.0, -0.5, 0.0, 0.5, 1.0])
    q = torch.sort(torch.randn(3, 4), dim=1).values
    return SlimFixture(OpSearch().eval(), (x, xn, b, b[torch.tensor([3, 0, 4, 1, 2])], q))


class OpSearchInt(nn.Module):
    def forward(self, xi, xd, bi):
        # xi (3, 8) int64 in [0, 4) (ties); xd (2, 6) int32, distinct; bi (4,) int64 sorted
        mo, moi = torch.mode(xi)
        mo2, moi2 = torch.mode(xi, 0, keepdim=True)
        mv, mi = torch.median(xd, 1)
        kv, ki = torch.kthvalue(xd, 4)
        cx, cxi = torch.cummax(xi, 1)
        cn, cni = torch.cummin(xd, 0)
        amn, amx = torch.aminmax(xd, dim=1, keepdim=True)
        return flat_cat(mo, moi, mo2, moi2, mv, mi, kv, ki, cx, cxi, cn, cni, amn, amx,
                        torch.median(xd), torch.bucketize(xi, bi), torch.searchsorted(bi, xi, right=True),
                        torch.bucketize(xd, bi, right=True))


def fx_op_search_int():
    xi = torch.randint(0, 4, (3, 8))
    xd = (torch.randperm(12).view(2, 6) * 3 - 10).int()
    return SlimFixture(OpSearchInt().eval(), (xi, xd, torch.tensor([0, 1, 1, 3])))


family(["op_search", "op_search_int"], versions=("2.14", "2.6"), decomp=True)
