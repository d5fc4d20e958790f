"""Independent NumPy reference of Hugging Face Llama and GPT-2 checkpoints (float64), for Weft's tests.

Reads config.json and model.safetensors (or shards via model.safetensors.index.json) with nothing
but numpy and json, and prints JSON: the mean next-token cross-entropy over consecutive
non-overlapping windows of seq_len + 1 tokens of a .npy token file, and greedy continuation ids
(recomputing the whole prefix each step, no cache).

usage: hf_reference.py MODEL_DIR TOKENS.npy SEQ_LEN PROMPT_IDS(comma-separated) MAX_NEW_TOKENS
"""
import json
import os
import struct
import sys

import numpy as np

DTYPES = {"F32": np.float32, "F64": np.float64, "F16": np.float16, "I64": np.int64, "I32": np.int32}


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        b, end = e["data_offsets"]
        raw = data[b:end]
        if e["dtype"] == "BF16":
            a = (np.frombuffer(raw, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)
        else:
            a = np.frombuffer(raw, dtype=DTYPES[e["dtype"]])
        out[name] = a.reshape(e["shape"]).astype(np.float64)
    return out


def read_weights(d):
    index = os.path.join(d, "model.safetensors.index.json")
    if os.path.exists(index):
        w = {}
        for shard in sorted(set(json.load(open(index))["weight_map"].values())):
            w.update(read_safetensors(os.path.join(d, shard)))
        return w
    return read_safetensors(os.path.join(d, "model.safetensors"))


class Llama:
    def __init__(self, d):
        c = json.load(open(os.path.join(d, "config.json")))
        self.w = read_weights(d)
        self.layers = c["num_hidden_layers"]
        self.heads = c["num_attention_heads"]
        self.kv = c.get("num_key_value_heads", self.heads)
        self.hd = c.get("head_dim", c["hidden_size"] // self.heads)
        self.eps = c.get("rms_norm_eps", 1e-6)
        self.theta = c.get("rope_theta", 10000.0)
        self.head = self.w["model.embed_tokens.weight"] if c.get("tie_word_embeddings", False) else self.w["lm_head.weight"]

    def norm(self, x, name):
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + self.eps) * self.w[name]

    def rope(self, x):  # x [heads, T, hd]; Hugging Face's rotate_half convention
        t = x.shape[1]
        inv = 1.0 / self.theta ** (np.arange(0, self.hd, 2) / self.hd)
        ang = np.outer(np.arange(t), inv)
        ang = np.concatenate([ang, ang], -1)
        half = self.hd // 2
        rot = np.concatenate([-x[..., half:], x[..., :half]], -1)
        return x * np.cos(ang) + rot * np.sin(ang)

    def logits(self, ids):
        w = self.w
        x = w["model.embed_tokens.weight"][ids]
        t = len(ids)
        mask = np.triu(np.full((t, t), -np.inf), 1)
        for i in range(self.layers):
            p = "model.layers.%d." % i
            h = self.norm(x, p + "input_layernorm.weight")
            q = (h @ w[p + "self_attn.q_proj.weight"].T).reshape(t, self.heads, self.hd).transpose(1, 0, 2)
            k = (h @ w[p + "self_attn.k_proj.weight"].T).reshape(t, self.kv, self.hd).transpose(1, 0, 2)
            v = (h @ w[p + "self_attn.v_proj.weight"].T).reshape(t, self.kv, self.hd).transpose(1, 0, 2)
            q, k = self.rope(q), self.rope(k)
            rep = self.heads // self.kv
            k, v = np.repeat(k, rep, 0), np.repeat(v, rep, 0)
            s = q @ k.transpose(0, 2, 1) / np.sqrt(self.hd) + mask
            s = np.exp(s - s.max(-1, keepdims=True))
            a = (s / s.sum(-1, keepdims=True)) @ v
            x = x + a.transpose(1, 0, 2).reshape(t, -1) @ w[p + "self_attn.o_proj.weight"].T
            h = self.norm(x, p + "post_attention_layernorm.weight")
            g = h @ w[p + "mlp.gate_proj.weight"].T
            u = h @ w[p + "mlp.up_proj.weight"].T
            x = x + (g / (1 + np.exp(-g)) * u) @ w[p + "mlp.down_proj.weight"].T
        return self.norm(x, "model.norm.weight") @ self.head.T


class Gpt2:
    def __init__(self, d):
        c = json.load(open(os.path.join(d, "config.json")))
        w = read_weights(d)
        self.w = {k[len("transformer."):] if k.startswith("transformer.") else k: v for k, v in w.items()}
        self.layers, self.heads, self.eps = c["n_layer"], c["n_head"], c.get("layer_norm_epsilon", 1e-5)
        self.tanh = c.get("activation_function", "gelu_new") != "gelu"
        self.head = self.w.get("lm_head.weight", self.w["wte.weight"])

    def ln(self, x, name):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np.sqrt(v + self.eps) * self.w[name + ".weight"] + self.w[name + ".bias"]

    def gelu(self, x):
        if self.tanh:
            return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
        from math import erf
        return 0.5 * x * (1 + np.vectorize(erf)(x / np.sqrt(2)))

    def logits(self, ids):
        w = self.w
        t = len(ids)
        x = w["wte.weight"][ids] + w["wpe.weight"][:t]
        mask = np.triu(np.full((t, t), -np.inf), 1)
        for i in range(self.layers):
            p = "h.%d." % i
            qkv = self.ln(x, p + "ln_1") @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]
            q, k, v = [a.reshape(t, self.heads, -1).transpose(1, 0, 2) for a in np.split(qkv, 3, -1)]
            s = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1]) + mask
            s = np.exp(s - s.max(-1, keepdims=True))
            a = ((s / s.sum(-1, keepdims=True)) @ v).transpose(1, 0, 2).reshape(t, -1)
            x = x + a @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
            m = self.gelu(self.ln(x, p + "ln_2") @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"])
            x = x + m @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
        return self.ln(x, "ln_f") @ self.head.T


def main():
    d, tokens_file, n, prompt, k = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
    kind = json.load(open(os.path.join(d, "config.json")))["model_type"]
    m = Gpt2(d) if kind == "gpt2" else Llama(d)
    tokens = np.load(tokens_file).astype(np.int64)
    windows = (len(tokens) - 1) // n
    total = 0.0
    for i in range(windows):
        win = tokens[i * n: i * n + n + 1]
        z = m.logits(win[:-1])
        z = z - z.max(-1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(-1, keepdims=True))
        total -= logp[np.arange(n), win[1:]].sum()
    ids = [int(s) for s in prompt.split(",")]
    new = []
    for _ in range(k):
        nxt = int(np.argmax(m.logits(np.array(ids + new))[-1]))
        new.append(nxt)
    print(json.dumps({"loss": total / (windows * n), "tokens": windows * n, "greedy": new}))


if __name__ == "__main__":
    main()
