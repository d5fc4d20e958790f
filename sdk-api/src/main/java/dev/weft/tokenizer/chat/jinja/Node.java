package dev.weft.tokenizer.chat.jinja;

import java.util.List;

/** A template's statements, as parsed. */
sealed interface Node {
  record Text(String text) implements Node {}

  record Output(Expr expr) implements Node {}

  record If(List<Expr> tests, List<List<Node>> bodies, List<Node> orElse) implements Node {}

  /**
   * {@code for target in iter [if filter] [recursive]}, with {@code else} for when nothing was iterated; a recursive
   * one renders {@code loop(items)} as the same loop over {@code items}, one level deeper.
   */
  record For(Expr target, Expr iter, Expr filter, boolean recursive, List<Node> body, List<Node> orElse) implements Node {}

  /** {@code set target = value}: a name, names to unpack, or {@code ns.attr}. */
  record Set(Expr target, Expr value) implements Node {}

  /** {@code set name | filters %}...{% endset}}: the body's output, filtered, assigned. */
  record SetBlock(Expr target, List<Node> body, List<Expr.Filter> filters) implements Node {}

  record Macro(String name, List<String> params, List<Expr> defaults, List<Node> body) implements Node {}

  /** {@code call(params) macro(...)}: the call, with {@code caller(...)} rendering the body. */
  record CallBlock(Expr.Call call, List<String> params, List<Expr> defaults, List<Node> body) implements Node {}

  record FilterBlock(List<Expr.Filter> filters, List<Node> body) implements Node {}

  record With(List<Expr> targets, List<Expr> values, List<Node> body) implements Node {}

  /** transformers' {@code {% generation %}}: its output is a span of what the assistant generates. */
  record Generation(List<Node> body) implements Node {}

  record Break() implements Node {}

  record Continue() implements Node {}
}
