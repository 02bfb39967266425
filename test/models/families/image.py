# image.py: the sampling and image family (issue 10, family 2): grid_sample,
# affine_grid, pixel/channel shuffles, im2col/col2im, interpolate in every mode
# (Resize), meshgrid, max_unpool, reflection/replication/circular padding,
# Tensor.unfold, adaptive_max_pool3d. Run by make_fixtures.py in its namespace.
# Outputs are flat_cat'ed into one tensor (order documented at each forward);
# op_resize and op_grid_sample have a dynamic batch (cases 1, 3, 5).


def _batch_cases(shapes, sizes=(1, 3, 5)):
    """Extra cases for a fixture whose inputs all have a dynamic dim 0: one per batch
    size, inputs drawn like the example ones (shapes: the per-input trailing shapes and
    a maker r/u)."""
    return [("batch %d" % b, tuple(mk(b, *s) for mk, s in shapes)) for b in sizes]


def _grid(b, *s):
    # grid coordinates in [-1.2, 1.2]: inside and a little outside the image, so that
    # every padding mode matters
    return (torch.rand(b, *s) * 2.4 - 1.2)


def _rb(b, *s):
    return torch.randn(b, *s)


class OpResize(nn.Module):
    def __init__(self, small=False):
        super().__init__()
        self.small = small

    def forward(self, x3, x4, x5):
        # x3 (B, 1, 5), x4 (B, 2, 3, 4), x5 (B, 1, 2, 3, 3). Pieces, in order: nearest
        # (2d size (5, 6); then 1d scale 2, 3d size (3, 4, 5), 1d size 7, 2d scales
        # (2, 3), 2d scale 1.5, 2d down (2, 3)); nearest-exact (2d size (5, 6); then 1d
        # scale 1.7, 2d down (2, 3), 3d scale 2); then linear (size 9 both
        # align_corners, scale 2.5); bilinear (size (5, 6) both align_corners; then scale 2, down
        # (2, 3), scale 1.5 with align_corners, scale 1.5 recomputed); then bicubic (size
        # (5, 6), with align_corners, scale 2, down (2, 3)); then trilinear (scale 2,
        # size (3, 4, 5) align_corners), area (2, 2), float16 nearest (in float32
        # after); output 1: bfloat16 bilinear. small (the _decomp twin, for size: core
        # ATen spells most of them out in index arithmetic, bicubic in 100 nodes) keeps
        # the 2-D nearest, nearest-exact and both bilinear ones.
        I = F.interpolate
        full = not self.small
        outs = [I(x4, size=(5, 6), mode="nearest")]
        if full:
            outs += [I(x3, scale_factor=2, mode="nearest"), I(x5, size=(3, 4, 5), mode="nearest"),
                     I(x3, size=7, mode="nearest"), I(x4, scale_factor=(2, 3), mode="nearest"),
                     I(x4, scale_factor=1.5, mode="nearest"), I(x4, size=(2, 3), mode="nearest")]
        outs += [I(x4, size=(5, 6), mode="nearest-exact")]
        if full:
            outs += [I(x3, scale_factor=1.7, mode="nearest-exact"), I(x4, size=(2, 3), mode="nearest-exact"),
                     I(x5, scale_factor=2, mode="nearest-exact")]
        if full:
            outs += [I(x3, size=9, mode="linear"), I(x3, size=9, mode="linear", align_corners=True),
                     I(x3, scale_factor=2.5, mode="linear")]
        outs += [I(x4, size=(5, 6), mode="bilinear"), I(x4, size=(5, 6), mode="bilinear", align_corners=True)]
        if full:
            outs += [I(x4, scale_factor=2, mode="bilinear"), I(x4, size=(2, 3), mode="bilinear"),
                     I(x4, scale_factor=1.5, mode="bilinear", align_corners=True),
                     I(x4, scale_factor=1.5, mode="bilinear", recompute_scale_factor=True)]
        if full:
            outs += [I(x4, size=(5, 6), mode="bicubic"), I(x4, size=(5, 6), mode="bicubic", align_corners=True),
                     I(x4, scale_factor=2, mode="bicubic"), I(x4, size=(2, 3), mode="bicubic")]
        if full:
            outs += [I(x5, scale_factor=2, mode="trilinear"),
                     I(x5, size=(3, 4, 5), mode="trilinear", align_corners=True),
                     I(x4, size=(2, 2), mode="area"), I(x4.half(), scale_factor=2, mode="nearest").float()]
            # bfloat16 apart, compared as bfloat16 (torch rounds once more than we do)
            return flat_cat(*outs), I(x4.bfloat16(), size=(5, 6), mode="bilinear").reshape(-1)
        return flat_cat(*outs)


def fx_op_resize(small=False):
    b = Dim("batch", min=1, max=64)
    shapes = [(_rb, (1, 5)), (_rb, (2, 3, 4)), (_rb, (1, 2, 3, 3))]
    return SlimFixture(OpResize(small), (r(2, 1, 5), r(2, 2, 3, 4), r(2, 1, 2, 3, 3)),
                       dynamic_shapes={"x3": {0: b}, "x4": {0: b}, "x5": {0: b}},
                       cases=_batch_cases(shapes, (1,)))


def fx_op_resize_small():
    return fx_op_resize(True)


DECOMP_BUILDER["op_resize"] = "fx_op_resize_small"


class OpResizeAA(nn.Module):
    def __init__(self, small=False):
        super().__init__()
        self.small = small

    def forward(self, x4):
        # x4 (1, 2, 9, 10). Antialiased bilinear and bicubic: down to (4, 3), (5, 7),
        # by scale 0.4, and up to (11, 13) (no filter widening); small (the _decomp
        # twin) the first of each. (With align_corners they fail: ONNX Resize's
        # antialias does not match torch there.)
        I = F.interpolate
        outs = []
        for mode in ("bilinear", "bicubic"):
            outs.append(I(x4, size=(4, 3), mode=mode, antialias=True))
            if not self.small:
                outs += [I(x4, size=(5, 7), mode=mode, antialias=True),
                         I(x4, scale_factor=0.4, mode=mode, antialias=True),
                         I(x4, size=(11, 13), mode=mode, antialias=True)]
        return flat_cat(*outs)


def fx_op_resize_aa(small=False):
    return SlimFixture(OpResizeAA(small), (r(1, 2, 9, 10),))


def fx_op_resize_aa_small():
    return fx_op_resize_aa(True)


DECOMP_BUILDER["op_resize_aa"] = "fx_op_resize_aa_small"


class OpResizeDefault(nn.Module):
    def forward(self, x3, x4, x5):
        # x3 (1, 2, 5), x4 (1, 2, 3, 4), x5 (1, 1, 2, 3, 3). The .default overloads
        # (output_size and optional per-dim scales, which torch's index mapping uses when
        # given) called directly: nearest 1d (scale 2), 2d (scales 1.5), 3d; nearest-exact
        # 1d, 2d (scales 1.7, 1.6), 3d; linear 1d; bilinear 2d with align_corners;
        # trilinear 3d (scales 2); bicubic 2d
        A = torch.ops.aten
        return flat_cat(A.upsample_nearest1d.default(x3, [10], 2.0),
                        A.upsample_nearest2d.default(x4, [4, 6], 1.5, 1.5),
                        A.upsample_nearest3d.default(x5, [3, 4, 5]),
                        A._upsample_nearest_exact1d.default(x3, [8]),
                        A._upsample_nearest_exact2d.default(x4, [5, 6], 1.7, 1.6),
                        A._upsample_nearest_exact3d.default(x5, [4, 5, 6]),
                        A.upsample_linear1d.default(x3, [9], False),
                        A.upsample_bilinear2d.default(x4, [5, 6], True),
                        A.upsample_trilinear3d.default(x5, [4, 6, 6], False, 2.0, 2.0, 2.0),
                        A.upsample_bicubic2d.default(x4, [5, 7], False))


def fx_op_resize_default():
    return SlimFixture(OpResizeDefault(), (r(1, 2, 5), r(1, 2, 3, 4), r(1, 1, 2, 3, 3)))


class OpGridSample(nn.Module):
    def forward(self, x, grid, x5, grid5):
        # x (B, 2, 4, 5), grid (B, 3, 4, 2); x5 (B, 1, 2, 3, 4), grid5 (B, 2, 2, 3, 3);
        # grids in [-1.2, 1.2]. Output 0: 2-D, every mode (bilinear, nearest, bicubic) x
        # padding mode (zeros, border, reflection) x align_corners (False, True), in that
        # nesting order, stacked; output 1: 3-D, the same without bicubic (torch has no
        # 3-D bicubic). (No bfloat16 case: torch's CPU kernel rounds the source
        # coordinates to bfloat16, 4e-2 off float32 and off us.)
        outs, outs5 = [], []
        for mode in ("bilinear", "nearest", "bicubic"):
            for pad in ("zeros", "border", "reflection"):
                for ac in (False, True):
                    outs.append(F.grid_sample(x, grid, mode=mode, padding_mode=pad, align_corners=ac))
                    if mode != "bicubic":
                        outs5.append(F.grid_sample(x5, grid5, mode=mode, padding_mode=pad, align_corners=ac))
        return torch.stack(outs), torch.stack(outs5)


def fx_op_grid_sample():
    b = Dim("batch", min=1, max=64)
    shapes = [(_rb, (2, 4, 5)), (_grid, (3, 4, 2)), (_rb, (1, 2, 3, 4)), (_grid, (2, 2, 3, 3))]
    return SlimFixture(OpGridSample(), (r(2, 2, 4, 5), _grid(2, 3, 4, 2), r(2, 1, 2, 3, 4), _grid(2, 2, 2, 3, 3)),
                       dynamic_shapes={"x": {0: b}, "grid": {0: b}, "x5": {0: b}, "grid5": {0: b}},
                       cases=_batch_cases(shapes, (1,)))


class OpImageMisc(nn.Module):
    def __init__(self, small=False):
        super().__init__()
        self.small = small

    def forward(self, x, theta2, theta3, a, b):
        # x (1, 8, 4, 4); theta2 (1, 2, 3), theta3 (1, 3, 4); a (3,), b (4,). Pieces:
        # affine_grid 2-D (then 3-D, and both with align_corners); pixel_shuffle 2,
        # pixel_unshuffle 2, channel_shuffle 4, native_channel_shuffle 2; meshgrid
        # (.default: ij) and xy (.indexing); Tensor.unfold (dim 3, size 2, step 1; dim 2, size 2, step 2). small
        # (the _decomp twin, for size: core ATen spells affine_grid out in 40 nodes)
        # keeps one affine grid.
        outs = [F.affine_grid(theta2, [1, 2, 3, 4], align_corners=False)]
        if not self.small:
            outs += [F.affine_grid(theta3, [1, 2, 2, 3, 4], align_corners=False),
                     F.affine_grid(theta2, [1, 2, 3, 4], align_corners=True),
                     F.affine_grid(theta3, [1, 2, 2, 3, 4], align_corners=True)]
        outs += [F.pixel_shuffle(x, 2), F.pixel_unshuffle(x, 2), F.channel_shuffle(x, 4),
                 torch.native_channel_shuffle(x, 2)]
        outs += list(torch.meshgrid(a, b)) + list(torch.meshgrid(a, b, indexing="xy"))
        outs += [x.unfold(3, 2, 1), x.unfold(2, 2, 2)]
        cols = F.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1))
        outs.append(cols)
        if not self.small:
            outs += [F.fold(cols, (4, 4), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
                     F.fold(F.unfold(x, 2, stride=2), (4, 4), 2, stride=2)]
        return flat_cat(*outs)


def fx_op_image_misc(small=False):
    return SlimFixture(OpImageMisc(small), (r(1, 8, 4, 4), r(1, 2, 3), r(1, 3, 4), r(3), r(4)))


def fx_op_image_misc_small():
    return fx_op_image_misc(True)


DECOMP_BUILDER["op_image_misc"] = "fx_op_image_misc_small"


class OpImageUnpool(nn.Module):
    def __init__(self, small=False):
        super().__init__()
        self.small = small

    def forward(self, x4, x5):
        # x4 (1, 2, 4, 6), x5 (1, 2, 4, 4, 6). Pieces: max_unpool2d of max_pool2d 2;
        # the same to output_size (5, 7); max_unpool3d of max_pool3d 2; adaptive_max_pool3d
        # to (2, 3, 4) and to 1
        y, i = F.max_pool2d(x4, 2, return_indices=True)
        y3, i3 = F.max_pool3d(x5, 2, return_indices=True)
        # (small, the _decomp twin: the first of each op)
        outs = [F.max_unpool2d(y, i, 2)]
        if not self.small:
            outs.append(F.max_unpool2d(y, i, 2, output_size=(5, 7)))
        outs += [F.max_unpool3d(y3, i3, 2), F.adaptive_max_pool3d(x5, (2, 3, 4))]
        if not self.small:
            outs.append(F.adaptive_max_pool3d(x5, 1))
        return flat_cat(*outs)


def fx_op_image_unpool(small=False):
    return SlimFixture(OpImageUnpool(small), (r(1, 2, 4, 6), r(1, 2, 4, 4, 6)))


def fx_op_image_unpool_small():
    return fx_op_image_unpool(True)


DECOMP_BUILDER["op_image_unpool"] = "fx_op_image_unpool_small"


class OpImagePad(nn.Module):
    def __init__(self, small=False):
        super().__init__()
        self.small = small

    def forward(self, x3, x4, x5):
        # x3 (1, 2, 5), x4 (1, 2, 4, 5), x5 (1, 1, 3, 4, 5). The padding ATen ops
        # called directly: reflection_pad1d/2d/3d, replication_pad1d/2d/3d (with a
        # negative pad: a crop), _pad_circular (1d and 2d), in that order
        # (small, the _decomp twin: the 2d ones)
        A = torch.ops.aten
        full = not self.small
        outs = [A.reflection_pad1d(x3, [2, 1])] if full else []
        outs += [A.reflection_pad2d(x4, [1, 2, 3, 0])]
        if full:
            outs += [A.reflection_pad3d(x5, [1, 1, 2, 0, 2, 1]), A.replication_pad1d(x3, [3, 1])]
        outs += [A.replication_pad2d(x4, [1, 2, -1, 3])]
        if full:
            outs += [A.replication_pad3d(x5, [1, 0, 2, 1, 0, 3]), A._pad_circular(x3, [2, 1])]
        outs += [A._pad_circular(x4, [1, 2, 3, 0])]
        return flat_cat(*outs)


def fx_op_image_pad(small=False):
    return SlimFixture(OpImagePad(small), (r(1, 2, 5), r(1, 2, 4, 5), r(1, 1, 3, 4, 5)))


def fx_op_image_pad_small():
    return fx_op_image_pad(True)


DECOMP_BUILDER["op_image_pad"] = "fx_op_image_pad_small"


# torch 2.14 makes all of them and their _decomp twins (but op_resize_default's: core
# ATen spells those out in index arithmetic, as op_resize_decomp shows); torch 2.6
# (for the fixture budget) the training IR of three
family(["op_resize", "op_resize_aa", "op_grid_sample", "op_image_misc",
        "op_image_unpool", "op_image_pad"], versions=("2.14",), decomp=True)
family(["op_resize_default"], versions=("2.14",), decomp=False)
DEFAULT_SET["2.6"].update(["op_resize", "op_grid_sample", "op_image_misc"])
