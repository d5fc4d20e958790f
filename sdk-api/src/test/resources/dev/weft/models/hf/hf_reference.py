"""Independent NumPy reference of Hugging Face Llama, Qwen 2, Qwen 3, Mistral, Mixtral, Qwen 2 MoE, Qwen 3 MoE and GPT-2
checkpoints (float64), for Weft's tests. MoE: softmax router, top-k (renormalised for Mixtral, with norm_topk_prob for
Qwen), each token through its k experts token by token, Qwen 2 MoE's shared expert behind its sigmoid gate; experts
read per expert or from transformers 5's fused gate_up_proj / down_proj.

Reads config.json and model.safetensors (or shards via model.safetensors.index.json) with nothing
but numpy and json, and prints JSON: the mean next-token cross-entropy over consecutive
non-overlapping windows of seq_len + 1 tokens of a .npy token file, and greedy continuation ids
(recomputing the whole prefix each step, no cache), ending at the model's stop tokens.

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


def unfuse(w, kind, c):
    """transformers 5's fused experts (and Mixtral's mlp module name there) back to the Hub's per-expert tensors."""
    if not any(k.endswith(".experts.gate_up_proj") for k in w):
        return w
    mixtral = kind == "mixtral"
    parts = ("w1", "w3", "w2") if mixtral else ("gate_proj", "up_proj", "down_proj")
    block = ".block_sparse_moe." if mixtral else ".mlp."
    out = {}
    for name, a in w.items():
        if name.endswith(".experts.gate_up_proj"):
            base = name[: -len("mlp.experts.gate_up_proj")] + block[1:] + "experts."
            half = a.shape[1] // 2
            for e in range(a.shape[0]):
                out[base + "%d.%s.weight" % (e, parts[0])] = a[e, :half]
                out[base + "%d.%s.weight" % (e, parts[1])] = a[e, half:]
        elif name.endswith(".experts.down_proj"):
            base = name[: -len("mlp.experts.down_proj")] + block[1:] + "experts."
            for e in range(a.shape[0]):
                out[base + "%d.%s.weight" % (e, parts[2])] = a[e]
        else:
            out[name.replace(".mlp.gate.", block + "gate.") if mixtral else name] = a
    return out


def rope_inv_freq(c, hd, seq_len):
    """Inverse frequencies as transformers' modeling_rope_utils gives them (rope_scaling or rope_parameters)."""
    p = c.get("rope_parameters") or c.get("rope_scaling") or {}
    base = p.get("rope_theta", c.get("rope_theta", 10000.0))
    kind = p.get("rope_type", p.get("type", "default"))
    max_pos = c.get("max_position_embeddings", 2048)
    orig = p.get("original_max_position_embeddings", max_pos)
    exps = np.arange(0, hd, 2) / hd
    if kind == "dynamic" and seq_len > max_pos:
        f = p["factor"]
        base = base * ((f * seq_len / max_pos) - (f - 1)) ** (hd / (hd - 2))
    inv = 1.0 / base ** exps
    scale = 1.0
    if kind == "linear":
        inv = inv / p["factor"]
    elif kind == "llama3":
        f, lo, hi = p["factor"], p["low_freq_factor"], p["high_freq_factor"]
        wave = 2 * np.pi / inv
        smooth = (orig / wave - lo) / (hi - lo)
        mid = (1 - smooth) * inv / f + smooth * inv
        inv = np.where(wave > orig / lo, inv / f, np.where(wave < orig / hi, inv, mid))
    elif kind == "yarn":
        f = p.get("factor") or max_pos / orig

        def mscale(x, m=1.0):
            return 1.0 if x <= 1 else 0.1 * m * np.log(x) + 1.0

        if p.get("attention_factor") is not None:
            scale = p["attention_factor"]
        elif p.get("mscale") and p.get("mscale_all_dim"):
            scale = mscale(f, p["mscale"]) / mscale(f, p["mscale_all_dim"])
        else:
            scale = mscale(f)

        def dim_for(rot):
            return hd * np.log(orig / (rot * 2 * np.pi)) / (2 * np.log(base))

        lo, hi = dim_for(p.get("beta_fast") or 32), dim_for(p.get("beta_slow") or 1)
        if p.get("truncate", True):
            lo, hi = np.floor(lo), np.ceil(hi)
        lo, hi = max(lo, 0), min(hi, hd - 1)
        if lo == hi:
            hi += 0.001
        keep = 1 - np.clip((np.arange(hd // 2) - lo) / (hi - lo), 0, 1)
        inv = inv / f * (1 - keep) + inv * keep
    elif kind not in ("default", "dynamic"):
        raise SystemExit("rope_type " + kind)
    return inv, scale


class Decoder:
    """Llama, Qwen 2, Qwen 3 and Mistral as transformers computes them."""

    def __init__(self, d):
        c = json.load(open(os.path.join(d, "config.json")))
        self.c = c
        self.kind = c["model_type"]
        self.w = unfuse(read_weights(d), self.kind, c)
        self.layers = c["num_hidden_layers"]
        self.heads = c["num_attention_heads"]
        self.kv = c.get("num_key_value_heads", self.heads)
        self.hd = c.get("head_dim") or (128 if self.kind == "qwen3" else c["hidden_size"] // self.heads)
        self.eps = c.get("rms_norm_eps", 1e-6)
        self.qkv_bias = (self.kind == "qwen2" or (self.kind == "qwen2_moe" and c.get("qkv_bias", True))
                         or c.get("attention_bias", False))
        self.o_bias = self.kind not in ("qwen2", "qwen2_moe") and c.get("attention_bias", False)
        self.mlp_bias = c.get("mlp_bias", False)
        self.window = c.get("sliding_window", 4096) if self.kind == "mistral" else None
        self.head = self.w["model.embed_tokens.weight"] if c.get("tie_word_embeddings", False) else self.w["lm_head.weight"]

    def sparse(self, i):
        c = self.c
        if self.kind == "mixtral":
            return True
        if self.kind not in ("qwen2_moe", "qwen3_moe"):
            return False
        return i not in (c.get("mlp_only_layers") or []) and (i + 1) % c.get("decoder_sparse_step", 1) == 0

    def swiglu(self, h, names):
        g, u = h @ self.w[names[0]].T, h @ self.w[names[1]].T
        return (g / (1 + np.exp(-g)) * u) @ self.w[names[2]].T

    def moe(self, h, p):
        c, mixtral = self.c, self.kind == "mixtral"
        block = p + ("block_sparse_moe." if mixtral else "mlp.")
        parts = ("w1", "w3", "w2") if mixtral else ("gate_proj", "up_proj", "down_proj")
        k = c["num_experts_per_tok"]
        z = h @ self.w[block + "gate.weight"].T
        probs = np.exp(z - z.max(-1, keepdims=True))
        probs = probs / probs.sum(-1, keepdims=True)
        out = np.zeros_like(h)
        for t in range(h.shape[0]):
            chosen = np.argsort(-probs[t], kind="stable")[:k]
            weights = probs[t][chosen]
            if mixtral or c.get("norm_topk_prob", False):
                weights = weights / weights.sum()
            for e, wt in zip(chosen, weights):
                out[t] += wt * self.swiglu(h[t], [block + "experts.%d.%s.weight" % (e, q) for q in parts])
        if c.get("shared_expert_intermediate_size"):
            s = self.swiglu(h, [block + "shared_expert.%s.weight" % q for q in parts])
            gate = h @ self.w[block + "shared_expert_gate.weight"].T
            out = out + s / (1 + np.exp(-gate))
        return out

    def norm(self, x, name):
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + self.eps) * self.w[name]

    def lin(self, x, name, bias):
        y = x @ self.w[name + ".weight"].T
        return y + self.w[name + ".bias"] if bias else y

    def rope(self, x):  # x [heads, T, hd]; Hugging Face's rotate_half convention
        t = x.shape[1]
        inv, scale = rope_inv_freq(self.c, self.hd, t)
        ang = np.outer(np.arange(t), inv)
        ang = np.concatenate([ang, ang], -1)
        half = self.hd // 2
        rot = np.concatenate([-x[..., half:], x[..., :half]], -1)
        return x * np.cos(ang) * scale + rot * np.sin(ang) * scale

    def logits(self, ids):
        w = self.w
        x = w["model.embed_tokens.weight"][ids]
        t = len(ids)
        i, j = np.arange(t)[:, None], np.arange(t)[None, :]
        visible = j <= i
        if self.window is not None:
            visible &= j > i - self.window
        mask = np.where(visible, 0.0, -np.inf)
        for n in range(self.layers):
            p = "model.layers.%d." % n
            h = self.norm(x, p + "input_layernorm.weight")
            q = self.lin(h, p + "self_attn.q_proj", self.qkv_bias).reshape(t, self.heads, self.hd).transpose(1, 0, 2)
            k = self.lin(h, p + "self_attn.k_proj", self.qkv_bias).reshape(t, self.kv, self.hd).transpose(1, 0, 2)
            v = self.lin(h, p + "self_attn.v_proj", self.qkv_bias).reshape(t, self.kv, self.hd).transpose(1, 0, 2)
            if self.kind in ("qwen3", "qwen3_moe"):
                q, k = self.norm(q, p + "self_attn.q_norm.weight"), self.norm(k, p + "self_attn.k_norm.weight")
            q, k = self.rope(q), self.rope(k)
            rep = self.heads // self.kv
            k, v = np.repeat(k, rep, 0), np.repeat(v, rep, 0)
            s = q @ k.transpose(0, 2, 1) / np.sqrt(self.hd) + mask
            s = np.exp(s - s.max(-1, keepdims=True))
            a = (s / s.sum(-1, keepdims=True)) @ v
            x = x + self.lin(a.transpose(1, 0, 2).reshape(t, -1), p + "self_attn.o_proj", self.o_bias)
            h = self.norm(x, p + "post_attention_layernorm.weight")
            if self.sparse(n):
                x = x + self.moe(h, p)
                continue
            g = self.lin(h, p + "mlp.gate_proj", self.mlp_bias)
            u = self.lin(h, p + "mlp.up_proj", self.mlp_bias)
            x = x + self.lin(g / (1 + np.exp(-g)) * u, p + "mlp.down_proj", self.mlp_bias)
        return self.norm(x, "model.norm.weight") @ self.head.T


def stop_tokens(d):
    """generation_config.json's eos_token_id, else config.json's: an id or a list."""
    for name in ("generation_config.json", "config.json"):
        f = os.path.join(d, name)
        if os.path.exists(f):
            e = json.load(open(f)).get("eos_token_id")
            if e is not None:
                return set(e) if isinstance(e, list) else {e}
    return set()


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
    m = Gpt2(d) if kind == "gpt2" else Decoder(d)
    stops = stop_tokens(d) if kind != "gpt2" else set()
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
        if nxt in stops:
            break
    print(json.dumps({"loss": total / (windows * n), "tokens": windows * n, "greedy": new}))


if __name__ == "__main__":
    main()
