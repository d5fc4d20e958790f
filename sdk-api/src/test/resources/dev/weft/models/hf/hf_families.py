"""Writes a tiny random Hugging Face decoder directory of one family, with NumPy and safetensors only,
spelling config.json and the tensor names as transformers writes them (independently of Weft).

usage: hf_families.py FAMILY OUT_DIR SEED [tied|untied]
  llama   : rope_scaling llama3, tied by default
  qwen2   : q/k/v biases, tied by default
  qwen3   : per-head q/k RMSNorm, head_dim 16 != hidden_size / num_attention_heads = 8
  mistral : sliding_window 8 (smaller than the test sequences)
"""
import json
import os
import sys

import numpy as np
from safetensors.numpy import save_file

VOCAB, HIDDEN, INTER, LAYERS, HEADS, KV = 256, 32, 48, 2, 4, 2


def config(family, tied):
    c = {"model_type": family, "vocab_size": VOCAB, "hidden_size": HIDDEN, "intermediate_size": INTER,
         "num_hidden_layers": LAYERS, "num_attention_heads": HEADS, "num_key_value_heads": KV, "hidden_act": "silu",
         "max_position_embeddings": 64, "rms_norm_eps": 1e-5, "tie_word_embeddings": tied, "torch_dtype": "float32",
         "bos_token_id": 1, "eos_token_id": 0}
    if family == "llama":
        c.update(architectures=["LlamaForCausalLM"], rope_theta=500.0, attention_bias=False, mlp_bias=False,
                 rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                               "original_max_position_embeddings": 16})
    elif family == "qwen2":
        c.update(architectures=["Qwen2ForCausalLM"], rope_theta=1000000.0, use_sliding_window=False, sliding_window=32,
                 max_window_layers=2)
    elif family == "qwen3":
        # transformers 5 spelling: rope_theta inside rope_parameters
        c.update(architectures=["Qwen3ForCausalLM"], head_dim=16, attention_bias=False, use_sliding_window=False,
                 rope_parameters={"rope_type": "default", "rope_theta": 1000000.0})
    elif family == "mistral":
        c.update(architectures=["MistralForCausalLM"], rope_theta=10000.0, sliding_window=8, head_dim=8)
    else:
        raise SystemExit("unknown family " + family)
    return c


def tensors(c, rng):
    hd = c.get("head_dim", HIDDEN // HEADS)
    t = {}

    def lin(name, out, inp, bias=False):
        t[name + ".weight"] = (rng.standard_normal((out, inp)) * 0.2).astype(np.float32)
        if bias:
            t[name + ".bias"] = (rng.standard_normal(out) * 0.1).astype(np.float32)

    def norm(name, dim):
        t[name + ".weight"] = (1 + rng.standard_normal(dim) * 0.1).astype(np.float32)

    embed_std = 0.1 if c["tie_word_embeddings"] else 0.5  # a tied head would otherwise give very sharp logits
    t["model.embed_tokens.weight"] = (rng.standard_normal((VOCAB, HIDDEN)) * embed_std).astype(np.float32)
    qkv_bias = c["model_type"] == "qwen2" or c.get("attention_bias", False)
    for i in range(LAYERS):
        p = "model.layers.%d." % i
        norm(p + "input_layernorm", HIDDEN)
        lin(p + "self_attn.q_proj", HEADS * hd, HIDDEN, qkv_bias)
        lin(p + "self_attn.k_proj", KV * hd, HIDDEN, qkv_bias)
        lin(p + "self_attn.v_proj", KV * hd, HIDDEN, qkv_bias)
        lin(p + "self_attn.o_proj", HIDDEN, HEADS * hd, c.get("attention_bias", False))
        if c["model_type"] == "qwen3":
            norm(p + "self_attn.q_norm", hd)
            norm(p + "self_attn.k_norm", hd)
        norm(p + "post_attention_layernorm", HIDDEN)
        lin(p + "mlp.gate_proj", INTER, HIDDEN)
        lin(p + "mlp.up_proj", INTER, HIDDEN)
        lin(p + "mlp.down_proj", HIDDEN, INTER)
    norm("model.norm", HIDDEN)
    if not c["tie_word_embeddings"]:
        lin("lm_head", VOCAB, HIDDEN)
    return t


def main():
    family, out, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    tied = (sys.argv[4] == "tied") if len(sys.argv) > 4 else family in ("llama", "qwen2")
    os.makedirs(out, exist_ok=True)
    c = config(family, tied)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(c, f, indent=2)
    save_file(tensors(c, np.random.default_rng(seed)), os.path.join(out, "model.safetensors"), metadata={"format": "pt"})


if __name__ == "__main__":
    main()
