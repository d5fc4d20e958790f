"""TRL's GRPO formulas in NumPy, written from the papers and TRL's documentation: an independent reference for
Weft's GrpoLoss and Advantages. Reads cases as JSON (argv[1]), prints one JSON result per case."""
import json
import sys

import numpy as np


def advantages(rewards, group, scale):
    r = np.asarray(rewards, dtype=np.float64).reshape(-1, group)
    mean = r.mean(axis=1, keepdims=True)
    adv = r - mean
    if scale:
        adv = adv / (r.std(axis=1, ddof=1, keepdims=True) + 1e-4)
    return adv.reshape(-1)


def loss(c):
    logp = np.asarray(c["logp"], dtype=np.float64)
    old = np.asarray(c["old"], dtype=np.float64)
    ref = np.asarray(c["ref"], dtype=np.float64)
    mask = np.asarray(c["mask"], dtype=np.float64)
    adv = advantages(c["rewards"], c["group"], c["scale"])[:, None]
    coef1 = np.exp(logp - old)
    coef2 = np.clip(coef1, 1 - c["eps"], 1 + c["eps_high"])
    per_token = -np.minimum(coef1 * adv, coef2 * adv)
    kl = np.exp(ref - logp) - (ref - logp) - 1
    if c["beta"] != 0:
        per_token = per_token + c["beta"] * kl
    t = c["type"]
    if t == "grpo":
        value = ((per_token * mask).sum(-1) / np.maximum(mask.sum(-1), 1.0)).mean()
    elif t in ("bnpo", "dapo"):
        value = (per_token * mask).sum() / max(mask.sum(), 1.0)
    elif t == "dr_grpo":
        value = (per_token * mask).sum() / (per_token.shape[0] * c["max_new"])
    else:
        raise ValueError(t)
    clipped = ((coef1 < 1 - c["eps"]) & (adv < 0)) | ((coef1 > 1 + c["eps_high"]) & (adv > 0))
    return {
        "loss": float(value),
        "advantages": advantages(c["rewards"], c["group"], c["scale"]).tolist(),
        "clip_ratio": float((clipped * mask).sum() / mask.sum()),
        "kl": float((kl * mask).sum() / mask.sum()),
    }


with open(sys.argv[1]) as f:
    print(json.dumps([loss(c) for c in json.load(f)]))
