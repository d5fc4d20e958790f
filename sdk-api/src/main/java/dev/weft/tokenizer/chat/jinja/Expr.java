package dev.weft.tokenizer.chat.jinja;

import java.util.List;

/** A template's expressions, as parsed. */
sealed interface Expr {
  record Const(Object value) implements Expr {}

  record Name(String name) implements Expr {}

  record ListLit(List<Expr> items) implements Expr {}

  record TupleLit(List<Expr> items) implements Expr {}

  record DictLit(List<Expr> keys, List<Expr> values) implements Expr {}

  record Attr(Expr target, String name) implements Expr {}

  record Item(Expr target, Expr index) implements Expr {}

  /** {@code [start:stop:step]}, any of them null. */
  record Slice(Expr start, Expr stop, Expr step) implements Expr {}

  record Call(Expr target, List<Expr> args, List<String> kwNames, List<Expr> kwValues) implements Expr {}

  /** {@code target | name(args)}; target null in a filter block. */
  record Filter(Expr target, String name, List<Expr> args, List<String> kwNames, List<Expr> kwValues) implements Expr {}

  record Test(Expr target, String name, List<Expr> args) implements Expr {}

  record Unary(String op, Expr operand) implements Expr {}

  record Binary(String op, Expr left, Expr right) implements Expr {}

  /** {@code first op1 rest1 op2 rest2 ...}: Python's chained comparison. */
  record Compare(Expr first, List<String> ops, List<Expr> rest) implements Expr {}

  record Cond(Expr test, Expr then, Expr orElse) implements Expr {}
}
