"""make_llm.py OUTDIR SIZE: a transformers Llama for the LLM latency bench
(bench/llm.sh), exported with torch.export twice: the prefill (input_ids,
attention_mask, position_ids; a fresh DynamicCache made inside) and one
decode step (one new token, the cache of every layer as inputs).  Both return
the logits and the cache after the step (present.L.key/value, in layer order).
Run in the sid chroot (torch 2.14 + transformers):

    ../shared/tools/torch-env.sh run sid python3 /src/bench/make_llm.py /src/bench/out/llm tiny

SIZE is `tiny` (2 layers, hidden 64) or `100m` (8 layers, hidden 768, GQA 12/4
heads, vocab 32000: 101 M parameters).  Writes into OUTDIR/SIZE/:
  hf/                   the checkpoint (save_pretrained), for the builder
  prefill.pt2, decode.pt2
  prefill.dynamo18.onnx ... torch.onnx.export(ep, dynamo=True) at opsets 18 and
                        23 (when onnxscript is on PYTHONPATH; a failure is a
                        .fail file holding the error)
  cases/NAME/           inputs and torch's outputs (npy) of the correctness
                        cases, manifest.json lists them: prefill and decode at
                        batch 1, and batch 2 with the second row left or right
                        padded by 3 (a right-padded past is a masked hole
                        before the new token); plus the latency inputs
                        (lat_prefill: batch 1, 64 tokens; lat_decode: batch
                        1, 64 cached)
Position ids are what generate() feeds: cumsum(mask) - 1, 1 where masked.
torch's outputs at masked query positions are meaningless (a row that sees
no key), so the manifest gives, per output, the mask to compare under."""
import json
import os
import sys

import numpy as np
import torch
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM

SIZES = {
    "tiny": dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                 num_key_value_heads=2, vocab_size=1000),
    # tiny without grouped kv heads (as many kv heads as q heads): where
    # MultiHeadAttentionOrt fires (it leaves grouped-query attention alone)
    "tinymh": dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                   num_key_value_heads=4, vocab_size=1000),
    "100m": dict(hidden_size=768, intermediate_size=2048, num_hidden_layers=8, num_attention_heads=12,
                 num_key_value_heads=4, vocab_size=32000),
}


def run_flat(m, input_ids, attention_mask, position_ids, cache):
    """The model on cache, its logits and every layer's keys and values, flat."""
    out = m(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
            past_key_values=cache, use_cache=True, return_dict=True)
    flat = [out.logits]
    for layer in out.past_key_values.layers:
        flat += [layer.keys, layer.values]
    return tuple(flat)


class Prefill(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, attention_mask, position_ids):
        return run_flat(self.m, input_ids, attention_mask, position_ids, DynamicCache())


class Decode(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, attention_mask, position_ids, *past):
        cache = DynamicCache()
        for i in range(len(past) // 2):
            cache.update(past[2 * i], past[2 * i + 1], i)
        return run_flat(self.m, input_ids, attention_mask, position_ids, cache)


def positions(mask):
    p = mask.long().cumsum(-1) - 1
    return p.masked_fill(mask == 0, 1)


def padded_mask(b, t, pad, side):
    m = torch.ones(b, t, dtype=torch.int64)
    if b > 1 and pad:
        if side == "left":
            m[1, :pad] = 0
        else:
            m[1, t - pad:] = 0
    return m


def main(argv):
    outdir, size = argv[0], argv[1]
    cfg = LlamaConfig(**SIZES[size], max_position_embeddings=512, use_cache=True,
                      tie_word_embeddings=False, rms_norm_eps=1e-6, rope_theta=10000.0)
    cfg._attn_implementation = "sdpa"
    torch.manual_seed(0)
    model = LlamaForCausalLM(cfg).eval()
    # the default init (std 0.02) makes near-constant logits: widen it a little
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() == 2:
                p.normal_(0, 0.05)
    d = os.path.join(outdir, size)
    os.makedirs(os.path.join(d, "cases"), exist_ok=True)
    model.save_pretrained(os.path.join(d, "hf"))
    L = cfg.num_hidden_layers
    kvh, hd = cfg.num_key_value_heads, cfg.hidden_size // cfg.num_attention_heads
    V = cfg.vocab_size
    pre, dec = Prefill(model).eval(), Decode(model).eval()
    g = torch.Generator().manual_seed(1)

    def ids(b, t):
        return torch.randint(3, V, (b, t), generator=g)

    def past(b, p):
        return [torch.randn(b, kvh, p, hd, generator=g) for _ in range(2 * L)]

    B, T, P = torch.export.Dim("batch", min=1, max=16), torch.export.Dim("seq", min=2, max=256), \
        torch.export.Dim("past", min=1, max=256)
    ex = (ids(2, 8), padded_mask(2, 8, 0, "left"))
    ex = ex + (positions(ex[1]),)
    with torch.no_grad():
        ep_pre = torch.export.export(pre, ex, dynamic_shapes=({0: B, 1: T},) * 3, strict=False)
        torch.export.save(ep_pre, os.path.join(d, "prefill.pt2"))
        m = padded_mask(2, 9, 0, "left")
        exd = (ids(2, 1), m, positions(m)[:, -1:]) + tuple(past(2, 8))
        dyn = ({0: B}, {0: B, 1: P + 1}, {0: B}, ({0: B, 2: P},) * (2 * L))
        ep_dec = torch.export.export(dec, exd, dynamic_shapes=dyn, strict=False)
        torch.export.save(ep_dec, os.path.join(d, "decode.pt2"))
    cases = []

    def case(name, kind, b, t, pad, side):
        if kind == "prefill":
            m = padded_mask(b, t, pad, side)
            inp = (ids(b, t), m, positions(m))
            mod, qmask, kvmask = pre, m, m
        else:
            m = padded_mask(b, t + 1, pad, side)
            if side == "right" and b > 1 and pad:  # the new token is always there: a hole
                m[1, -1] = 1
            inp = (ids(b, 1), m, positions(m)[:, -1:]) + tuple(past(b, t))
            mod, qmask, kvmask = dec, m[:, -1:], m
        with torch.no_grad():
            out = mod(*inp)
        cd = os.path.join(d, "cases", name)
        os.makedirs(cd, exist_ok=True)
        ent = {"name": name, "kind": kind, "inputs": [], "outputs": [],
               "qmask": qmask.tolist(), "kvmask": kvmask.tolist()}
        for i, x in enumerate(inp):
            f = "in_%d.npy" % i
            np.save(os.path.join(cd, f), x.numpy(), allow_pickle=False)
            ent["inputs"].append({"file": name + "/" + f, "dtype": str(x.numpy().dtype),
                                  "shape": list(x.shape)})
        for i, x in enumerate(out):
            f = "out_%d.npy" % i
            np.save(os.path.join(cd, f), x.numpy(), allow_pickle=False)
            ent["outputs"].append({"file": name + "/" + f, "dtype": str(x.numpy().dtype),
                                   "shape": list(x.shape)})
        cases.append(ent)

    for kind in ("prefill", "decode"):
        case(kind + "_b1", kind, 1, 8, 0, "left")
        case(kind + "_b2_left", kind, 2, 8, 3, "left")
        case(kind + "_b2_right", kind, 2, 8, 3, "right")
    case("lat_prefill", "prefill", 1, 64, 0, "left")
    case("lat_decode", "decode", 1, 64, 0, "left")
    with open(os.path.join(d, "cases", "manifest.json"), "w") as f:
        json.dump({"torch": torch.__version__, "size": size, "layers": L, "kv_heads": kvh,
                   "head_dim": hd, "cases": cases}, f, indent=1)
    n = sum(p.numel() for p in model.parameters())
    print(d, "%.1f M parameters" % (n / 1e6))
    try:
        import onnxscript  # noqa: F401
    except ImportError:
        print("no onnxscript: no dynamo models")
        return 0
    for name, ep in (("prefill", ep_pre), ("decode", ep_dec)):
        for opset in (18, 23):
            f = os.path.join(d, "%s.dynamo%d.onnx" % (name, opset))
            try:
                torch.onnx.export(ep, (), f, dynamo=True, optimize=True, opset_version=opset,
                                  external_data=True)
                print("made", f)
            except Exception as e:  # noqa: BLE001 the bench reports it
                with open(f[:-5] + ".fail", "w") as o:
                    o.write("%s: %s\n" % (type(e).__name__, e))
                print("dynamo failed", f, type(e).__name__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
