"""Reference for ChatPrepareTest: a small byte-level BPE tokenizer, three chat templates written for the test
(ChatML in the Qwen 2.5 style, Llama 3 style, ChatML with {% generation %} blocks), 50 conversations as JSONL and
as Parquet, and what transformers' apply_chat_template gives for each (ids, and the assistant mask)."""
import json
import os
import random
import sys

import pyarrow as pa
import pyarrow.parquet as pq
from transformers import AutoTokenizer

from chat_ref import LLAMA3, save_tokenizer, train_tokenizer

out = sys.argv[1]
# ChatML, Qwen 2.5 style: a default system prompt, tool results folded into a user turn.
CHATML = (
    "{%- if messages[0]['role'] == 'system' %}"
    "{{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}"
    "{%- else %}"
    "{{- '<|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n' }}"
    "{%- endif %}\n"
    "{%- for message in messages %}\n"
    "    {%- if message.role == 'user' or (message.role == 'system' and not loop.first) or message.role == 'assistant' %}\n"
    "        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}\n"
    "    {%- elif message.role == 'tool' %}\n"
    "        {%- if loop.index0 == 0 or messages[loop.index0 - 1].role != 'tool' %}\n"
    "            {{- '<|im_start|>user' }}\n"
    "        {%- endif %}\n"
    "        {{- '\\n<tool_response>\\n' }}\n"
    "        {{- message.content }}\n"
    "        {{- '\\n</tool_response>' }}\n"
    "        {%- if loop.last or messages[loop.index0 + 1].role != 'tool' %}\n"
    "            {{- '<|im_end|>\\n' }}\n"
    "        {%- endif %}\n"
    "    {%- endif %}\n"
    "{%- endfor %}\n"
    "{%- if add_generation_prompt %}\n"
    "    {{- '<|im_start|>assistant\\n' }}\n"
    "{%- endif %}\n")

# ChatML whose assistant turns are marked with {% generation %}, and a namespace, tojson and loop controls.
GENERATION = (
    "{%- set ns = namespace(system=false) %}"
    "{%- for message in messages %}"
    "{%- if message.role == 'system' %}{% set ns.system = true %}{% endif %}"
    "{%- endfor %}"
    "{%- set note = {'note': 'no system prompt', 'tools': [{'name': 'f', 'args': {'x': 1.5, 'y': none, 's': 'é\\n'} } ]} %}"
    "{%- if not ns.system %}{{- '<|im_start|>system\\n' + note | tojson(indent=2) + '<|im_end|>\\n' }}{% endif %}"
    "{%- for message in messages %}"
    "{%- if message.role == 'tool' %}{% continue %}{% endif %}"
    "{%- if message.role == 'assistant' %}"
    "{{- '<|im_start|>assistant\\n' }}{% generation %}{{ message.content.strip() + '<|im_end|>' }}{% endgeneration %}{{ '\\n' }}"
    "{%- else %}"
    "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}"
    "{%- endif %}"
    "{%- endfor %}")

WORDS = ["the", "cat", "sat", "on", "mat", "and", "dog", "ran", "über", "naïve", "café", "中文", "字", "😀", "🚀", "ok",
         "why", "how", "is", "a", "test", "hello", "world", "tool", "result", "42", "3.14", "{\"k\": 1}", "x\ty",
         "line\nbreak", "  spaced  ", "Ωmega", "ñ"]


def sentence(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def conversation(rng, i):
    if i % 10 == 9:  # prompt/completion pairs
        return {"prompt": sentence(rng, rng.randint(2, 8)), "completion": sentence(rng, rng.randint(2, 8))}
    msgs = []
    if i % 3 == 0:
        msgs.append({"role": "system", "content": sentence(rng, rng.randint(3, 9))})
    for t in range(rng.randint(1, 4)):
        msgs.append({"role": "user", "content": sentence(rng, rng.randint(1, 10))})
        if i % 7 == 3 and t == 0:
            msgs.append({"role": "assistant", "content": "calling a tool"})
            msgs.append({"role": "tool", "content": sentence(rng, 3)})
        msgs.append({"role": "assistant", "content": (" " if i % 5 == 0 else "") + sentence(rng, rng.randint(1, 12))})
    return {"messages": msgs}


def as_messages(row):
    if "messages" in row:
        return row["messages"]
    return [{"role": "user", "content": row["prompt"]}, {"role": "assistant", "content": row["completion"]}]


def main():
    rng = random.Random(27)
    rows = [conversation(rng, i) for i in range(50)]
    corpus = [m["content"] for r in rows for m in as_messages(r)] * 3 + ["system user assistant tool_response You are a helpful"]
    tok = train_tokenizer(corpus, 600)
    configs = {
        "chatml": {"chat_template": CHATML, "eos_token": "<|im_end|>", "pad_token": "<|endoftext|>", "bos_token": None},
        "llama3": {"chat_template": LLAMA3, "bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
        "generation": {"chat_template": GENERATION, "eos_token": "<|im_end|>"},
    }
    ref = {}
    for name, cfg in configs.items():
        d = os.path.join(out, name)
        save_tokenizer(tok, d, cfg)
        hf = AutoTokenizer.from_pretrained(d)
        ids, masks = [], []
        for r in rows:
            enc = hf.apply_chat_template(as_messages(r), tokenize=True, return_dict=True,
                                         return_assistant_tokens_mask=name == "generation")
            ids.append(list(enc["input_ids"]))
            if name == "generation":
                masks.append(list(enc["assistant_masks"]))
        ref[name] = {"ids": ids, "masks": masks}
    with open(os.path.join(out, "chat.jsonl"), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    msg_type = pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())]))
    table = pa.table({
        "messages": pa.array([r.get("messages") for r in rows], type=msg_type),
        "prompt": pa.array([r.get("prompt") for r in rows], type=pa.string()),
        "completion": pa.array([r.get("completion") for r in rows], type=pa.string()),
    })
    pq.write_table(table, os.path.join(out, "chat.parquet"), row_group_size=16)
    texts = [sentence(rng, rng.randint(1, 30)) for _ in range(20)]
    with open(os.path.join(out, "text.jsonl"), "w", encoding="utf-8") as f:
        for t in texts:
            f.write(json.dumps({"id": len(t), "text": t}, ensure_ascii=False) + "\n")
    pq.write_table(pa.table({"id": [len(t) for t in texts], "text": texts}), os.path.join(out, "text.parquet"))
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump(ref, f)


main()
