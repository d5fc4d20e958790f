package dev.weft.tokenizer.chat.jinja;

import java.time.LocalDateTime;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A chat template compiled by Weft's own Jinja2 engine, the subset of Jinja2 chat templates use with the semantics
 * transformers runs them under: {@code ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)} with
 * loop controls, {@code {% generation %}}, {@code raise_exception}, {@code strftime_now} and its {@code tojson}.
 * No template can read a file (include, import, extends are refused), change its inputs, or run past its
 * {@link Limits}; the data it renders is never parsed as template code.
 */
public final class Template {
  private static final Pattern GENERATION = Pattern.compile("\\{%-?\\s*generation\\s*-?%}");

  /** The rendered text and the [start, end) UTF-16 offsets in it of what {@code {% generation %}} blocks wrote. */
  public record Result(String text, List<int[]> generation) {}

  private final List<Node> body;
  private final boolean marksGeneration;

  private Template(List<Node> body, boolean marksGeneration) {
    this.body = body;
    this.marksGeneration = marksGeneration;
  }

  /** Parses {@code source}; a {@link TemplateError.Kind#SYNTAX} error names the line and what is wrong. */
  public static Template compile(String source) {
    try {
      return new Template(Parser.parse(source), GENERATION.matcher(source).find());
    } catch (StackOverflowError e) {
      throw TemplateError.syntax(0, "the template nests too deeply to parse");
    }
  }

  /** Whether the source has {@code {% generation %}}, as transformers looks for it. */
  public boolean marksGeneration() { return marksGeneration; }

  /**
   * Renders with {@code vars} (copied as immutable Python values) and the globals transformers gives; any failure is
   * a one-line {@link TemplateError}: never an {@link OutOfMemoryError} or a stack overflow.
   */
  public Result render(Map<String, ?> vars, Limits limits) {
    Budget budget = new Budget(limits);
    Renderer r = new Renderer(budget);
    Scope globals = new Scope(null);
    globals.set("range", (Fn) Template::range);
    globals.set("namespace", (Fn) Template::namespace);
    globals.set("dict", (Fn) Template::dict);
    globals.set("joiner", (Fn) (a, k) -> {
      Object sep = Fn.arg(a, k, 0, "sep", ", ");
      boolean[] used = {false};
      return (Fn) (x, y) -> {
        if (used[0]) return sep;
        used[0] = true;
        return "";
      };
    });
    globals.set("raise_exception", (Fn) (a, k) -> {
      throw new TemplateError(TemplateError.Kind.RAISED, Py.str(Fn.arg(a, k, 0, "message", "")));
    });
    globals.set("strftime_now", (Fn) (a, k) -> Strftime.format(Py.str(Fn.arg(a, k, 0, "format", "")), LocalDateTime.now()));
    Scope top = new Scope(globals);
    try {
      for (Map.Entry<String, ?> v : vars.entrySet()) top.set(v.getKey(), Py.adopt(v.getValue()));
      r.run(body, new Scope(top));
      return new Result(r.text(), List.copyOf(r.generation()));
    } catch (StackOverflowError e) {
      throw TemplateError.limit("the chat template nests too deeply");
    } catch (OutOfMemoryError e) {
      throw TemplateError.limit("the chat template ran out of memory; lower its limits or give the JVM more heap");
    } catch (TemplateError e) {
      throw e;
    } catch (RuntimeException e) { // a value the engine does not expect: still one line, never a stack trace
      throw TemplateError.runtime(e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }

  private static Object range(List<Object> a, Map<String, Object> k) {
    for (Object x : a) {
      if (x instanceof Undefined u) throw u.error();
      if (!Py.isInt(x)) throw TemplateError.runtime("'" + Py.typeName(x) + "' object cannot be interpreted as an integer");
    }
    return switch (a.size()) {
      case 1 -> new Range(0, Py.asLong(a.get(0)), 1);
      case 2 -> new Range(Py.asLong(a.get(0)), Py.asLong(a.get(1)), 1);
      case 3 -> new Range(Py.asLong(a.get(0)), Py.asLong(a.get(1)), Py.asLong(a.get(2)));
      default -> throw TemplateError.runtime("range expected 1 to 3 arguments, got " + a.size());
    };
  }

  /** Python's {@code dict(mapping_or_pairs, **kwargs)}. */
  private static Object dict(List<Object> a, Map<String, Object> k) {
    if (a.size() > 1) throw TemplateError.runtime("dict expected at most 1 argument, got " + a.size());
    Map<Object, Object> out = new LinkedHashMap<>();
    if (!a.isEmpty()) {
      if (a.get(0) instanceof Map<?, ?> m) out.putAll(m);
      else for (Object pair : Py.iterate(a.get(0))) {
        List<?> kv = Py.iterate(pair);
        if (kv.size() != 2) throw TemplateError.runtime("dictionary update sequence element has length " + kv.size() + "; 2 is required");
        out.put(kv.get(0), kv.get(1));
      }
    }
    out.putAll(k);
    return Collections.unmodifiableMap(out);
  }

  private static Object namespace(List<Object> a, Map<String, Object> k) {
    Namespace ns = new Namespace();
    for (Object x : a) {
      if (!(x instanceof Map<?, ?> m)) throw TemplateError.runtime("namespace() takes a mapping and keyword arguments");
      for (Map.Entry<?, ?> e : m.entrySet()) ns.values().put(Py.str(e.getKey()), e.getValue());
    }
    ns.values().putAll(k);
    return ns;
  }
}
