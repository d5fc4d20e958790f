"""Checks a PEFT adapter export and a merged export against peft's sources and NumPy.

Usage: lora_reference.py BASE_DIR PEFT_DIR MERGED_DIR
peft itself cannot be imported here (no torch): its sources are read with ast for the field and file names.
Prints one JSON object.
"""
import ast
import importlib.util
import json
import os
import sys

import numpy as np
from safetensors.numpy import load_file

base_dir, peft_dir, merged_dir = sys.argv[1:4]
peft_root = os.path.dirname(importlib.util.find_spec("peft").origin)


def dataclass_fields(path, classes):
    tree = ast.parse(open(path, encoding="utf-8").read())
    out = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name in classes:
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    out.add(item.target.id)
    return out


def constants(path):
    tree = ast.parse(open(path, encoding="utf-8").read())
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    out[t.id] = node.value.value
    return out


fields = dataclass_fields(os.path.join(peft_root, "tuners", "lora", "config.py"), {"LoraConfig"})
fields |= dataclass_fields(os.path.join(peft_root, "config.py"), {"PeftConfigMixin", "PeftConfig"})
names = constants(os.path.join(peft_root, "utils", "constants.py"))
config = json.load(open(os.path.join(peft_dir, names["CONFIG_NAME"])))
adapters = load_file(os.path.join(peft_dir, names["SAFETENSORS_WEIGHTS_NAME"]))
base = load_file(os.path.join(base_dir, "model.safetensors"))
merged = load_file(os.path.join(merged_dir, "model.safetensors"))

r, alpha = config["r"], config["lora_alpha"]
scale = alpha / (r ** 0.5) if config.get("use_rslora") else alpha / r
bad_names = []
for name in adapters:
    ok = name.startswith("base_model.model.") and (name.endswith(".lora_A.weight") or name.endswith(".lora_B.weight"))
    module = name[len("base_model.model."):].rsplit(".lora_", 1)[0]
    if not ok or module + ".weight" not in base or module.rsplit(".", 1)[1] not in config["target_modules"]:
        bad_names.append(name)

max_target_error, targets, identical, differing = 0.0, 0, 0, []
for name, w in base.items():
    module = name[: -len(".weight")]
    a = adapters.get("base_model.model." + module + ".lora_A.weight")
    b = adapters.get("base_model.model." + module + ".lora_B.weight")
    m = merged[name]
    if a is None:
        if m.dtype == w.dtype and m.shape == w.shape and m.tobytes() == w.tobytes():
            identical += 1
        else:
            differing.append(name)
        continue
    targets += 1
    want = w.astype(np.float64) + scale * (b.astype(np.float64) @ a.astype(np.float64))
    max_target_error = max(max_target_error, float(np.max(np.abs(m.astype(np.float64) - want))))

print(json.dumps({
    "unknown_fields": sorted(k for k in config if k not in fields),
    "config": config,
    "bad_names": bad_names,
    "adapters": len(adapters),
    "targets": targets,
    "identical": identical,
    "differing": differing,
    "merged_only": sorted(set(merged) - set(base)),
    "max_target_error": max_target_error,
}))
