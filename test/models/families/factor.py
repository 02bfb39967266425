# factor.py: the op fixture of the factor family (ops/factor.def): inverse,
# solve, Cholesky and triangular solves, unrolled in ONNX for static sizes.
# Run by make_fixtures.py in its namespace (r, SlimFixture, flat_cat, family, ...).


class OpFactor(nn.Module):
    def forward(self, a, b, bv, p, t, w):
        # a (2, 3, 3) well conditioned, its [0, 0] entries small (row swaps); b (3, 2);
        # bv (3,); p (3, 3) symmetric positive definite; t (3, 3) any (a triangle is read);
        # w (3, 5) a wide matrix for the rectangular LU
        inv, info = torch.linalg.inv_ex(a)
        x, xinfo = torch.linalg.solve_ex(a, b)
        lo = torch.linalg.cholesky(p)
        up, pinfo = torch.linalg.cholesky_ex(p, upper=True)
        tri, tcopy = torch.triangular_solve(b, t, upper=False)
        f = flat_cat(
            torch.linalg.inv(a), torch.inverse(a[0]), inv, x, torch.linalg.solve(a[1], bv),
            torch.linalg.solve(a[0], b.t(), left=False), lo, up,
            torch.cholesky_solve(b, lo), torch.cholesky_solve(b, up, upper=True), torch.cholesky_inverse(lo),
            torch.linalg.solve_triangular(t, b, upper=True),
            torch.linalg.solve_triangular(t, b.t(), upper=False, left=False, unitriangular=True), tri, tcopy)
        lu, piv = torch.linalg.lu_factor(a)
        lu2, piv2, linfo = torch.linalg.lu_factor_ex(w)
        P, L, U = torch.linalg.lu(w)
        P2, L2, U2 = torch.lu_unpack(lu, piv)
        lu3, piv3, info3 = torch.lu(a[1], get_infos=True)
        f2 = flat_cat(lu, lu2, P, L, U, P2, L2, U2, lu3,
                      torch.linalg.lu_solve(lu, piv, b), torch.linalg.lu_solve(lu, piv, b, adjoint=True),
                      torch.linalg.lu_solve(lu[0], piv[0], b.t(), left=False), torch.lu_solve(b, lu[1], piv[1]))
        g, tau = torch.geqrf(w.t())
        q, rr = torch.linalg.qr(a)
        qc, rc = torch.linalg.qr(w.t(), mode="complete")
        f3 = flat_cat(g, tau, q, rr, qc, rc, torch.linalg.householder_product(g, tau),
                      torch.ormqr(g, tau, w.t()[:, :2], transpose=True))
        e = torch.matrix_exp(p.double() / 4)      # float64 only (float32 is refused)
        return f, f2, f3, e, flat_cat(info, xinfo, pinfo, piv, piv2, linfo, piv3, info3)


def fx_op_factor():
    a = r(2, 3, 3) + 3 * torch.eye(3)
    a[:, 0, 0] = 0.05
    m = r(3, 3)
    p = m @ m.t() + 3 * torch.eye(3)
    t = r(3, 3) + 2 * torch.eye(3)
    return SlimFixture(OpFactor().eval(), (a, r(3, 2), r(3), p, t, r(3, 5)))


family(["op_factor"], versions=("2.14",), decomp=True)
