"""make_typer_cases.py: torch's answers for the ops meta.def has no row for,
as test/unit/meta/typer-cases.txt (the format of cases.txt, make_cases.py).

Every ATen overload with a lowering (lib/lower/ops/*.def) or a
decomposition (lib/lower/decomp.def) and no row of lib/ir/meta.def is typed
by lib/lower/typer.c, from its lowering.  test_meta.c checks that each one
is typed on a typical call and agrees with torch there, or is listed in
no-rule.txt with the reason the typer gives.  This script finds the typical
call: the op's schema filled in generically (tensors float32 of one of a few
shapes, index-like tensors int64 zeros, ints 1, sizes [2, 3], defaults for
the rest; per-op arguments below where that does not fit), the first shape
torch accepts; the op is left out when none is.

    ../shared/tools/torch-env.sh run sid python3 test/unit/meta/make_typer_cases.py
"""
import os
import re
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.argv = sys.argv[:1]
import make_cases as mc  # noqa: E402  (its module body records cases.txt's calls: dropped)

ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
T, f32, i64 = mc.T, mc.f32, mc.i64


def rows(path, pat):
    with open(os.path.join(ROOT, path)) as f:
        return re.findall(pat, f.read(), re.M)


def lowered_ops():
    ops = []
    lib = os.path.join(ROOT, "lib/lower/ops")
    for name in sorted(os.listdir(lib)):
        if name.endswith(".def"):
            ops += rows("lib/lower/ops/" + name, r'^OP\("(aten\.[^"]+)"')
    ops += rows("lib/lower/decomp.def", r'^DECOMP\("(aten\.[^"]+)"')
    return sorted(set(ops))


def meta_rows():
    return set("aten." + r for r in rows("lib/ir/meta.def", r'^X\("([^"]+)"'))


def has_row(op, meta):
    """meta.c's lookup: NAME.OVERLOAD, then NAME; an in-place op by its out-of-place form."""
    base = op.rsplit(".", 1)[0]
    if op in meta or base in meta:
        return True
    name, _, ov = op[5:].partition(".")
    if name.endswith("_") and not name.endswith("__"):
        return has_row("aten.%s.%s" % (name[:-1], ov), meta)
    return False


SHAPES = [(3, 4), (2, 3, 4), (1, 2, 4, 4), (4,), (3, 3), (2, 3, 3), (1, 2, 3, 4, 4), (2, 4, 4)]
INDEX_NAMES = ("index", "indices", "target", "offsets", "boundaries", "sorted_sequence", "pivots", "LU_pivots",
               "per_sample_weights_i", "repeats")
SPECIAL = {
    # op -> positional arguments (the rest are defaults)
    "aten.embedding_bag.padding_idx": (T(10, 3), T(4, dtype=i64), T(2, dtype=i64), False, 0, False, None, False,
                                       None),
    "aten._embedding_bag.default": (T(10, 3), T(4, dtype=i64), T(2, dtype=i64)),
    "aten.histc.default": (T(10),),
    "aten.take_along_dim.default": (T(3, 4), T(3, 2, dtype=i64), 1),
    "aten.grid_sampler.default": (T(1, 2, 4, 4), T(1, 3, 3, 2), 0, 0, False),
    "aten.grid_sampler_2d.default": (T(1, 2, 4, 4), T(1, 3, 3, 2), 0, 0, False),
    "aten.affine_grid_generator.default": (T(1, 2, 3), [1, 2, 4, 4], False),
    "aten.nll_loss.default": (T(3, 4), T(3, dtype=i64)),
    "aten.nll_loss_nd.default": (T(3, 4), T(3, dtype=i64)),
    "aten.nll_loss2d.default": (T(2, 4, 3, 3), T(2, 3, 3, dtype=i64)),
    "aten.cross_entropy_loss.default": (T(3, 4), T(3, dtype=i64)),
    "aten.multinomial.default": (T(3, 4), 2),
    "aten.kron.default": (T(2, 3), T(3, 2)),
    "aten.cross.default": (T(4, 3), T(4, 3)),
    "aten.linalg_cross.default": (T(4, 3), T(4, 3)),
    "aten.im2col.default": (T(1, 2, 4, 4), [2, 2], [1, 1], [0, 0], [1, 1]),
    "aten.col2im.default": (T(1, 8, 9), [4, 4], [2, 2], [1, 1], [0, 0], [1, 1]),
    "aten.max_unpool2d.default": (T(1, 2, 2, 2), T(1, 2, 2, 2, dtype=i64), [4, 4]),
    "aten.max_unpool3d.default": (T(1, 2, 2, 2, 2), T(1, 2, 2, 2, 2, dtype=i64), [4, 4, 4], [2, 2, 2], [0, 0, 0]),
    "aten.channel_shuffle.default": (T(1, 4, 3, 3), 2),
    "aten.native_channel_shuffle.default": (T(1, 4, 3, 3), 2),
    "aten.tensordot.default": (T(2, 3, 4), T(3, 4, 5), [1, 2], [0, 1]),
    "aten.vander.default": (T(4),),
    "aten.linalg_vander.default": (T(4),),
    "aten.rot90.default": (T(3, 4), 1, [0, 1]),
    "aten.lu_unpack.default": (T(3, 3), T(3, dtype=torch.int32)),
    "aten.linalg_lu_solve.default": (T(3, 3), T(3, dtype=torch.int32), T(3, 2)),
    "aten.lu_solve.default": (T(3, 2), T(3, 3), T(3, dtype=torch.int32)),
    "aten.triangular_solve.default": (T(3, 2), T(3, 3)),
    "aten.linalg_solve_triangular.default": (T(3, 3), T(3, 2)),
    "aten.cholesky_solve.default": (T(3, 2), T(3, 3)),
    "aten.linalg_householder_product.default": (T(4, 3), T(3)),
    "aten.ormqr.default": (T(4, 3), T(3), T(4, 2)),
    "aten.stft.default": (T(64), 16, 4, 16, None, False, True, False),
    "aten.bucketize.Scalar": (0.5, T(4)),
    "aten.searchsorted.Scalar": (T(4), 0.5),
    "aten.tril_indices.default": (3, 3),
    "aten.triu_indices.default": (3, 3),
    "aten.fft_fftfreq.default": (4,),
    "aten.fft_rfftfreq.default": (4,),
    "aten.logspace.default": (0.0, 1.0, 5),
    "aten.sum_to_size.default": (T(2, 3), [1, 3]),
    "aten.bilinear.default": (T(2, 3), T(2, 4), T(5, 3, 4)),
    "aten.cdist.default": (T(3, 4), T(2, 4)),
    "aten._cdist_forward.default": (T(3, 4), T(2, 4), 2.0, None),
    "aten.select_scatter.default": (T(3, 4), T(4), 0, 1),
    "aten.slice_scatter.default": (T(3, 4), T(1, 4), 0, 1, 2),
    "aten.diagonal_scatter.default": (T(3, 3), T(3)),
    "aten.as_strided.default": (T(3, 4), [2, 2], [1, 2]),
    "aten.as_strided_scatter.default": (T(3, 4), T(2, 2), [2, 2], [1, 2]),
    "aten.linalg_matrix_power.default": (T(3, 3), 2),
    "aten.isin.Tensor_Tensor": (T(3, 4), T(2)),
    "aten.isin.Tensor_Scalar": (T(3, 4), 0.5),
    "aten.view_as.default": (T(3, 4), T(4, 3)),
    "aten.addmv.default": (T(3), T(3, 4), T(4)),
    "aten.addr.default": (T(3, 4), T(3), T(4)),
    "aten.addbmm.default": (T(3, 5), T(2, 3, 4), T(2, 4, 5)),
    "aten.inner.default": (T(3, 4), T(2, 4)),
    "aten.vdot.default": (T(4), T(4)),
    "aten.linalg_vecdot.default": (T(3, 4), T(3, 4)),
    "aten.linalg_multi_dot.default": ([T(2, 3), T(3, 4)],),
    "aten.margin_ranking_loss.default": (T(4), T(4), T(4)),
    "aten.cosine_embedding_loss.default": (T(3, 4), T(3, 4), T(3)),
    "aten.triplet_margin_loss.default": (T(3, 4), T(3, 4), T(3, 4)),
    "aten.max_pool1d_with_indices.default": (T(1, 2, 6), [2]),
    "aten.float_power.Scalar": (2.0, T(3, 4)),
    "aten._weight_norm_interface.default": (T(3, 4), T(3, 1)),
}


def try_call(op, args):
    base, ov = op[5:].split(".", 1)
    n = len(mc.LINES)
    mc.case("%s.%s" % (base, ov), *args)
    return len(mc.LINES) > n and " -> error" not in mc.LINES[-1]


def generic(schema, shape):
    """Positional arguments for the schema's required ones; None when one
    has a type this does not fill."""
    out = []
    for a in schema.arguments:
        if a.has_default_value() or a.kwarg_only:
            break
        t = str(a.type)
        if t in ("Tensor", "Tensor?"):
            out.append(T(*shape, dtype=i64) if a.name in INDEX_NAMES else T(*shape))
        elif t in ("Tensor[]", "List[Tensor]", "Tensor?[]", "List[Optional[Tensor]]"):
            out.append([T(*shape), T(*shape)])
        elif t in ("int", "SymInt"):
            out.append(0 if a.name.startswith("dim") else 1)
        elif t in ("int[]", "SymInt[]", "List[int]") or t.startswith("int[") or t.startswith("SymInt["):
            out.append([1] if "dim" in a.name else list(shape))
        elif t in ("float", "Scalar", "number"):
            out.append(0.5)
        elif t == "bool":
            out.append(False)
        elif t == "str":
            return None
        else:
            return None
    return out


def main():
    meta = meta_rows()
    want = [op for op in lowered_ops() if not has_row(op, meta)]
    mc.LINES.clear()
    mc.SEEN.clear()
    missing = []
    for op in want:
        base, ov = op[5:].split(".", 1)
        try:
            schema = getattr(getattr(torch.ops.aten, base), ov)._schema
        except (AttributeError, RuntimeError):
            missing.append(op + "  # not in torch %s" % torch.__version__)
            continue
        if op in SPECIAL and try_call(op, SPECIAL[op]):
            continue
        done = False
        for shape in SHAPES:
            args = generic(schema, shape)
            if args is not None and try_call(op, args):
                done = True
                break
        if not done:
            # keep the error lines out: only typed calls torch answers
            while mc.LINES and mc.LINES[-1].startswith(op + " ") and " -> error" in mc.LINES[-1]:
                mc.LINES.pop()
            missing.append(op)
    lines = [x for x in mc.LINES if " -> error" not in x]
    out = os.path.join(HERE, "typer-cases.txt")
    with open(out, "w") as f:
        f.write("# make_typer_cases.py's output (torch %s): a typical call of each lowered or decomposed op\n"
                "# meta.def has no row for, torch's result after '->' (cases.txt's format).\n"
                "# Regenerate with: ../shared/tools/torch-env.sh run sid python3 test/unit/meta/make_typer_cases.py\n"
                % torch.__version__)
        for line in lines:
            f.write(line + "\n")
        for op in missing:
            f.write("# no typical call: %s\n" % op)
    print("%d ops without a row: %d calls, %d without -> %s" % (len(want), len(lines), len(missing), out))


if __name__ == "__main__":
    main()
