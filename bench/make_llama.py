"""make_llama.py OUT.pt2 [GiB]: a Llama-style decoder (transformers) whose
weights total about GiB gigabytes (default 1.1), float32, for the conversion
benchmark.  Run in the sid chroot (torch 2.14 + transformers):
bash ../shared/tools/torch-env.sh run sid python3 /src/bench/make_llama.py /src/bench/out/llama-1g.pt2"""
import sys

import torch
from transformers import LlamaConfig, LlamaForCausalLM

out = sys.argv[1]
gib = float(sys.argv[2]) if len(sys.argv) > 2 else 1.1
hidden, inter, vocab = 1024, 2816, 32000
per_layer = 4 * hidden * hidden // 2 + 2 * hidden * hidden // 4 * 0 + 3 * hidden * inter  # q,o + k,v (GQA) + mlp
per_layer = 2 * hidden * hidden + 2 * hidden * (hidden // 4) + 3 * hidden * inter
layers = max(1, int((gib * (1 << 30) / 4 - 2 * vocab * hidden) / per_layer))
cfg = LlamaConfig(hidden_size=hidden, intermediate_size=inter, num_hidden_layers=layers,
                  num_attention_heads=16, num_key_value_heads=4, vocab_size=vocab,
                  max_position_embeddings=256, use_cache=False, tie_word_embeddings=False)
torch.manual_seed(0)


class Wrap(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.m = LlamaForCausalLM(cfg).eval()

    def forward(self, ids):
        return self.m(input_ids=ids, use_cache=False, return_dict=False)[0]


with torch.no_grad():
    w = Wrap().eval()
    ep = torch.export.export(w, (torch.randint(0, vocab, (1, 16)),))
    torch.export.save(ep, out)
n = sum(p.numel() for p in w.parameters())
print(out, layers, "layers,", n * 4 / (1 << 30), "GiB of weights")
