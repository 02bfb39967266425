#!/usr/bin/env python3
"""Archives of real models (torch.jit.save), with torch's reference outputs.

Usage (in a torch chroot, from the repository root):

    ../shared/tools/torch-env.sh run sid    python3 bench/jit/make_real.py OUTDIR [NAME...]
    ../shared/tools/torch-env.sh run trixie python3 bench/jit/make_real.py OUTDIR [NAME...]
    python3 bench/jit/make_real.py --list

Models: torchvision's families (classification, segmentation, video, optical
flow, detection where tracing works) and transformers' models in tiny
configurations (decoder-only, encoder, encoder-decoder, speech, vision), each
traced (torch.jit.trace) and traced then frozen (torch.jit.freeze), as a user
would make them. A model its torch cannot build or trace is skipped with a
line on stderr. For each archive NAME (MODEL_trace, MODEL_freeze):

    OUTDIR/NAME.pt                 the archive
    OUTDIR/NAME.io/manifest.json   the cases (test/ort/run.mjs's format)
    OUTDIR/NAME.io/case0/*.npy     forward's tensor arguments and the outputs of
                                   torch.jit.load(NAME.pt), flattened in torch's order
    OUTDIR/NAME.io/options.yaml    the `inputs:` option

bench/jit/run.sh converts them and checks them in onnxruntime on the host.
Each model is made in a child process of its own (fork), so that a crash or a
mangled class name of one does not touch the others.
"""

import json
import os
import sys
import traceback
import warnings

import numpy as np
import torch

warnings.filterwarnings("ignore")
torch.set_num_threads(1)

TORCH = torch.__version__


def _liven():
    """make_fixtures.py's liven() (seeded random weights and BatchNorm statistics that
    make every parameter matter and keep the outputs of a moderate size), compiled from
    its source: that script imports what torch 2.6 lacks."""
    import ast
    src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "models",
                            "make_fixtures.py")).read()
    tree = ast.parse(src)
    fn = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "liven"]
    ns = {"torch": torch, "nn": torch.nn}
    exec(compile(ast.Module(body=fn, type_ignores=[]), "make_fixtures.py", "exec"), ns)
    return ns["liven"]


liven = _liven()


def seed(name):
    torch.manual_seed(sum(map(ord, name)))
    np.random.seed(sum(map(ord, name)) % (2 ** 31))


def image(*shape):
    return torch.rand(*shape)


def ids(vocab, b=2, t=8):
    return torch.randint(1, vocab, (b, t))


# ---- torchvision -------------------------------------------------------------

def tv(name, shape=(1, 3, 224, 224), **kw):
    def build():
        import torchvision.models as M
        import torchvision.models.video as V
        import torchvision.models.segmentation as S
        import torchvision.models.optical_flow as F
        import torchvision.models.detection as D
        for mod in (M, V, S, F, D):
            fn = getattr(mod, name, None)
            if fn is not None and callable(fn):
                break
        else:
            raise RuntimeError("no model " + name)
        m = fn(weights=None, **kw).eval()
        if name.startswith("raft"):
            return m, (image(1, 3, 128, 128), image(1, 3, 128, 128))
        return m, (image(*shape),)
    return build


TV_CLASSIFY = [
    ("alexnet", {}), ("convnext_tiny", {}), ("densenet121", {}), ("efficientnet_b0", {}),
    ("efficientnet_v2_s", {}), ("googlenet", {"aux_logits": False, "init_weights": True}),
    ("inception_v3", {"aux_logits": False, "init_weights": True}),
    ("maxvit_t", {}), ("mnasnet0_5", {}), ("mobilenet_v2", {}), ("mobilenet_v3_small", {}),
    ("regnet_y_400mf", {}), ("resnet18", {}), ("resnext50_32x4d", {}),
    ("shufflenet_v2_x0_5", {}), ("squeezenet1_1", {}), ("swin_t", {}), ("swin_v2_t", {}),
    ("vgg11", {}), ("vit_b_16", {}), ("wide_resnet50_2", {}),
]
TV_SHAPES = {"inception_v3": (1, 3, 299, 299)}


def tv_models():
    out = {}
    for name, kw in TV_CLASSIFY:
        out["tv_" + name] = tv(name, TV_SHAPES.get(name, (1, 3, 224, 224)), **kw)
    for name in ("fcn_resnet50", "deeplabv3_mobilenet_v3_large", "lraspp_mobilenet_v3_large"):
        out["tv_" + name] = tv(name, (1, 3, 128, 128), weights_backbone=None)
    for name in ("r3d_18", "mc3_18", "r2plus1d_18", "s3d", "mvit_v2_s", "swin3d_t"):
        shape = (1, 3, 16, 224, 224) if name in ("mvit_v2_s", "s3d") else (1, 3, 8, 112, 112)
        out["tv_" + name] = tv(name, shape)
    out["tv_raft_small"] = tv("raft_small")
    for name in ("ssdlite320_mobilenet_v3_large", "fasterrcnn_mobilenet_v3_large_320fpn"):
        out["tv_" + name] = tv(name, (1, 3, 320, 320), weights_backbone=None)
    return out


# ---- transformers --------------------------------------------------------------

class HF(torch.nn.Module):
    """A transformers model called with positional tensors, its output made a tuple:
    what config.torchscript=True did before transformers 5 (whose return_dict=False
    breaks some models)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, *args):
        out = self.model(*args)
        return out.to_tuple() if hasattr(out, "to_tuple") else out


def hf(config_name, model_name, make_inputs, **cfg):
    def build():
        import transformers
        config = getattr(transformers, config_name)(use_cache=False, **cfg)
        config._attn_implementation = "eager"
        m = getattr(transformers, model_name)(config).eval()
        return HF(m).eval(), make_inputs(config)
    return build


SMALL = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64)


def tok(c, b=2, t=8):
    return (ids(c.vocab_size, b, t),)


def tok_mask(c, b=2, t=8):
    x = ids(c.vocab_size, b, t)
    return (x, torch.ones(b, t, dtype=torch.long))


def enc_dec(c, b=2, t=8):
    return (ids(c.vocab_size, b, t), torch.ones(b, t, dtype=torch.long), ids(c.vocab_size, b, 5))


def hf_models():
    D = dict(vocab_size=128, max_position_embeddings=64)
    return {
        # decoder-only
        "hf_gpt2": hf("GPT2Config", "GPT2LMHeadModel", tok, vocab_size=128, n_positions=64, n_embd=32,
                      n_layer=2, n_head=4),
        "hf_bloom": hf("BloomConfig", "BloomForCausalLM", tok, vocab_size=128, hidden_size=32, n_layer=2,
                       n_head=4),
        "hf_llama": hf("LlamaConfig", "LlamaForCausalLM", tok, num_key_value_heads=2, **SMALL, **D),
        "hf_mistral": hf("MistralConfig", "MistralForCausalLM", tok, num_key_value_heads=2, **SMALL, **D),
        "hf_qwen2": hf("Qwen2Config", "Qwen2ForCausalLM", tok, num_key_value_heads=2, **SMALL, **D),
        "hf_phi3": hf("Phi3Config", "Phi3ForCausalLM", tok, num_key_value_heads=2, pad_token_id=0,
                      **SMALL, **D),
        "hf_opt": hf("OPTConfig", "OPTForCausalLM", tok, hidden_size=32, num_hidden_layers=2,
                     num_attention_heads=4, ffn_dim=64, word_embed_proj_dim=32, **D),
        "hf_gpt_neox": hf("GPTNeoXConfig", "GPTNeoXForCausalLM", tok, **SMALL, **D),
        "hf_falcon": hf("FalconConfig", "FalconForCausalLM", tok, hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=4, vocab_size=128),
        # encoders
        "hf_bert": hf("BertConfig", "BertModel", tok_mask, **SMALL, **D),
        "hf_distilbert": hf("DistilBertConfig", "DistilBertModel", tok_mask, dim=32, n_layers=2, n_heads=4,
                            hidden_dim=64, **D),
        "hf_roberta": hf("RobertaConfig", "RobertaModel", tok_mask, pad_token_id=1, **SMALL,
                         vocab_size=128, max_position_embeddings=72),
        "hf_albert": hf("AlbertConfig", "AlbertModel", tok_mask, embedding_size=16, **SMALL, **D),
        "hf_electra": hf("ElectraConfig", "ElectraModel", tok_mask, embedding_size=16, **SMALL, **D),
        "hf_deberta_v2": hf("DebertaV2Config", "DebertaV2Model", tok_mask, **SMALL, **D),
        # encoder-decoder
        "hf_t5": hf("T5Config", "T5Model", enc_dec, vocab_size=128, d_model=32, d_kv=8, d_ff=64,
                    num_layers=2, num_heads=4),
        "hf_bart": hf("BartConfig", "BartModel", enc_dec, vocab_size=128, d_model=32, encoder_layers=2,
                      decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4,
                      encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64),
        "hf_marian": hf("MarianConfig", "MarianMTModel", enc_dec, vocab_size=128, d_model=32,
                        encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                        decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64,
                        max_position_embeddings=64, pad_token_id=0, decoder_start_token_id=0),
        # speech
        "hf_whisper": hf("WhisperConfig", "WhisperModel",
                         lambda c: (torch.randn(1, 16, 32), ids(c.vocab_size, 1, 4)),
                         vocab_size=128, d_model=32, encoder_layers=2, decoder_layers=2,
                         encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64,
                         decoder_ffn_dim=64, num_mel_bins=16, max_source_positions=16,
                         max_target_positions=16),
        "hf_wav2vec2": hf("Wav2Vec2Config", "Wav2Vec2Model", lambda c: (torch.randn(1, 400),),
                          hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                          conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3),
                          num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4),
        # vision
        "hf_vit": hf("ViTConfig", "ViTModel", lambda c: (image(1, 3, 32, 32),), image_size=32,
                     patch_size=8, **SMALL),
        "hf_convnext": hf("ConvNextConfig", "ConvNextModel", lambda c: (image(1, 3, 64, 64),),
                          hidden_sizes=[8, 16, 32, 64], depths=[1, 1, 1, 1]),
        "hf_swin": hf("SwinConfig", "SwinModel", lambda c: (image(1, 3, 64, 64),), image_size=64,
                      patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[2, 4], window_size=4),
        "hf_clip_vision": hf("CLIPVisionConfig", "CLIPVisionModel", lambda c: (image(1, 3, 32, 32),),
                             image_size=32, patch_size=8, **SMALL),
    }


def models():
    out = {}
    out.update(tv_models())
    out.update(hf_models())
    return out


# ---- writing -------------------------------------------------------------------

def flat(o):
    if isinstance(o, torch.Tensor):
        return [o]
    if isinstance(o, dict):
        return [t for v in o.values() for t in flat(v)]
    if isinstance(o, (list, tuple)):
        return [t for v in o for t in flat(v)]
    return []


DT = {torch.float32: "float32", torch.int64: "int64", torch.bool: "bool", torch.int32: "int32",
      torch.float64: "float64", torch.float16: "float16", torch.uint8: "uint8"}


def write_io(io, inputs, outputs):
    os.makedirs(os.path.join(io, "case0"), exist_ok=True)
    case = {"name": "case0", "inputs": [], "outputs": []}
    for kind, ts in (("in", inputs), ("out", outputs)):
        for i, t in enumerate(ts):
            f = "case0/%s_%d.npy" % (kind, i)
            np.save(os.path.join(io, f), t.detach().contiguous().numpy())
            case["inputs" if kind == "in" else "outputs"].append(
                {"file": f, "dtype": DT[t.dtype], "shape": list(t.shape)})
    with open(os.path.join(io, "manifest.json"), "w") as f:
        json.dump({"torch": TORCH, "cases": [case]}, f, indent=1)
    with open(os.path.join(io, "options.yaml"), "w") as f:
        f.write("inputs:\n")
        for t in inputs:
            f.write("  - {dtype: %s, shape: [%s]}\n" % (DT[t.dtype], ", ".join(map(str, t.shape))))


def make(name, build, outdir):
    seed(name)
    model, inputs = build()
    liven(model)
    with torch.no_grad():
        traced = torch.jit.trace(model, inputs, check_trace=False, strict=False)
        variants = {"trace": traced}
        try:
            variants["freeze"] = torch.jit.freeze(traced)
        except Exception as e:  # noqa: BLE001 -- reported, the trace still counts
            print("%s_freeze: freeze fails: %s" % (name, str(e).splitlines()[0]), file=sys.stderr)
        for kind, sm in variants.items():
            base = os.path.join(outdir, "%s_%s" % (name, kind))
            torch.jit.save(sm, base + ".pt")
            loaded = torch.jit.load(base + ".pt")
            outs = flat(loaded(*inputs))
            write_io(base + ".io", inputs, outs)
            print("%s_%s: %d inputs, %d outputs, %d KiB" % (
                name, kind, len(inputs), len(outs), os.path.getsize(base + ".pt") // 1024))


def main(argv):
    all_models = models()
    if argv[:1] == ["--list"]:
        print("\n".join(all_models))
        return 0
    outdir, names = argv[0], argv[1:] or list(all_models)
    os.makedirs(outdir, exist_ok=True)
    for name in names:
        pid = os.fork()
        if pid == 0:
            try:
                make(name, all_models[name], outdir)
                os._exit(0)
            except Exception as e:  # noqa: BLE001 -- a model torch cannot trace is skipped
                msg = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
                print("%s: skipped: %s: %s" % (name, type(e).__name__, msg), file=sys.stderr)
                if os.environ.get("VERBOSE"):
                    traceback.print_exc()
                os._exit(1)
        os.waitpid(pid, 0)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
