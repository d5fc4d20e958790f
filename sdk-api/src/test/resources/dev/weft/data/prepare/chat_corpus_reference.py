"""Reference for ChatCorpusIdsTest: the published templates of the chat corpus, each with a tokenizer that knows its
special tokens, and for every conversation what transformers gives: apply_chat_template(..., tokenize=True) ids (or
the error it raises) and the assistant targets: the {% generation %} mask where the template has one, else the
prefix-diff reference of chat_ref.py (or why it refuses).

usage: chat_corpus_reference.py DIR   (DIR/cases.json: {"templates": {name: source}, "conversations": [{"messages",
"tools", "extra", "add_generation_prompt"}]}; writes DIR/NAME/tokenizer*.json and DIR/reference.json)"""
import json
import os
import re
import sys

from transformers import AutoTokenizer

from chat_ref import mask, save_tokenizer, spans, train_tokenizer, turn_ends

SPECIAL = re.compile(r"<\|[^|<>\s'\"]{1,40}\|>|<｜[^｜<>'\"]{1,40}｜>|\[/?[A-Z][A-Z_]{2,30}\]|<start_of_turn>|<end_of_turn>|</?s>")
DEFAULT = {"bos_token": "<|bos|>", "eos_token": "<|eos|>"}
# The bos and eos the models' own tokenizer configs name, where the template relies on them.
SPECIAL_TOKENS = {
    "deepseek": {"bos_token": "<｜begin▁of▁sentence｜>", "eos_token": "<｜end▁of▁sentence｜>"},
    "llama-3": {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
    "llama-4": {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot|>"},
    "mistral": {"bos_token": "<s>", "eos_token": "</s>"},
    "zephyr": {"bos_token": "<s>", "eos_token": "</s>"},
    "gemma": {"bos_token": "<bos>", "eos_token": "<eos>"},
    "qwen": {"bos_token": None, "eos_token": "<|im_end|>"},
    "chatml": {"bos_token": "<|bos|>", "eos_token": "<|im_end|>"},
    "hermes": {"bos_token": "<|begin_of_text|>", "eos_token": "<|im_end|>"},
    "lfm2": {"bos_token": "<|startoftext|>", "eos_token": "<|im_end|>"},
    "kimi": {"bos_token": "[BOS]", "eos_token": "[EOS]"},
    "granite": {"bos_token": "<|end_of_text|>", "eos_token": "<|end_of_text|>"},
    "phi-4": {"bos_token": "<|endoftext|>", "eos_token": "<|end|>"},
}


def specials_of(name):
    for prefix, tokens in SPECIAL_TOKENS.items():
        if name.startswith(prefix):
            return tokens
    return DEFAULT


def answer(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - a raise is an answer: Weft must refuse the same case
        return {"error": type(e).__name__ + ": " + (str(e).splitlines() or [""])[0]}


def main(out):
    with open(os.path.join(out, "cases.json"), encoding="utf-8") as f:
        cases = json.load(f)
    templates, conversations = cases["templates"], cases["conversations"]
    specials = sorted({t for s in templates.values() for t in SPECIAL.findall(s)}
                      | {t for n in templates for t in specials_of(n).values() if t})
    corpus = [json.dumps(c, ensure_ascii=False) for c in conversations] * 3 + list(templates.values())
    tok = train_tokenizer(corpus, 3000, specials)
    ref = {}
    for name, source in templates.items():
        d = os.path.join(out, name)
        save_tokenizer(tok, d, dict(specials_of(name), chat_template=source))
        hf = AutoTokenizer.from_pretrained(d)
        generation = "generation %}" in source
        ends = turn_ends(hf, source)
        res = []
        for c in conversations:
            msgs, kw = c["messages"], dict(c.get("extra") or {}, tools=c.get("tools"))
            ids = answer(lambda: {"ids": list(hf.apply_chat_template(
                msgs, tokenize=True, return_dict=True, add_generation_prompt=c["add_generation_prompt"], **kw)["input_ids"])})

            def targets(last_only):
                if generation and last_only:
                    return None  # transformers' mask has every block; the last one alone is Weft's own choice
                if generation:
                    enc = hf.apply_chat_template(msgs, tokenize=True, return_dict=True, return_assistant_tokens_mask=True, **kw)
                    return {"ids": list(enc["input_ids"]), "flags": list(enc["assistant_masks"])}
                text = hf.apply_chat_template(msgs, tokenize=False, **kw)
                got, flags = mask(hf, text, spans(hf, msgs, ends, last_only, **kw))
                return {"ids": got, "flags": flags}

            res.append({"ids": ids, "assistant": answer(lambda: targets(False)), "last": answer(lambda: targets(True))})
        ref[name] = res
    with open(os.path.join(out, "reference.json"), "w", encoding="utf-8") as f:
        json.dump(ref, f, ensure_ascii=False)


main(sys.argv[1])
