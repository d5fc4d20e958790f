package dev.weft.tokenizer.chat.jinja;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One render of a parsed template: statements executed and expressions evaluated with Python's semantics, every
 * step charged to the {@link Budget}. Values from the data are only ever values: nothing here parses a string.
 * {@code {% generation %}} spans are recorded beside the output, never written into it, so no data can fake one.
 */
final class Renderer {
  private enum Flow { NORMAL, BREAK, CONTINUE }

  private final Budget budget;
  private final List<int[]> generation = new ArrayList<>();
  private StringBuilder out = new StringBuilder();
  private int captured; // > 0 while output goes into a macro's or a set block's value, not the rendered text
  private int inGeneration;

  Renderer(Budget budget) { this.budget = budget; }

  String text() { return out.toString(); }

  List<int[]> generation() { return generation; }

  void run(List<Node> body, Scope scope) { exec(body, scope); }

  private void emit(String s) {
    budget.step();
    if ((long) out.length() + s.length() > budget.maxChars()) budget.charge((long) out.length() + s.length());
    budget.charge(s.length());
    out.append(s);
  }

  private String capture(List<Node> body, Scope scope) { return capture(() -> exec(body, scope)); }

  /** What {@code render} writes, as a value instead of output. */
  private String capture(Runnable render) {
    StringBuilder saved = out;
    out = new StringBuilder();
    captured++;
    try {
      render.run();
      return out.toString();
    } finally {
      captured--;
      out = saved;
    }
  }

  // ---- statements

  private Flow exec(List<Node> body, Scope scope) {
    for (Node n : body) {
      Flow f = exec(n, scope);
      if (f != Flow.NORMAL) return f;
    }
    return Flow.NORMAL;
  }

  private Flow exec(Node node, Scope scope) {
    budget.step();
    if (node instanceof Node.Text t) {
      emit(t.text());
    } else if (node instanceof Node.Output o) {
      emit(Py.str(eval(o.expr(), scope)));
    } else if (node instanceof Node.If i) {
      for (int k = 0; k < i.tests().size(); k++) {
        if (Py.truthy(eval(i.tests().get(k), scope))) return exec(i.bodies().get(k), scope);
      }
      return exec(i.orElse(), scope);
    } else if (node instanceof Node.For f) {
      return loop(f, scope);
    } else if (node instanceof Node.Set s) {
      assign(s.target(), eval(s.value(), scope), scope);
    } else if (node instanceof Node.SetBlock s) {
      Object v = capture(s.body(), new Scope(scope));
      for (Expr.Filter f : s.filters()) v = filter(f, v, scope);
      assign(s.target(), v, scope);
    } else if (node instanceof Node.Macro m) {
      scope.set(m.name(), new MacroFn(m.name(), m.params(), m.defaults(), m.body(), scope, null));
    } else if (node instanceof Node.CallBlock c) {
      Fn caller = new MacroFn("caller", c.params(), c.defaults(), c.body(), scope, null);
      Object target = eval(c.call().target(), scope);
      if (!(target instanceof MacroFn m)) throw TemplateError.runtime("{% call %} needs a macro");
      emit(Py.str(m.withCaller(caller).call(evalAll(c.call().args(), scope), kwargs(c.call().kwNames(), c.call().kwValues(), scope))));
    } else if (node instanceof Node.FilterBlock fb) {
      Object v = capture(fb.body(), new Scope(scope));
      for (Expr.Filter f : fb.filters()) v = filter(f, v, scope);
      emit(Py.str(v));
    } else if (node instanceof Node.With w) {
      Scope inner = new Scope(scope);
      for (int k = 0; k < w.targets().size(); k++) assign(w.targets().get(k), eval(w.values().get(k), scope), inner);
      return exec(w.body(), inner);
    } else if (node instanceof Node.Generation g) {
      boolean track = captured == 0 && inGeneration == 0; // transformers' spans are positions in the rendered text
      int start = out.length();
      inGeneration++;
      try {
        exec(g.body(), new Scope(scope));
      } finally {
        inGeneration--;
      }
      if (track && out.length() > start) generation.add(new int[] {start, out.length()});
    } else if (node instanceof Node.Break) {
      return Flow.BREAK;
    } else if (node instanceof Node.Continue) {
      return Flow.CONTINUE;
    }
    return Flow.NORMAL;
  }

  private Flow loop(Node.For f, Scope scope) { return loop(f, scope, eval(f.iter(), scope), 0); }

  /** Loop {@code f} over {@code iter} at recursion depth {@code depth0}. */
  private Flow loop(Node.For f, Scope scope, Object iter, int depth0) {
    List<?> items = Py.iterate(iter);
    if (f.filter() != null) {
      List<Object> kept = new ArrayList<>();
      for (Object x : items) {
        budget.step();
        Scope s = new Scope(scope);
        assign(f.target(), x, s);
        if (Py.truthy(eval(f.filter(), s))) kept.add(x);
      }
      items = kept;
    }
    Fn recurse = !f.recursive() ? null : (args, kwargs) -> capture(() -> {
      budget.enter(); // a loop that calls itself forever meets the depth limit
      try {
        loop(f, scope, args.get(0), depth0 + 1);
      } finally {
        budget.leave();
      }
    });
    Loop loop = new Loop(items, depth0, recurse);
    for (int i = 0; i < items.size(); i++) {
      budget.step();
      loop.index0 = i;
      Scope turn = new Scope(scope);
      assign(f.target(), items.get(i), turn);
      turn.set("loop", loop);
      if (exec(f.body(), turn) == Flow.BREAK) break;
    }
    if (items.isEmpty()) return exec(f.orElse(), scope);
    return Flow.NORMAL;
  }

  private void assign(Expr target, Object value, Scope scope) {
    if (target instanceof Expr.Name n) {
      scope.set(n.name(), value);
    } else if (target instanceof Expr.TupleLit t) {
      List<?> items = Py.iterate(value);
      if (items.size() != t.items().size()) {
        throw TemplateError.runtime((items.size() < t.items().size() ? "not enough" : "too many") + " values to unpack (expected "
            + t.items().size() + ", got " + items.size() + ")");
      }
      for (int i = 0; i < items.size(); i++) assign(t.items().get(i), items.get(i), scope);
    } else if (target instanceof Expr.Attr a) {
      Object ns = eval(a.target(), scope);
      if (!(ns instanceof Namespace n)) throw TemplateError.runtime("cannot assign attribute on non-namespace object");
      n.values().put(a.name(), value);
    } else {
      throw TemplateError.runtime("cannot assign to this expression");
    }
  }

  // ---- macros

  /** A macro: called, it renders its body in a scope of its arguments over the one it was defined in. */
  private final class MacroFn implements Fn {
    private final String name;
    private final List<String> params;
    private final List<Expr> defaults;
    private final List<Node> body;
    private final Scope closure;
    private final Fn caller;

    MacroFn(String name, List<String> params, List<Expr> defaults, List<Node> body, Scope closure, Fn caller) {
      this.name = name;
      this.params = params;
      this.defaults = defaults;
      this.body = body;
      this.closure = closure;
      this.caller = caller;
    }

    MacroFn withCaller(Fn c) { return new MacroFn(name, params, defaults, body, closure, c); }

    @Override
    public Object call(List<Object> args, Map<String, Object> kwargs) {
      // as Jinja2: a macro whose body names varargs (kwargs) takes extra positional (keyword) arguments there
      boolean varargs = uses(body, "varargs"), anyKeyword = uses(body, "kwargs");
      if (args.size() > params.size() && !varargs) {
        throw TemplateError.runtime("macro '" + name + "' takes not more than " + params.size() + " argument(s)");
      }
      budget.enter();
      try {
        Scope s = new Scope(closure);
        if (varargs) s.set("varargs", new Tuple(args.subList(Math.min(args.size(), params.size()), args.size())));
        Map<Object, Object> extra = new java.util.LinkedHashMap<>();
        int firstDefault = params.size() - defaults.size();
        for (int i = 0; i < params.size(); i++) {
          String p = params.get(i);
          if (i < args.size()) s.set(p, args.get(i));
          else if (kwargs.containsKey(p)) s.set(p, kwargs.get(p));
          else if (i >= firstDefault) s.set(p, eval(defaults.get(i - firstDefault), s));
          else s.set(p, Undefined.named(p));
        }
        for (Map.Entry<String, Object> k : kwargs.entrySet()) {
          if (params.contains(k.getKey())) continue;
          if (!anyKeyword) throw TemplateError.runtime("macro '" + name + "' takes no keyword argument '" + k.getKey() + "'");
          extra.put(k.getKey(), k.getValue());
        }
        if (anyKeyword) s.set("kwargs", java.util.Collections.unmodifiableMap(extra));
        if (caller != null) s.set("caller", caller);
        return capture(body, s);
      } finally {
        budget.leave();
      }
    }
  }

  /** Whether {@code tree} (nodes and expressions, as parsed) reads the variable {@code name}. */
  static boolean uses(Object tree, String name) {
    if (tree instanceof Expr.Name n) return n.name().equals(name);
    if (tree instanceof List<?> l) {
      for (Object x : l) if (uses(x, name)) return true;
      return false;
    }
    if (tree instanceof Record r) {
      for (java.lang.reflect.RecordComponent c : r.getClass().getRecordComponents()) {
        try {
          if (uses(c.getAccessor().invoke(r), name)) return true;
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException(e);
        }
      }
    }
    return false;
  }

  // ---- expressions

  private List<Object> evalAll(List<Expr> exprs, Scope scope) {
    List<Object> out = new ArrayList<>(exprs.size());
    for (Expr e : exprs) out.add(eval(e, scope));
    return out;
  }

  private Map<String, Object> kwargs(List<String> names, List<Expr> values, Scope scope) {
    if (names.isEmpty()) return Map.of();
    Map<String, Object> kw = new HashMap<>();
    for (int i = 0; i < names.size(); i++) kw.put(names.get(i), eval(values.get(i), scope));
    return kw;
  }

  Object eval(Expr e, Scope scope) {
    budget.step();
    if (e instanceof Expr.Const c) return c.value();
    if (e instanceof Expr.Name n) return scope.get(n.name());
    if (e instanceof Expr.Attr a) return Access.attr(budget, eval(a.target(), scope), a.name());
    if (e instanceof Expr.Item i) {
      Object target = eval(i.target(), scope);
      if (i.index() instanceof Expr.Slice s) {
        return Access.slice(budget, target, s.start() == null ? null : eval(s.start(), scope),
            s.stop() == null ? null : eval(s.stop(), scope), s.step() == null ? null : eval(s.step(), scope));
      }
      return Access.item(budget, target, eval(i.index(), scope));
    }
    if (e instanceof Expr.Call c) return call(eval(c.target(), scope), evalAll(c.args(), scope), kwargs(c.kwNames(), c.kwValues(), scope));
    if (e instanceof Expr.Filter f) return filter(f, eval(f.target(), scope), scope);
    if (e instanceof Expr.Test t) return Tests.apply(budget, t.name(), eval(t.target(), scope), evalAll(t.args(), scope));
    if (e instanceof Expr.Binary b) return binary(b, scope);
    if (e instanceof Expr.Compare c) return compare(c, scope);
    if (e instanceof Expr.Unary u) {
      Object v = eval(u.operand(), scope);
      return u.op().equals("not") ? (Object) !Py.truthy(v) : u.op().equals("-") ? Py.neg(v) : Py.pos(v);
    }
    if (e instanceof Expr.Cond c) {
      if (Py.truthy(eval(c.test(), scope))) return eval(c.then(), scope);
      if (c.orElse() == null) return new Undefined("the inline if-expression evaluated to false and no else section was defined.");
      return eval(c.orElse(), scope);
    }
    if (e instanceof Expr.ListLit l) {
      budget.charge(l.items().size());
      return Collections.unmodifiableList(evalAll(l.items(), scope));
    }
    if (e instanceof Expr.TupleLit t) return new Tuple(evalAll(t.items(), scope));
    if (e instanceof Expr.DictLit d) {
      Map<Object, Object> m = new LinkedHashMap<>();
      for (int i = 0; i < d.keys().size(); i++) {
        Object k = eval(d.keys().get(i), scope);
        if ((k instanceof List && !(k instanceof Tuple)) || k instanceof Map || k instanceof Undefined) {
          throw TemplateError.runtime("unhashable type: '" + Py.typeName(k) + "'");
        }
        Object existing = Py.key(m, k);
        m.put(existing == Py.NO_KEY ? k : existing, eval(d.values().get(i), scope));
      }
      return Collections.unmodifiableMap(m);
    }
    throw TemplateError.runtime("a slice outside of [...]");
  }

  private Object call(Object target, List<Object> args, Map<String, Object> kwargs) {
    if (target instanceof Undefined u) throw u.error();
    if (!(target instanceof Fn fn)) throw TemplateError.runtime("'" + Py.typeName(target) + "' object is not callable");
    return fn.call(args, kwargs);
  }

  private Object filter(Expr.Filter f, Object value, Scope scope) {
    return Filters.apply(budget, f.name(), value, evalAll(f.args(), scope), kwargs(f.kwNames(), f.kwValues(), scope));
  }

  private Object binary(Expr.Binary b, Scope scope) {
    Object l = eval(b.left(), scope);
    switch (b.op()) {
      case "and":
        return Py.truthy(l) ? eval(b.right(), scope) : l;
      case "or":
        return Py.truthy(l) ? l : eval(b.right(), scope);
      default:
        break;
    }
    Object r = eval(b.right(), scope);
    return switch (b.op()) {
      case "~" -> {
        String x = Py.str(l), y = Py.str(r);
        budget.charge((long) x.length() + y.length());
        yield x + y;
      }
      case "+" -> Py.add(budget, l, r);
      case "-" -> Py.sub(l, r);
      case "*" -> Py.mul(budget, l, r);
      case "/" -> Py.div(l, r);
      case "//" -> Py.floordiv(l, r);
      case "%" -> Py.mod(budget, l, r);
      case "**" -> Py.pow(l, r);
      default -> throw TemplateError.runtime("unknown operator " + b.op());
    };
  }

  private Object compare(Expr.Compare c, Scope scope) {
    Object left = eval(c.first(), scope);
    for (int i = 0; i < c.ops().size(); i++) {
      Object right = eval(c.rest().get(i), scope);
      String op = c.ops().get(i);
      boolean ok = switch (op) {
        case "==" -> Py.eq(left, right);
        case "!=" -> !Py.eq(left, right);
        case "<" -> Py.compare(left, right, op) < 0;
        case ">" -> Py.compare(left, right, op) > 0;
        case "<=" -> Py.compare(left, right, op) <= 0;
        case ">=" -> Py.compare(left, right, op) >= 0;
        case "in" -> Py.contains(right, left);
        default -> !Py.contains(right, left);
      };
      if (!ok) return false;
      left = right;
    }
    return true;
  }
}
