"""Renders chat-template cases the way transformers does (its own compiled Jinja2 environment), for Weft's tests.

usage: jinja_reference.py cases.json answers.json
cases.json: [{"template": str, "vars": {...}}]; answers.json: [{"text": str, "spans"?: [str]} | {"error": str}], in order (spans: the text of each non-empty
{% generation %} block, for templates that have them).
Each template is compiled by transformers' _compile_jinja_template (ImmutableSandboxedEnvironment, trim_blocks,
lstrip_blocks, loopcontrols, {% generation %}, raise_exception, strftime_now, its tojson) and rendered with the
case's variables, as render_jinja_template passes them.
"""
import json
import sys

from transformers.utils.chat_template_utils import _compile_jinja_template, _render_with_assistant_indices


def main(cases_path, answers_path):
    with open(cases_path, encoding="utf-8") as f:
        cases = json.load(f)
    answers = []
    for case in cases:
        try:
            template = _compile_jinja_template(case["template"])
            if "{% generation %}" in case["template"] or "{%- generation %}" in case["template"]:
                v = dict(case["vars"])
                text, spans = _render_with_assistant_indices(
                    template, v.pop("messages"), v.pop("tools", None), v.pop("documents", None),
                    v.pop("add_generation_prompt", False), **v)
                answers.append({"text": text, "spans": [text[a:b] for a, b in spans if b > a]})
            else:
                answers.append({"text": template.render(**case["vars"])})
        except Exception as e:  # noqa: BLE001 - every failure is an answer: Weft must refuse the same case
            answers.append({"error": type(e).__name__ + ": " + str(e).splitlines()[0] if str(e) else type(e).__name__})
    with open(answers_path, "w", encoding="utf-8") as f:
        json.dump(answers, f, ensure_ascii=False)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
