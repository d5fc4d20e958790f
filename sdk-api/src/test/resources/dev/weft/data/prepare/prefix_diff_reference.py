"""Reference for ChatTargetsCliTest: chat templates without {% generation %} blocks (Qwen 2.5's published template,
tool calls included, and a Llama 3 style one), 60 conversations with tools, tool calls, tool results, system prompts
and unicode, and for each what transformers' apply_chat_template gives (ids) and which of those ids are assistant
turns, found independently of Weft by diffing the renderings of each conversation's prefixes: for assistant message i,
what messages[:i+1] adds to messages[:i] with the generation prompt, through the turn's last end-of-turn token."""
import json
import os
import random
import sys

from transformers import AutoTokenizer

from chat_ref import LLAMA3, mask, save_tokenizer, spans, train_tokenizer, turn_ends

out = sys.argv[1]
# Qwen2.5-Instruct's chat_template (tokenizer_config.json of Qwen/Qwen2.5-0.5B-Instruct), tool branch included.
QWEN25 = (
    "{%- if tools %}\n"
    "    {{- '<|im_start|>system\\n' }}\n"
    "    {%- if messages[0]['role'] == 'system' %}\n"
    "        {{- messages[0]['content'] }}\n"
    "    {%- else %}\n"
    "        {{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.' }}\n"
    "    {%- endif %}\n"
    "    {{- \"\\n\\n# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<tools>\" }}\n"
    "    {%- for tool in tools %}\n"
    "        {{- \"\\n\" }}\n"
    "        {{- tool | tojson }}\n"
    "    {%- endfor %}\n"
    "    {{- \"\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\\"name\\\": <function-name>, \\\"arguments\\\": <args-json-object>}\\n</tool_call><|im_end|>\\n\" }}\n"
    "{%- else %}\n"
    "    {%- if messages[0]['role'] == 'system' %}\n"
    "        {{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}\n"
    "    {%- else %}\n"
    "        {{- '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\\n' }}\n"
    "    {%- endif %}\n"
    "{%- endif %}\n"
    "{%- for message in messages %}\n"
    "    {%- if (message.role == \"user\") or (message.role == \"system\" and not loop.first) or (message.role == \"assistant\" and not message.tool_calls) %}\n"
    "        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}\n"
    "    {%- elif message.role == \"assistant\" %}\n"
    "        {{- '<|im_start|>' + message.role }}\n"
    "        {%- if message.content %}\n"
    "            {{- '\\n' + message.content }}\n"
    "        {%- endif %}\n"
    "        {%- for tool_call in message.tool_calls %}\n"
    "            {%- if tool_call.function is defined %}\n"
    "                {%- set tool_call = tool_call.function %}\n"
    "            {%- endif %}\n"
    "            {{- '\\n<tool_call>\\n{\"name\": \"' }}\n"
    "            {{- tool_call.name }}\n"
    "            {{- '\", \"arguments\": ' }}\n"
    "            {{- tool_call.arguments | tojson }}\n"
    "            {{- '}\\n</tool_call>' }}\n"
    "        {%- endfor %}\n"
    "        {{- '<|im_end|>\\n' }}\n"
    "    {%- elif message.role == \"tool\" %}\n"
    "        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != \"tool\") %}\n"
    "            {{- '<|im_start|>user' }}\n"
    "        {%- endif %}\n"
    "        {{- '\\n<tool_response>\\n' }}\n"
    "        {{- message.content }}\n"
    "        {{- '\\n</tool_response>' }}\n"
    "        {%- if loop.last or (messages[loop.index0 + 1].role != \"tool\") %}\n"
    "            {{- '<|im_end|>\\n' }}\n"
    "        {%- endif %}\n"
    "    {%- endif %}\n"
    "{%- endfor %}\n"
    "{%- if add_generation_prompt %}\n"
    "    {{- '<|im_start|>assistant\\n' }}\n"
    "{%- endif %}\n")

# Rewrites earlier turns once a later one exists (the last assistant turn alone keeps its text): no prefix property.
REWRITING = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n"
    "{% if m.role == 'assistant' and not loop.last %}[earlier]{% else %}{{ m.content }}{% endif %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")

WORDS = ["the", "cat", "sat", "on", "mat", "and", "dog", "ran", "über", "naïve", "café", "中文", "字", "😀", "🚀", "ok",
         "why", "how", "is", "a", "test", "hello", "world", "مرحبا", "42", "3.14", "x\ty", "line\nbreak", "Ωmega", "ñ"]
TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "Weather in a city",
                                          "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                                         "required": ["city"]}}},
         {"type": "function", "function": {"name": "add", "description": "Adds numbers",
                                          "parameters": {"type": "object", "properties": {"a": {"type": "number"},
                                                                                          "b": {"type": "number"}}}}}]


def sentence(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def conversation(rng, i):
    msgs = []
    if i % 3 == 0:
        msgs.append({"role": "system", "content": sentence(rng, rng.randint(3, 9))})
    tools = i % 4 == 1
    for t in range(rng.randint(1, 3)):
        msgs.append({"role": "user", "content": sentence(rng, rng.randint(1, 10))})
        if tools and t == 0:
            calls = [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": rng.choice(WORDS)}}}]
            if i % 8 == 1:
                calls.append({"type": "function", "function": {"name": "add", "arguments": {"a": 1, "b": 2.5}}})
            msgs.append({"role": "assistant", "content": None if i % 8 == 1 else sentence(rng, 3), "tool_calls": calls})
            for c in calls:
                msgs.append({"role": "tool", "content": json.dumps({"result": sentence(rng, 2)}, ensure_ascii=False)})
        msgs.append({"role": "assistant", "content": sentence(rng, rng.randint(1, 12))})
    row = {"messages": msgs}
    if tools:
        row["tools"] = TOOLS
    return row


def main():
    rng = random.Random(40)
    rows = [conversation(rng, i) for i in range(60)]
    corpus = [json.dumps(r, ensure_ascii=False) for r in rows] * 3 + [QWEN25, "system user assistant tool_response"]
    tok = train_tokenizer(corpus, 800)
    configs = {
        "qwen25": {"chat_template": QWEN25, "eos_token": "<|im_end|>", "pad_token": "<|endoftext|>", "bos_token": None},
        "llama3": {"chat_template": LLAMA3, "bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
        "rewriting": {"chat_template": REWRITING, "eos_token": "<|im_end|>"},
    }
    ref = {}
    for name, cfg in configs.items():
        d = os.path.join(out, name)
        save_tokenizer(tok, d, cfg)
        if name == "rewriting":
            continue
        hf = AutoTokenizer.from_pretrained(d)
        ends = turn_ends(hf, cfg["chat_template"])
        use = rows if name == "qwen25" else [{"messages": [m for m in r["messages"] if m["role"] in ("system", "user")
                                                           or "tool_calls" not in m]} for r in rows]
        res = {"ids": [], "assistant": [], "last": [], "targets": []}
        for r in use:
            ids = hf.apply_chat_template(r["messages"], tools=r.get("tools"), tokenize=True, return_dict=True)["input_ids"]
            kw = {"tools": r.get("tools")}
            text = hf.apply_chat_template(r["messages"], tokenize=False, **kw)
            got, flags = mask(hf, text, spans(hf, r["messages"], ends, False, **kw))
            assert got == list(ids), "the rendered text encodes to apply_chat_template's ids"
            res["ids"].append(list(ids))
            res["assistant"].append(flags)
            res["last"].append(mask(hf, text, spans(hf, r["messages"], ends, True, **kw))[1])
            res["targets"].append([text[s:e] for s, e in spans(hf, r["messages"], ends, False, **kw)])
        ref[name] = res
        with open(os.path.join(out, name + ".jsonl"), "w", encoding="utf-8") as f:
            for r in use:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump(ref, f, ensure_ascii=False)


main()
