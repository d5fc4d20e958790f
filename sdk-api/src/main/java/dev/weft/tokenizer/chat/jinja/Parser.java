package dev.weft.tokenizer.chat.jinja;

import dev.weft.tokenizer.chat.jinja.Lexer.Kind;
import dev.weft.tokenizer.chat.jinja.Lexer.Token;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Tokens → statements and expressions, with Jinja2's grammar and operator precedence. What a chat template may not
 * do (include, import, extends, unknown tags, filters or tests) is refused here, naming it, before any data is seen.
 */
final class Parser {
  private static final Set<String> FORBIDDEN = Set.of("include", "import", "from", "extends", "block");
  private static final Set<String> COMPARE = Set.of("==", "!=", "<", ">", "<=", ">=");

  private final List<Token> tokens;
  private int at;
  private int depth;

  private Parser(List<Token> tokens) { this.tokens = tokens; }

  static List<Node> parse(String source) {
    Parser p = new Parser(Lexer.lex(source));
    List<Node> body = p.body(Set.of());
    if (p.peek().kind() != Kind.EOF) throw p.error("unexpected '" + p.peek().text() + "'");
    return body;
  }

  // ---- token stream

  private Token peek() { return tokens.get(at); }

  private Token look() { return tokens.get(Math.min(at + 1, tokens.size() - 1)); }

  private Token next() { return tokens.get(at++); }

  private TemplateError error(String message) { return TemplateError.syntax(peek().line(), message); }

  private boolean skipOp(String op) {
    if (!peek().op(op)) return false;
    at++;
    return true;
  }

  private boolean skipName(String name) {
    if (!peek().name(name)) return false;
    at++;
    return true;
  }

  private void expectOp(String op) {
    if (!skipOp(op)) throw error("expected '" + op + "', got " + describe(peek()));
  }

  private String expectName() {
    if (peek().kind() != Kind.NAME) throw error("expected a name, got " + describe(peek()));
    return next().text();
  }

  private void expectBlockEnd() {
    if (peek().kind() != Kind.BLOCK_END) throw error("expected the end of the tag, got " + describe(peek()));
    at++;
  }

  private static String describe(Token t) {
    return switch (t.kind()) {
      case EOF -> "the end of the template";
      case BLOCK_END -> "'%}'";
      case VAR_END -> "'}}'";
      default -> "'" + t.text() + "'";
    };
  }

  // ---- statements

  /** Statements up to a block tag named in {@code ends}; left positioned at that name. */
  private List<Node> body(Set<String> ends) {
    List<Node> nodes = new ArrayList<>();
    while (true) {
      Token t = peek();
      switch (t.kind()) {
        case EOF -> {
          if (!ends.isEmpty()) throw error("unexpected end of template; expected one of " + ends);
          return nodes;
        }
        case DATA -> nodes.add(new Node.Text((String) next().value()));
        case VAR_BEGIN -> {
          next();
          nodes.add(new Node.Output(tuple(true, Set.of())));
          if (peek().kind() != Kind.VAR_END) throw error("expected '}}', got " + describe(peek()));
          next();
        }
        case BLOCK_BEGIN -> {
          Token name = look();
          if (name.kind() == Kind.NAME && ends.contains(name.text())) {
            next();
            return nodes;
          }
          next();
          nodes.add(statement());
        }
        default -> throw error("unexpected " + describe(t));
      }
    }
  }

  /** The body of a block ending at {@code end}, the end tag consumed. */
  private List<Node> block(String end) {
    List<Node> b = body(Set.of(end));
    next();
    expectBlockEnd();
    return b;
  }

  private Node statement() {
    Token t = peek();
    if (t.kind() != Kind.NAME) throw error("expected a tag name, got " + describe(t));
    String tag = next().text();
    if (FORBIDDEN.contains(tag)) {
      throw TemplateError.syntax(t.line(), "'{% " + tag + " %}' is not allowed in a chat template (a template may not read other files)");
    }
    if (++depth > 500) throw error("blocks nested more than 500 deep");
    try {
      return switch (tag) {
        case "if" -> ifStatement();
        case "for" -> forStatement();
        case "set" -> setStatement();
        case "macro" -> macro();
        case "call" -> callBlock();
        case "filter" -> filterBlock();
        case "with" -> with();
        case "generation" -> {
          expectBlockEnd();
          yield new Node.Generation(block("endgeneration"));
        }
        case "break" -> {
          expectBlockEnd();
          yield new Node.Break();
        }
        case "continue" -> {
          expectBlockEnd();
          yield new Node.Continue();
        }
        default -> throw TemplateError.syntax(t.line(), "unknown tag '" + tag + "'");
      };
    } finally {
      depth--;
    }
  }

  private Node ifStatement() {
    List<Expr> tests = new ArrayList<>();
    List<List<Node>> bodies = new ArrayList<>();
    tests.add(tuple(false, Set.of()));
    expectBlockEnd();
    while (true) {
      bodies.add(body(Set.of("elif", "else", "endif")));
      String end = next().text();
      if (end.equals("elif")) {
        tests.add(tuple(false, Set.of()));
        expectBlockEnd();
      } else if (end.equals("else")) {
        expectBlockEnd();
        List<Node> orElse = block("endif");
        return new Node.If(tests, bodies, orElse);
      } else {
        expectBlockEnd();
        return new Node.If(tests, bodies, List.of());
      }
    }
  }

  private Node forStatement() {
    Expr target = assignTarget(false, Set.of("in"));
    if (!skipName("in")) throw error("expected 'in' in the for loop");
    Expr iter = tuple(false, Set.of("recursive"), false);
    Expr filter = skipName("if") ? expression(true) : null;
    boolean recursive = skipName("recursive");
    expectBlockEnd();
    List<Node> body = body(Set.of("else", "endfor"));
    List<Node> orElse = List.of();
    if (next().text().equals("else")) {
      expectBlockEnd();
      orElse = body(Set.of("endfor"));
      next();
    }
    expectBlockEnd();
    return new Node.For(target, iter, filter, recursive, body, orElse);
  }

  private Node setStatement() {
    Expr target = assignTarget(true, Set.of());
    if (skipOp("=")) {
      Expr value = tuple(true, Set.of());
      expectBlockEnd();
      return new Node.Set(target, value);
    }
    List<Expr.Filter> filters = new ArrayList<>();
    while (peek().op("|")) filters.add(filter(null));
    expectBlockEnd();
    return new Node.SetBlock(target, block("endset"), filters);
  }

  private Node macro() {
    String name = expectName();
    List<String> params = new ArrayList<>();
    List<Expr> defaults = new ArrayList<>();
    signature(params, defaults);
    expectBlockEnd();
    return new Node.Macro(name, params, defaults, block("endmacro"));
  }

  private void signature(List<String> params, List<Expr> defaults) {
    expectOp("(");
    while (!skipOp(")")) {
      if (!params.isEmpty()) expectOp(",");
      if (skipOp(")")) break;
      params.add(expectName());
      if (skipOp("=")) defaults.add(expression(true));
      else if (!defaults.isEmpty()) throw error("a parameter without a default follows one with a default");
    }
  }

  private Node callBlock() {
    List<String> params = new ArrayList<>();
    List<Expr> defaults = new ArrayList<>();
    if (peek().op("(")) signature(params, defaults);
    Expr call = expression(true);
    if (!(call instanceof Expr.Call c)) throw error("expected a call after {% call %}");
    expectBlockEnd();
    return new Node.CallBlock(c, params, defaults, block("endcall"));
  }

  private Node filterBlock() {
    List<Expr.Filter> filters = new ArrayList<>();
    filters.add(filterNamed(null));
    while (peek().op("|")) filters.add(filter(null));
    expectBlockEnd();
    return new Node.FilterBlock(filters, block("endfilter"));
  }

  private Node with() {
    List<Expr> targets = new ArrayList<>();
    List<Expr> values = new ArrayList<>();
    while (peek().kind() != Kind.BLOCK_END) {
      if (!targets.isEmpty()) expectOp(",");
      targets.add(assignTarget(false, Set.of()));
      expectOp("=");
      values.add(expression(true));
    }
    expectBlockEnd();
    return new Node.With(targets, values, block("endwith"));
  }

  /** A name, names to unpack ({@code a, b} or {@code (a, b)}), or with {@code namespace} {@code ns.attr}. */
  private Expr assignTarget(boolean namespace, Set<String> endNames) {
    if (namespace && peek().kind() == Kind.NAME && look().op(".")) {
      String ns = next().text();
      next();
      return new Expr.Attr(new Expr.Name(ns), expectName());
    }
    List<Expr> names = new ArrayList<>();
    boolean paren = skipOp("(");
    boolean tuple = paren;
    while (true) {
      if (!names.isEmpty()) {
        if (!skipOp(",")) break;
        tuple = true;
      }
      if (peek().op("(") && !names.isEmpty() || peek().op("(") && paren) {
        names.add(assignTarget(false, endNames)); // a nested target: for a, (b, c) in ...
        continue;
      }
      if (peek().kind() != Kind.NAME || endNames.contains(peek().text())) break;
      names.add(new Expr.Name(next().text()));
    }
    if (paren) expectOp(")");
    if (names.isEmpty()) throw error("expected a name to assign to, got " + describe(peek()));
    return tuple ? new Expr.TupleLit(names) : names.get(0);
  }

  // ---- expressions

  private Expr tuple(boolean condexpr, Set<String> endNames) { return tuple(condexpr, endNames, false); }

  /** Expressions separated by commas: one is itself, more (or a trailing comma) a tuple. */
  private Expr tuple(boolean condexpr, Set<String> endNames, boolean explicit) {
    List<Expr> items = new ArrayList<>();
    boolean isTuple = false;
    while (true) {
      if (!items.isEmpty()) expectOp(",");
      Token t = peek();
      if (t.kind() == Kind.VAR_END || t.kind() == Kind.BLOCK_END || t.op(")") || (t.kind() == Kind.NAME && endNames.contains(t.text()))) break;
      items.add(expression(condexpr));
      if (peek().op(",")) isTuple = true;
      else break;
    }
    if (!isTuple) {
      if (!items.isEmpty()) return items.get(0);
      if (!explicit) throw error("expected an expression, got " + describe(peek()));
    }
    return new Expr.TupleLit(items);
  }

  private Expr expression(boolean condexpr) { return nested(() -> condexpr ? condexpr() : or()); }

  /** Parses a nested part, refusing nesting so deep that it would overflow the stack. */
  private Expr nested(java.util.function.Supplier<Expr> part) {
    if (++depth > 500) throw error("an expression nested more than 500 deep");
    try {
      return part.get();
    } finally {
      depth--;
    }
  }

  private Expr condexpr() {
    Expr e = or();
    while (skipName("if")) {
      Expr test = or();
      Expr orElse = skipName("else") ? condexpr() : null;
      e = new Expr.Cond(test, e, orElse);
    }
    return e;
  }

  /** One level of left-associative binary operators: {@code operand (op operand)*}. */
  private Expr leftAssoc(java.util.function.Supplier<Expr> operand, Set<String> ops) {
    Expr e = operand.get();
    while ((peek().kind() == Kind.OP || peek().kind() == Kind.NAME) && ops.contains(peek().text())) {
      e = new Expr.Binary(next().text(), e, operand.get());
    }
    return e;
  }

  private Expr or() { return leftAssoc(this::and, Set.of("or")); }

  private Expr and() { return leftAssoc(this::not, Set.of("and")); }

  private Expr not() {
    if (skipName("not")) return new Expr.Unary("not", not());
    return compare();
  }

  private Expr compare() {
    Expr first = math1();
    List<String> ops = new ArrayList<>();
    List<Expr> rest = new ArrayList<>();
    while (true) {
      Token t = peek();
      if (t.kind() == Kind.OP && COMPARE.contains(t.text())) {
        next();
        ops.add(t.text());
      } else if (t.name("in")) {
        next();
        ops.add("in");
      } else if (t.name("not") && look().name("in")) {
        at += 2;
        ops.add("not in");
      } else {
        break;
      }
      rest.add(math1());
    }
    return ops.isEmpty() ? first : new Expr.Compare(first, ops, rest);
  }

  private Expr math1() { return leftAssoc(this::concat, Set.of("+", "-")); }

  private Expr concat() { return leftAssoc(this::math2, Set.of("~")); }

  private Expr math2() { return leftAssoc(this::pow, Set.of("*", "/", "//", "%")); }

  private Expr pow() { return leftAssoc(() -> unary(true), Set.of("**")); }

  private Expr unary(boolean withFilter) {
    Expr e;
    if (peek().op("-") || peek().op("+")) {
      String op = next().text();
      e = new Expr.Unary(op, nested(() -> unary(false)));
    } else {
      e = primary();
    }
    e = postfix(e);
    return withFilter ? filterExpr(e) : e;
  }

  private Expr primary() {
    Token t = next();
    switch (t.kind()) {
      case NAME -> {
        return switch (t.text()) {
          case "true", "True" -> new Expr.Const(true);
          case "false", "False" -> new Expr.Const(false);
          case "none", "None" -> new Expr.Const(null);
          default -> new Expr.Name(t.text());
        };
      }
      case STRING -> {
        StringBuilder s = new StringBuilder((String) t.value());
        while (peek().kind() == Kind.STRING) s.append((String) next().value()); // adjacent literals join, as in Python
        return new Expr.Const(s.toString());
      }
      case INT, FLOAT -> {
        return new Expr.Const(t.value());
      }
      case OP -> {
        if (t.text().equals("(")) {
          Expr e = nested(() -> tuple(true, Set.of(), true));
          expectOp(")");
          return e;
        }
        if (t.text().equals("[")) {
          List<Expr> items = new ArrayList<>();
          while (!skipOp("]")) {
            if (!items.isEmpty()) expectOp(",");
            if (skipOp("]")) break;
            items.add(expression(true));
          }
          return new Expr.ListLit(items);
        }
        if (t.text().equals("{")) {
          List<Expr> keys = new ArrayList<>();
          List<Expr> values = new ArrayList<>();
          while (!skipOp("}")) {
            if (!keys.isEmpty()) expectOp(",");
            if (skipOp("}")) break;
            keys.add(expression(true));
            expectOp(":");
            values.add(expression(true));
          }
          return new Expr.DictLit(keys, values);
        }
      }
      default -> { }
    }
    at--;
    throw error("unexpected " + describe(t));
  }

  private Expr postfix(Expr e) {
    while (true) {
      if (skipOp(".")) {
        Token t = next();
        if (t.kind() == Kind.NAME) e = new Expr.Attr(e, t.text());
        else if (t.kind() == Kind.INT) e = new Expr.Item(e, new Expr.Const(t.value()));
        else throw TemplateError.syntax(t.line(), "expected a name after '.', got " + describe(t));
      } else if (skipOp("[")) {
        List<Expr> index = new ArrayList<>();
        while (!skipOp("]")) {
          if (!index.isEmpty()) expectOp(",");
          index.add(subscript());
        }
        if (index.isEmpty()) throw error("expected a subscript");
        e = new Expr.Item(e, index.size() == 1 ? index.get(0) : new Expr.TupleLit(index));
      } else if (peek().op("(")) {
        e = call(e);
      } else {
        return e;
      }
    }
  }

  private Expr subscript() {
    Expr start = null;
    if (!peek().op(":")) {
      start = expression(true);
      if (!peek().op(":")) return start;
    }
    next();
    Expr stop = peek().op("]") || peek().op(",") || peek().op(":") ? null : expression(true);
    Expr step = null;
    if (skipOp(":")) step = peek().op("]") || peek().op(",") ? null : expression(true);
    return new Expr.Slice(start, stop, step);
  }

  private Expr.Call call(Expr target) {
    List<Expr> args = new ArrayList<>();
    List<String> kwNames = new ArrayList<>();
    List<Expr> kwValues = new ArrayList<>();
    callArgs(args, kwNames, kwValues);
    return new Expr.Call(target, args, kwNames, kwValues);
  }

  private void callArgs(List<Expr> args, List<String> kwNames, List<Expr> kwValues) {
    expectOp("(");
    boolean first = true;
    while (!skipOp(")")) {
      if (!first) {
        expectOp(",");
        if (skipOp(")")) break;
      }
      first = false;
      if (peek().op("*") || peek().op("**")) throw error("*args and **kwargs in calls are not supported");
      if (peek().kind() == Kind.NAME && look().op("=")) {
        kwNames.add(next().text());
        next();
        kwValues.add(expression(true));
      } else {
        if (!kwNames.isEmpty()) throw error("a positional argument follows a keyword argument");
        args.add(expression(true));
      }
    }
  }

  private Expr filterExpr(Expr e) {
    while (true) {
      if (peek().op("|")) e = filter(e);
      else if (peek().name("is")) e = test(e);
      else if (peek().op("(")) e = call(e);
      else return e;
    }
  }

  private Expr.Filter filter(Expr target) {
    expectOp("|");
    return filterNamed(target);
  }

  private Expr.Filter filterNamed(Expr target) {
    int line = peek().line();
    StringBuilder name = new StringBuilder(expectName());
    while (peek().op(".") && look().kind() == Kind.NAME) {
      next();
      name.append('.').append(next().text());
    }
    if (!Filters.has(name.toString())) throw TemplateError.syntax(line, "no filter named '" + name + "'");
    List<Expr> args = new ArrayList<>();
    List<String> kwNames = new ArrayList<>();
    List<Expr> kwValues = new ArrayList<>();
    if (peek().op("(")) callArgs(args, kwNames, kwValues);
    return new Expr.Filter(target, name.toString(), args, kwNames, kwValues);
  }

  private Expr test(Expr target) {
    next(); // is
    boolean negated = skipName("not");
    int line = peek().line();
    String name = expectName();
    if (!Tests.has(name)) throw TemplateError.syntax(line, "no test named '" + name + "'");
    List<Expr> args = new ArrayList<>();
    Token t = peek();
    if (t.op("(")) {
      List<String> kwNames = new ArrayList<>();
      callArgs(args, kwNames, new ArrayList<>());
      if (!kwNames.isEmpty()) throw error("tests take no keyword arguments");
    } else if ((t.kind() == Kind.NAME || t.kind() == Kind.STRING || t.kind() == Kind.INT || t.kind() == Kind.FLOAT
        || t.op("[") || t.op("{")) && !t.name("else") && !t.name("or") && !t.name("and")) {
      if (t.name("is")) throw error("tests cannot be chained with 'is'");
      args.add(postfix(primary()));
    }
    Expr e = new Expr.Test(target, name, args);
    return negated ? new Expr.Unary("not", e) : e;
  }
}
