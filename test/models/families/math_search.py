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
                     torch.ops.aten._logcumsumexp(x, 0),
                     amn, amx, amn2, amx2, torch.histc(x, bins=5, min=-1, max=1),
                     torch.histc(x, bins=4), torch.histc(xr, bins=3, min=-1, max=-1))
        i = flat_cat(mi, mi2, ni, mdi, ki, ki2, cmxi, cmni, cmxi2, cmni2, moi,
                     torch.bucketize(x, b), torch.bucketize(x, b, right=True),
                     torch.bucketize(x, b, out_int32=True),
                     # bucketize.Scalar: torch 2.6's fake-tensor kernel recurses
                     *([torch.bucketize(0.5, b)] if TV >= (2, 9) else []),
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


class OpSpecial(nn.Module):
    def forward(self, x, p, g):
        # x (3, 8) in (-4, 4); p (3, 8) in (0, 1); g (3, 8) in (0.05, 12)
        S = torch.special
        xz = torch.where(x.abs() < 0.6, 0.0, x)                  # exact zeros
        gn = torch.where(g > 10.5, float("nan"), g)               # NaN
        f = flat_cat(
            torch.erfc(x), S.erfc(x * 2), S.erfcx(x), S.erfcx(x * 2), S.ndtr(x), S.log_ndtr(x * 3),
            torch.erfinv(p * 2 - 1), S.erfinv(p * 1.998 - 0.999), S.ndtri(p), S.ndtri(p ** 12),
            torch.lgamma(g), S.gammaln(x), torch.digamma(g), S.psi(x), S.digamma(g),
            torch.polygamma(1, g), torch.polygamma(2, g), S.polygamma(3, g), torch.polygamma(0, g),
            torch.mvlgamma(g + 2, 3), S.multigammaln(g + 1, 1),
            torch.i0(x * 5), S.i0(x), S.i0e(x * 6), S.i1(x * 5), S.i1e(x * 6),
            torch.xlogy(x, g), torch.xlogy(2.0, g), torch.xlogy(xz, 3.0), S.xlogy(xz, gn),
            S.xlog1py(xz, p), S.entr(xz), S.entr(gn), torch.sinc(x), S.sinc(xz),
            torch.logaddexp(x, g), torch.logaddexp2(x, xz), S.expit(x), S.expm1(x), S.exp2(x),
            S.log1p(p), S.logit(p), S.logit(p, eps=0.1), S.round(x * 3), S.round(x, decimals=2),
            S.softmax(x, 1), S.log_softmax(x, 0), S.logsumexp(x, 1))
        return f


def fx_op_special():
    x = torch.rand(3, 8) * 8 - 4
    x[0, :3] = torch.tensor([0.0, -2.0, 1.0])                  # poles of lgamma / digamma
    return SlimFixture(OpSpecial().eval(), (x, torch.rand(3, 8) * 0.98 + 0.01,
                                            torch.rand(3, 8) * 11.95 + 0.05))


class OpMath2(nn.Module):
    def forward(self, x, y, e):
        # x (3, 6) floats with 0.0, -0.0, +-inf and NaN; y (3, 6) floats in (-3, 3) with a
        # zero; e (3, 6) int32 in [-4, 4]
        fm, fe = torch.frexp(x)
        fm2, fe2 = torch.frexp(y * 1000)
        f = flat_cat(torch.fmax(x, y), torch.fmin(x, y), torch.heaviside(x, y), torch.deg2rad(x),
                     torch.rad2deg(y), torch.exp2(y), torch.log10(y.abs() + 0.1),
                     torch.acosh(y.abs() + 1), torch.atanh(torch.tanh(y)), torch.sgn(y),
                     torch.ldexp(y, e), fm, fm2, torch.deg2rad(e))
        d = flat_cat(torch.float_power(y.abs(), 2), torch.float_power(y, e),
                     torch.float_power(2, y), torch.float_power(y, torch.tensor(0.5)))
        b = flat_cat(torch.signbit(x), torch.isposinf(x), torch.isneginf(x), torch.isreal(x))
        return f, d, flat_cat(fe, fe2), b


def fx_op_math2():
    x = torch.randn(3, 6) * 4
    x[0, :5] = torch.tensor([0.0, -0.0, float("inf"), -float("inf"), float("nan")])
    x[1, 0] = 0.5
    y = torch.rand(3, 6) * 6 - 3
    y[2, 2] = 0.0
    return SlimFixture(OpMath2().eval(), (x, y, torch.randint(-4, 5, (3, 6), dtype=torch.int32)))


class OpMath2Int(nn.Module):
    def forward(self, a, s, a32, s32, a16, s16, a8, s8, u8, su8):
        # a, s (12,) int64: values with large magnitudes and negatives, counts in [-2, 70);
        # the same for int32 (counts to 40), int16 (to 20), int8 (to 10), uint8 (to 10)
        L, R = torch.bitwise_left_shift, torch.bitwise_right_shift
        i64 = flat_cat(L(a, s), R(a, s), a << s, a >> s, L(a, 3), R(a, 2), L(5, s), R(-1000, s),
                       torch.gcd(a, s), torch.lcm(a % 1000, s), torch.fmax(a, s), torch.fmin(a, s),
                       torch.heaviside(a, s), torch.gcd(a, a * 3))
        i32 = flat_cat(L(a32, s32), R(a32, s32), a32 << s32, torch.gcd(a32, s32), torch.lcm(a32, s32))
        i16 = flat_cat(L(a16, s16), R(a16, s16), a16 >> s16)
        i8 = flat_cat(L(a8, s8), R(a8, s8), torch.gcd(a8, s8), torch.lcm(a8, s8))
        ub = flat_cat(L(u8, su8), R(u8, su8), u8 >> 3)
        b = flat_cat(torch.signbit(a), torch.isposinf(a), torch.isneginf(s), torch.isreal(a8))
        return i64, i32, i16, i8, ub, b


def fx_op_math2_int():
    a = torch.tensor([0, 1, -1, 7, -7, 123456789, -987654321, 2 ** 40 + 3, -(2 ** 62), 2 ** 62 - 1, 48, -36])
    s = torch.tensor([3, 0, 5, 63, 64, 70, -2, 12, 1, 2, 18, 24])
    a32 = torch.tensor([0, 1, -1, 7, -7, 123456, -98765, 2 ** 30, -(2 ** 31), 60, 48, -36], dtype=torch.int32)
    s32 = torch.tensor([3, 0, 5, 31, 32, 40, -2, 1, 1, 2, 18, 24], dtype=torch.int32)
    a16 = torch.tensor([0, 1, -1, 7, -7, 12345, -9876, 2 ** 14, -(2 ** 15), 60], dtype=torch.int16)
    s16 = torch.tensor([3, 0, 5, 15, 16, 20, -2, 1, 1, 2], dtype=torch.int16)
    a8 = torch.tensor([0, 1, -1, 7, -7, 100, -100, 64, -128, 60], dtype=torch.int8)
    s8 = torch.tensor([3, 0, 5, 7, 8, 10, -2, 1, 1, 2], dtype=torch.int8)
    u8 = torch.tensor([0, 1, 255, 7, 200, 100, 128, 64], dtype=torch.uint8)
    su8 = torch.tensor([3, 0, 5, 7, 8, 10, 1, 2], dtype=torch.uint8)
    return SlimFixture(OpMath2Int().eval(), (a, s, a32, s32, a16, s16, a8, s8, u8, su8))


class OpMatrix(nn.Module):
    def forward(self, x, v, iv):
        # x (3, 4) float; v (3,) float; iv (3,) int64
        z = x.view(3, 2, 2)
        f = flat_cat(
            torch.diag(v), torch.diag(v, 1), torch.diag(x), torch.diag(x, -1), torch.diag(x, 2),
            torch.diag_embed(x), torch.diag_embed(x, offset=-1, dim1=0, dim2=2), torch.diagflat(v),
            torch.diagflat(x, 1), torch.rot90(x), torch.rot90(x, 2), torch.rot90(x, -1, [1, 0]),
            torch.rot90(z, 1, [2, 0]), torch.kron(x, v[:2].view(1, 2)), torch.kron(v, x),
            torch.block_diag(x, v, v[0]), torch.cartesian_prod(v, v[:2]), torch.cartesian_prod(v),
            torch.cartesian_prod(v[:2], v, v[1:]), torch.tensordot(x, x.t(), 1),
            torch.tensordot(z, z, dims=([1, 2], [2, 1])), torch.tensordot(x, v, dims=([0], [0])),
            torch.vander(v), torch.vander(v, 4, increasing=True))
        i = flat_cat(torch.tril_indices(3, 4) + iv[0], torch.triu_indices(4, 3, 1) + iv[1],
                     torch.tril_indices(3, 3, -1) * iv[2], torch.vander(iv), torch.kron(iv, iv),
                     torch.diag(iv), torch.block_diag(iv.view(1, 3), iv[:2].view(2, 1)))
        return f, i


def fx_op_matrix():
    return SlimFixture(OpMatrix().eval(), (r(3, 4), r(3), torch.tensor([2, -1, 3])))


class OpVector(nn.Module):
    def forward(self, a, b):
        # a, b (4, 3) floats
        A = torch.ops.aten
        inf = float("inf")
        return flat_cat(
            torch.cross(a, b, dim=1), torch.linalg.cross(a, b), torch.cross(a[:3].t(), b[:3].t(), dim=0),
            torch.cdist(a, b), torch.cdist(a, b, p=1), torch.cdist(a.view(2, 2, 3), b.view(2, 2, 3), p=3),
            torch.cdist(a, b, p=inf), torch.dist(a, b), torch.dist(a, b, 1), torch.dist(a, b, inf),
            torch.dist(a, b, 0), A.norm.Scalar(a, 3), A.norm.ScalarOpt_dim(a, 1, [1], True),
            A.norm.ScalarOpt_dim(a, 2, [0]), torch.renorm(a, 2, 0, 1.0), torch.renorm(a, 1, 1, 2.0),
            torch.linalg.norm(a), torch.linalg.norm(a, dim=1), torch.linalg.norm(a, 3, dim=0),
            torch.linalg.norm(a, "fro"), torch.linalg.norm(a, 1), torch.linalg.norm(a, inf, dim=(0, 1)),
            torch.linalg.norm(a[0], -1), torch.linalg.matrix_norm(a), torch.linalg.matrix_norm(a, 1),
            torch.linalg.matrix_norm(a, -inf, keepdim=True), torch.linalg.matrix_norm(a.view(2, 2, 3), -1),
            F.cosine_similarity(a, b), F.cosine_similarity(a, b[:1], dim=1),
            F.cosine_similarity(a, b, dim=0, eps=0.5), F.pairwise_distance(a, b),
            F.pairwise_distance(a, b, p=1, keepdim=True), torch.trapezoid(a),
            torch.trapezoid(a, dx=0.5, dim=0), torch.trapz(a, b), torch.trapezoid(a, torch.arange(3.0) ** 2),
            torch.trapz(a, dx=2.0), torch.cumulative_trapezoid(a), torch.cumulative_trapezoid(a, dx=0.5, dim=0),
            torch.cumulative_trapezoid(a, b, dim=0))


def fx_op_vector():
    return SlimFixture(OpVector().eval(), (r(4, 3), r(4, 3)))


class OpStats(nn.Module):
    def forward(self, x, xn, q, m):
        # x (3, 5) distinct floats; xn (3, 5) with NaNs (row 2 all NaN); q (3,) quantiles in
        # [0, 1]; m (2, 3, 3) matrices (m[1] with a negative determinant)
        f = flat_cat(
            torch.quantile(x, 0.3), torch.quantile(x, 0.5, dim=1), torch.quantile(x, q, dim=0, keepdim=True),
            torch.quantile(x, q), torch.quantile(x, q, dim=1, interpolation="lower"),
            torch.quantile(x, 0.4, dim=1, keepdim=True, interpolation="higher"),
            torch.quantile(x, q, dim=-1, interpolation="nearest"),
            torch.quantile(x, 0.7, dim=0, interpolation="midpoint"), torch.quantile(xn, 0.5, dim=1),
            torch.quantile(x, 0.25, keepdim=True),
            torch.nanquantile(xn, 0.5, dim=1), torch.nanquantile(xn, q, dim=1, interpolation="midpoint"),
            torch.nanquantile(xn, 0.2), torch.nanmean(xn), torch.nanmean(xn, dim=1),
            torch.nanmean(xn, dim=(0, 1), keepdim=True), torch.nanmean(x, 0),
            torch.linalg.det(m), torch.det(m[0]), torch.logdet(m), torch.linalg.slogdet(m).sign,
            torch.linalg.slogdet(m).logabsdet, torch.slogdet(m[0])[1])
        return f


def fx_op_stats(nans=True):
    x = torch.randperm(15).float().view(3, 5) / 4 - 1.7
    xn = torch.randn(3, 5)
    if nans:
        xn[0, 1] = xn[1, 0] = xn[1, 3] = float("nan")
        xn[2] = float("nan")
    m = torch.randn(2, 3, 3) + 2 * torch.eye(3)
    m[1] = m[1][[1, 0, 2]]
    return SlimFixture(OpStats().eval(), (x, xn, torch.tensor([0.0, 0.35, 1.0]), m))


class OpMathHalf(nn.Module):
    def forward(self, h, b):
        # h (2, 6) float16, b (2, 6) bfloat16, both in (-2, 2); every result below 8 in
        # magnitude (one float16 ulp there is 0.0078, within the 1e-2 bound)
        outs = []
        for x in (h, b):
            a = x.abs()
            outs.append(flat_cat(
                torch.erfc(x), torch.erfinv(x * 0.45), torch.lgamma(a + 0.5), torch.digamma(a + 0.5),
                torch.i0(x), torch.special.i1e(x),
                torch.xlogy(a, a + 1), torch.sinc(x), torch.logaddexp(x, x * 2), torch.exp2(x),
                torch.log10(a + 0.1), torch.deg2rad(x), torch.fmax(x, -x), torch.heaviside(x, a),
                torch.median(x, 1).values, torch.kthvalue(x, 2).values, torch.cummax(x, 1).values,
                torch.logcumsumexp(x, 1), torch.searchsorted(torch.sort(x[0]).values, x[1]).to(x.dtype),
                torch.rot90(x), torch.diag(x[0])))
        return outs[0], outs[1]


def fx_op_math_half():
    t = torch.rand(2, 2, 6) * 4 - 2
    return SlimFixture(OpMathHalf().eval(), (t[0].half(), t[1].to(torch.bfloat16)))


class OpSpecialPoly(nn.Module):
    def forward(self, x):
        # x (24,): in (-1.2, 1.2) with -1, 1 and 0 among them
        S = torch.special
        outs = []
        for n in (0, 1, 3, 7, 10):
            outs += [S.chebyshev_polynomial_t(x, n), S.chebyshev_polynomial_u(x, n),
                     S.chebyshev_polynomial_v(x, n), S.chebyshev_polynomial_w(x, n),
                     S.hermite_polynomial_h(x, n), S.hermite_polynomial_he(x, n),
                     S.laguerre_polynomial_l(x, n), S.legendre_polynomial_p(x, n)]
        return torch.stack(outs)


def fx_op_special_poly():
    x = torch.rand(24) * 2.4 - 1.2
    x[:3] = torch.tensor([-1.0, 1.0, 0.0])
    return SlimFixture(OpSpecialPoly().eval(), (x,))


def fx_op_stats_nonan():
    # core ATen decomposes quantile into aten.sort, whose TopK lowering does not order NaN
    # last as torch does: the _decomp twin has no NaN
    return fx_op_stats(nans=False)


MATH_SEARCH = ["op_search", "op_search_int", "op_special", "op_math2", "op_math2_int", "op_matrix",
               "op_vector", "op_stats", "op_math_half", "op_special_poly"]


def _deflated(builder):
    """The builder with its archive's graph record deflated (deflate_min, see README
    "tv_resnet18"): these graphs are many small nodes, a sixth of their size deflated."""
    def build(*args, **kw):
        fx = builder(*args, **kw)
        fx.deflate_min = 1024
        return fx
    return build


for _n in MATH_SEARCH + ["op_stats_nonan"]:
    globals()["fx_" + _n] = _deflated(globals()["fx_" + _n])
DECOMP_BUILDER["op_stats"] = "fx_op_stats_nonan"
# torch 2.6 cannot export quantile with a tensor q (a data-dependent aten.equal check)
family([n for n in MATH_SEARCH if n != "op_stats"], versions=("2.14", "2.6"), decomp=True)
family(["op_stats"], versions=("2.14",), decomp=True)
