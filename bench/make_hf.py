"""make_hf.py OUTDIR [NAME...]: transformers models that are not fixtures, made
the way test/models/make_fixtures.py makes its hf_* fixtures (same tiny
configs, seeds, inputs, NAME.pt2 and NAME.io with torch's outputs), for the
benches (bench/dynamo_nodes.sh, bench/latency.sh: DIR=bench/out/hf).  Run in the
sid chroot (torch 2.14 + transformers):

    ../shared/tools/torch-env.sh run sid python3 bench/make_hf.py bench/out/hf

The models (each also as NAME_decomp, core ATen):
  hf_deberta_v2     DeBERTa-v2 encoder, relative (disentangled) attention, 2 layers
  hf_mistral2       Mistral decoder with a sliding window of 4 over 8 tokens, GQA, 2
                    layers (the fixture hf_mistral has one)
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MF = os.path.join(HERE, "..", "test", "models", "make_fixtures.py")

# make_fixtures.py as a module namespace: its builders, SlimFixture, generate_one ...
ns = {"__name__": "make_fixtures", "__file__": MF}
with open(MF) as f:
    exec(compile(f.read(), MF, "exec"), ns)


def fx_hf_deberta_v2(attn="eager"):
    transformers, cfg = ns["_hf"](
        "DebertaV2Config", attn, vocab_size=100, hidden_size=16, num_hidden_layers=2,
        num_attention_heads=2, intermediate_size=32, max_position_embeddings=32,
        relative_attention=True, position_buckets=8, max_relative_positions=16,
        pos_att_type=["p2c", "c2p"], norm_rel_ebd="layer_norm", share_att_key=True,
        type_vocab_size=0, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
        initializer_range=0.1, pad_token_id=0)
    ids, mask = ns["_ids"](100, low=1, pad=0)
    return ns["_hf_fixture"](transformers, transformers.DebertaV2Model(cfg),
                             ("input_ids", "attention_mask"), (ids, mask), attn, return_dict=False)


def fx_hf_mistral2(attn="eager"):
    old = ns["HF_LAYERS"]
    ns["HF_LAYERS"] = 2
    try:
        return ns["fx_hf_mistral"](attn)
    finally:
        ns["HF_LAYERS"] = old


MODELS = {"hf_deberta_v2": fx_hf_deberta_v2, "hf_mistral2": fx_hf_mistral2}


def main(argv):
    outdir = argv[0] if argv else os.path.join(HERE, "out", "hf")
    names = argv[1:] or [n + s for n in MODELS for s in ("", "_decomp")]
    for n, b in MODELS.items():
        ns["FIXTURES"][n] = b
        ns["FIXTURES"][n + "_decomp"] = ns["decomposed"](b)
    os.makedirs(outdir, exist_ok=True)
    for n in names:
        ns["generate_one"](n, outdir)
        print("made", os.path.join(outdir, n + ".pt2"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
