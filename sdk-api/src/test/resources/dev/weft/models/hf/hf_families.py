"""Writes a tiny random Hugging Face decoder directory of one family, with NumPy and safetensors only,
spelling config.json and the tensor names as transformers writes them (independently of Weft).

usage: hf_families.py FAMILY OUT_DIR SEED [tied|untied] [fused]
  llama   : rope_scaling llama3, tied by default
  qwen2   : q/k/v biases, tied by default
  qwen3   : per-head q/k RMSNorm, head_dim 16 != hidden_size / num_attention_heads = 8
  mistral : sliding_window 8 (smaller than the test sequences)
  mixtral   : 4 experts of intermediate_size, top 2 (renormalised), block_sparse_moe.* names
  qwen2_moe : 4 experts of moe_intermediate_size 24, top 2 not renormalised, a shared expert of 40 behind its gate,
              layer 1 dense (mlp_only_layers) with intermediate_size, q/k/v biases
  qwen3_moe : qwen3's attention, 4 experts of 24, top 2 renormalised (norm_topk_prob)
  fused     : the experts as transformers 5 saves them (mlp.experts.gate_up_proj [E, 2I, H], down_proj [E, H, I];
              mixtral's block_sparse_moe named mlp)
"""
import json
import os
import sys

import numpy as np
from safetensors.numpy import save_file

VOCAB, HIDDEN, INTER, LAYERS, HEADS, KV = 256, 32, 48, 2, 4, 2
EXPERTS, TOPK, MOE_INTER, SHARED = 4, 2, 24, 40


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
    elif family == "mixtral":
        c.update(architectures=["MixtralForCausalLM"], rope_theta=1000000.0, sliding_window=None, num_local_experts=EXPERTS,
                 num_experts_per_tok=TOPK, router_aux_loss_coef=0.02, router_jitter_noise=0.0, output_router_logits=False)
    elif family == "qwen2_moe":
        c.update(architectures=["Qwen2MoeForCausalLM"], rope_theta=1000000.0, use_sliding_window=False, sliding_window=32,
                 max_window_layers=2, num_experts=EXPERTS, num_experts_per_tok=TOPK, moe_intermediate_size=MOE_INTER,
                 shared_expert_intermediate_size=SHARED, norm_topk_prob=False, decoder_sparse_step=1, mlp_only_layers=[1],
                 router_aux_loss_coef=0.001)
    elif family == "qwen3_moe":
        c.update(architectures=["Qwen3MoeForCausalLM"], head_dim=16, attention_bias=False, use_sliding_window=False,
                 rope_theta=1000000.0, num_experts=EXPERTS, num_experts_per_tok=TOPK, moe_intermediate_size=MOE_INTER,
                 norm_topk_prob=True, decoder_sparse_step=1, mlp_only_layers=[], router_aux_loss_coef=0.001)
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
    qkv_bias = c["model_type"] in ("qwen2", "qwen2_moe") or c.get("attention_bias", False)
    for i in range(LAYERS):
        p = "model.layers.%d." % i
        norm(p + "input_layernorm", HIDDEN)
        lin(p + "self_attn.q_proj", HEADS * hd, HIDDEN, qkv_bias)
        lin(p + "self_attn.k_proj", KV * hd, HIDDEN, qkv_bias)
        lin(p + "self_attn.v_proj", KV * hd, HIDDEN, qkv_bias)
        lin(p + "self_attn.o_proj", HIDDEN, HEADS * hd, c.get("attention_bias", False))
        if c["model_type"] in ("qwen3", "qwen3_moe"):
            norm(p + "self_attn.q_norm", hd)
            norm(p + "self_attn.k_norm", hd)
        norm(p + "post_attention_layernorm", HIDDEN)
        if sparse(c, i):
            moe(c, p, lin, t, rng)
            continue
        lin(p + "mlp.gate_proj", INTER, HIDDEN)
        lin(p + "mlp.up_proj", INTER, HIDDEN)
        lin(p + "mlp.down_proj", HIDDEN, INTER)
    norm("model.norm", HIDDEN)
    if not c["tie_word_embeddings"]:
        lin("lm_head", VOCAB, HIDDEN)
    return t


def sparse(c, i):
    if c["model_type"] == "mixtral":
        return True
    return "num_experts" in c and i not in c["mlp_only_layers"] and (i + 1) % c["decoder_sparse_step"] == 0


def moe(c, p, lin, t, rng):
    mixtral = c["model_type"] == "mixtral"
    block = p + ("block_sparse_moe." if mixtral else "mlp.")
    inter = INTER if mixtral else MOE_INTER
    parts = ("w1", "w3", "w2") if mixtral else ("gate_proj", "up_proj", "down_proj")
    lin(block + "gate", EXPERTS, HIDDEN)
    for e in range(EXPERTS):
        lin(block + "experts.%d.%s" % (e, parts[0]), inter, HIDDEN)
        lin(block + "experts.%d.%s" % (e, parts[1]), inter, HIDDEN)
        lin(block + "experts.%d.%s" % (e, parts[2]), HIDDEN, inter)
    if c.get("shared_expert_intermediate_size"):
        lin(block + "shared_expert.gate_proj", SHARED, HIDDEN)
        lin(block + "shared_expert.up_proj", SHARED, HIDDEN)
        lin(block + "shared_expert.down_proj", HIDDEN, SHARED)
        lin(block + "shared_expert_gate", 1, HIDDEN)


def fuse(c, t):
    """transformers 5's layout: per layer gate_up_proj [E, 2I, H] (gate rows then up rows) and down_proj [E, H, I]."""
    mixtral = c["model_type"] == "mixtral"
    parts = ("w1", "w3", "w2") if mixtral else ("gate_proj", "up_proj", "down_proj")
    out = {}
    for name, a in t.items():
        if ".experts." not in name:
            out[name.replace(".block_sparse_moe.", ".mlp.")] = a
    for i in range(LAYERS):
        old = "model.layers.%d.%s.experts." % (i, "block_sparse_moe" if mixtral else "mlp")
        if old + "0.%s.weight" % parts[0] not in t:
            continue
        new = "model.layers.%d.mlp.experts." % i
        out[new + "gate_up_proj"] = np.stack([np.concatenate([t[old + "%d.%s.weight" % (e, parts[0])],
                                                              t[old + "%d.%s.weight" % (e, parts[1])]], 0)
                                              for e in range(EXPERTS)])
        out[new + "down_proj"] = np.stack([t[old + "%d.%s.weight" % (e, parts[2])] for e in range(EXPERTS)])
    return out


def main():
    family, out, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    tied = (sys.argv[4] == "tied") if len(sys.argv) > 4 else family in ("llama", "qwen2")
    os.makedirs(out, exist_ok=True)
    c = config(family, tied)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(c, f, indent=2)
    t = tensors(c, np.random.default_rng(seed))
    if len(sys.argv) > 5 and sys.argv[5] == "fused":
        t = fuse(c, t)
    save_file(t, os.path.join(out, "model.safetensors"), metadata={"format": "pt"})


if __name__ == "__main__":
    main()
