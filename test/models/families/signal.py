# signal.py: the signal family (ops/signal.def): Fourier transforms, stft / istft,
# windows and complex values. Every fixture's boundary is real: complex results leave
# through view_as_real (resolve_conj first where torch keeps a lazy conjugate), complex
# operands come in through view_as_complex of a real (..., 2) input. Sizes stay small so
# that float32 DFTs match torch within 1e-4.

def _vr(z):
    """A complex tensor as real pairs, conjugates resolved."""
    return torch.view_as_real(z.resolve_conj())


class OpFft(nn.Module):
    def forward(self, x, zr):
        # x (4, 8) real; zr (4, 6, 2): z (4, 6) complex
        z = torch.view_as_complex(zr)
        F = torch.fft
        return flat_cat(
            _vr(F.rfft(x)), _vr(F.rfft(x, norm="ortho")), _vr(F.rfft(x, n=6, dim=0, norm="forward")),
            _vr(F.rfft(x, n=11)), F.irfft(z), F.irfft(z, n=7, norm="ortho"), F.irfft(z, n=12, dim=0, norm="forward"),
            _vr(F.fft(x)), _vr(F.fft(z, dim=0)), _vr(F.fft(z, n=5, norm="ortho")), _vr(F.ifft(z)),
            _vr(F.ifft(x, norm="forward")), _vr(F.ifft(z, n=8, dim=0, norm="ortho")),
            F.hfft(z), F.hfft(z, n=9, norm="ortho"), _vr(F.ihfft(x)), _vr(F.ihfft(x, n=6, dim=0, norm="forward")))


def fx_op_fft():
    return SlimFixture(OpFft().eval(), (r(4, 8), r(4, 6, 2)))


class OpFft2(nn.Module):
    def forward(self, x, zr):
        # x (2, 4, 6) real; zr (2, 3, 5, 2): z (2, 3, 5) complex
        z = torch.view_as_complex(zr)
        F = torch.fft
        return flat_cat(
            _vr(F.fft2(z)), _vr(F.fft2(x, s=(3, 8), norm="ortho")), _vr(F.ifft2(z, dim=(0, 2))),
            _vr(F.rfft2(x)), _vr(F.rfft2(x, dim=(0, 1), norm="forward")), F.irfft2(z), F.irfft2(z, s=(4, 6), norm="ortho"),
            _vr(F.fftn(z)), _vr(F.fftn(x, s=(5, 4), dim=(0, 2))), _vr(F.ifftn(z, norm="ortho")),
            _vr(F.rfftn(x, s=(3, 4))), F.irfftn(z), F.irfftn(z, s=(2, 4, 7), norm="forward"),
            F.fftshift(x), F.ifftshift(x, dim=(0, -1)), _vr(F.fftshift(z, dim=-1)),
            F.fftfreq(7), F.rfftfreq(8, d=2.0))


def fx_op_fft2():
    return SlimFixture(OpFft2().eval(), (r(2, 4, 6), r(2, 3, 5, 2)))


class OpWindow(nn.Module):
    def forward(self, x):
        # x (10,): every window is applied to a piece of x, so the model has an input
        ws = []
        for n, periodic in ((1, (True,)), (7, (True, False))):
            for p in periodic:
                ws += [torch.hann_window(n, periodic=p), torch.hamming_window(n, periodic=p),
                       torch.blackman_window(n, periodic=p), torch.bartlett_window(n, periodic=p),
                       torch.kaiser_window(n, periodic=p)]
        ws += [torch.hamming_window(9, True, 0.5), torch.hamming_window(9, False, 0.6, 0.3),
               torch.kaiser_window(10, False, 20.0), torch.hann_window(6, dtype=torch.float64).float(),
               torch.bartlett_window(5), torch.blackman_window(5), torch.kaiser_window(5)]
        return flat_cat(x * torch.hann_window(10), *ws)


def fx_op_window():
    return SlimFixture(OpWindow().eval(), (r(10),))


class OpWindowSmall(nn.Module):
    def forward(self, x):
        # the core-ATen twin: the windows core ATen keeps (hann becomes arange and cos)
        ws = [f(7, periodic=p) for p in (True, False) for f in
              (torch.hamming_window, torch.blackman_window, torch.bartlett_window, torch.kaiser_window)]
        return flat_cat(x * torch.hamming_window(10), *ws, torch.kaiser_window(6, False, 20.0))


def fx_op_window_small():
    return SlimFixture(OpWindowSmall().eval(), (r(10),))


DECOMP_BUILDER["op_window"] = "fx_op_window_small"


class OpStft(nn.Module):
    def forward(self, x, y):
        # x (2, 40), y (33,) real signals
        w = torch.hann_window(16)
        s1 = torch.stft(x, 16, hop_length=4, window=w, return_complex=True)
        s2 = torch.stft(y, 8, hop_length=3, win_length=6, window=torch.hamming_window(6), center=False,
                        normalized=True, return_complex=True)
        s3 = torch.stft(y, 8, hop_length=2, center=True, pad_mode="constant", onesided=False,
                        return_complex=True)
        i1 = torch.istft(s1, 16, hop_length=4, window=w)
        i2 = torch.istft(s1[0], 16, hop_length=4, window=w, length=37)
        i3 = torch.istft(s3, 8, hop_length=2, onesided=False, normalized=True)
        return flat_cat(_vr(s1), _vr(s2), _vr(s3), i1, i2, i3)


def fx_op_stft():
    return SlimFixture(OpStft().eval(), (r(2, 40), r(33)))


class OpStftSmall(nn.Module):
    def forward(self, x, y):
        # the core-ATen twin: torch decomposes istft into ~200 nodes, so one of each
        w = torch.hann_window(8)
        s1 = torch.stft(x, 8, hop_length=2, window=w, return_complex=True)
        s2 = torch.stft(y, 8, hop_length=3, win_length=6, center=False, normalized=True, onesided=False,
                        return_complex=True)
        return flat_cat(_vr(s1), _vr(s2), torch.istft(s1, 8, hop_length=2, window=w))


def fx_op_stft_small():
    return SlimFixture(OpStftSmall().eval(), (r(20), r(21)))


DECOMP_BUILDER["op_stft"] = "fx_op_stft_small"


class OpComplex(nn.Module):
    def forward(self, x, zr, wr):
        # x (3, 4) real; zr, wr (3, 4, 2): z, w (3, 4) complex
        z, w = torch.view_as_complex(zr), torch.view_as_complex(wr)
        c = torch.complex(x, x * 0.5 - 1)
        p = torch.polar(x.abs() + 0.1, x)
        q = z * w + z / (w + 2) - w.conj() * 2 + c * x - z * 1.5 + 0.5 * p
        q = q - x + torch.conj_physical(z)
        t = torch.cat([q, z.permute(0, 1), c], dim=-1).reshape(6, 6).transpose(0, 1)
        s = torch.stack([z, w], dim=-1)[:, 1:3, 0].unsqueeze(0).squeeze(0)
        return flat_cat(_vr(q), _vr(t), _vr(s), _vr(z.sum(dim=1)), _vr(z.mean(dim=(0, 1), keepdim=True)),
                        _vr(-w), z.abs(), z.angle(), x.angle(), z.real, w.imag, _vr(z.select(1, 2).clone()),
                        _vr(z[:, :1].expand(3, 2)))


def fx_op_complex():
    return SlimFixture(OpComplex().eval(), (r(3, 4), r(3, 4, 2), r(3, 4, 2)))


# torch 2.6 gets the 1-d transforms only (the fixture budget: 600 KB for the family)
family(["op_fft", "op_fft2", "op_window", "op_stft", "op_complex"], versions=("2.14",), decomp=True)
family(["op_fft"], versions=("2.6",), decomp=False)
DEFAULT_SET["2.6"].add("op_fft_decomp")
