"""What Weft's chat reference scripts share (chat_reference.py, prefix_diff_reference.py, chat_corpus_reference.py):
the special tokens and Llama 3 style template of the small test tokenizers, how such a tokenizer is trained and saved
for transformers, and the independent prefix-diff reference for assistant targets of templates without
{% generation %} blocks: for assistant message i, what messages[:i+1] adds to messages[:i] beyond the generation
prompt, through the turn's last end-of-turn token."""
import json
import os

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|begin_of_text|>", "<|start_header_id|>",
            "<|end_header_id|>", "<|eot_id|>"]
# The tokens that end a turn in the common templates: a template's ends are its eos_token and those it writes.
TURN_ENDS = ["<|im_end|>", "<|eot_id|>", "<|eom_id|>", "<|end|>", "<end_of_turn>", "</s>", "<|endoftext|>", "<|end_of_text|>"]

# Llama 3 style: bos, a header per message, contents trimmed.
LLAMA3 = (
    "{% set loop_messages = messages %}"
    "{% for message in loop_messages %}"
    "{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] | trim + '<|eot_id|>' %}"
    "{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}"
    "{{ content }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}")


def train_tokenizer(corpus, vocab_size, specials=SPECIALS):
    """A byte-level BPE tokenizer trained on corpus, each of specials one added special token."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=specials,
                                                       initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return tok


def save_tokenizer(tok, d, config):
    """tokenizer.json and a tokenizer_config.json holding config (chat_template, special tokens) under d."""
    os.makedirs(d, exist_ok=True)
    tok.save(os.path.join(d, "tokenizer.json"))
    with open(os.path.join(d, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(dict(config, tokenizer_class="PreTrainedTokenizerFast", model_max_length=4096), f, ensure_ascii=False)


def turn_ends(hf, template):
    return [e for e in [hf.eos_token] + TURN_ENDS if e and (e in template or e == hf.eos_token)]


def render(hf, msgs, gen, **kw):
    return hf.apply_chat_template(msgs, tokenize=False, add_generation_prompt=gen, **kw)


def spans(hf, msgs, ends, last_only, **kw):
    """The [start, end) character spans of the assistant turns (the last one only if last_only) of msgs rendered
    whole; AssertionError where a prefix's rendering is not the start of the longer one."""
    full = render(hf, msgs, False, **kw)
    found = []
    turns = [i for i, m in enumerate(msgs) if m["role"] == "assistant"]
    for i in turns[-1:] if last_only else turns:  # the last turn alone needs only its own prefixes
        before = render(hf, msgs[:i], False, **kw) if i else ""
        prompt = render(hf, msgs[:i], True, **kw) if i else ""
        with_ = render(hf, msgs[: i + 1], False, **kw)
        assert with_.startswith(before) and full.startswith(with_), "no prefix property at message %d" % (i + 1)
        start = max(len(before), len(os.path.commonprefix([prompt, with_])))
        stops = [with_.rfind(e) + len(e) for e in ends if with_.rfind(e) >= start]
        end = max(stops) if stops else len(with_.rstrip())
        if end > start:
            found.append((start, end))
    return found


def mask(hf, text, found):
    """text's ids and a 0/1 flag per id: 1 where the token overlaps a span of found."""
    enc = hf(text, add_special_tokens=False, return_offsets_mapping=True)
    flags = [0] * len(enc["input_ids"])
    for s, e in found:
        for t, (a, b) in enumerate(enc["offset_mapping"]):
            if a < e and b > s:
                flags[t] = 1
    return enc["input_ids"], flags
