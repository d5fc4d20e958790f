package dev.weft.tokenizer.chat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.spec.SpecException;
import dev.weft.tokenizer.chat.jinja.Limits;
import dev.weft.tokenizer.chat.jinja.Template;
import dev.weft.tokenizer.chat.jinja.TemplateError;
import dev.weft.util.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A tokenizer's own chat template ({@code chat_template} in {@code tokenizer_config.json}, or
 * {@code chat_template.jinja} beside it) with the special tokens it names, rendered as transformers'
 * {@code apply_chat_template} renders it, by Weft's own Jinja2 engine ({@link Template}): the data is never run as
 * template code, the template reads no files, and each render is bounded by {@link Limits} (the defaults, or
 * {@code WEFT_CHAT_TEMPLATE_STEPS} and {@code WEFT_CHAT_TEMPLATE_CHARS}). A construct the engine lacks refuses the
 * template at load, naming it.
 */
public final class ChatTemplate {
  private static final List<String> SPECIAL_KEYS =
      List.of("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token");
  /** Tokens that end a turn in the common templates; those the template writes are its ends of turn. */
  private static final List<String> TURN_ENDS =
      List.of("<|im_end|>", "<|eot_id|>", "<|eom_id|>", "<|end|>", "<end_of_turn>", "</s>", "<|endoftext|>", "<|end_of_text|>");

  private final String source;
  private final String where;
  private final Map<String, Object> specials;
  private final Template template;
  private final Limits limits;

  /** Spans are [start, end) character (UTF-16) offsets into {@code text} of the {@code {% generation %}} blocks. */
  public record Rendered(String text, List<int[]> generation) {}

  ChatTemplate(String source, String where, Map<String, Object> specials) { this(source, where, specials, limits()); }

  ChatTemplate(String source, String where, Map<String, Object> specials, Limits limits) {
    this(source, where, specials, compile(source, where), limits);
  }

  private ChatTemplate(String source, String where, Map<String, Object> specials, Template template, Limits limits) {
    this.source = source;
    this.where = where;
    this.specials = specials;
    this.template = template;
    this.limits = limits;
  }

  private static Template compile(String source, String where) {
    try {
      return Template.compile(source);
    } catch (TemplateError e) {
      throw ChatTemplateException.unsupported("the chat template of " + where + " cannot be used: " + e.getMessage());
    }
  }

  /** The same template rendered under other limits. */
  public ChatTemplate withLimits(Limits other) { return new ChatTemplate(source, where, specials, template, other); }

  /** {@link Limits#DEFAULT}, or what {@code WEFT_CHAT_TEMPLATE_STEPS} / {@code WEFT_CHAT_TEMPLATE_CHARS} say. */
  static Limits limits() {
    return new Limits(positive("WEFT_CHAT_TEMPLATE_STEPS", Limits.DEFAULT.maxSteps()), positive("WEFT_CHAT_TEMPLATE_CHARS", Limits.DEFAULT.maxChars()));
  }

  private static long positive(String variable, long otherwise) {
    String v = System.getenv(variable);
    if (v == null || v.isBlank()) return otherwise;
    try {
      long n = Long.parseLong(v.strip().replace("_", ""));
      if (n > 0) return n;
    } catch (NumberFormatException e) {
      // refused below
    }
    throw new SpecException(variable, "'" + v + "' is not a positive whole number");
  }

  /** The template of the tokenizer whose {@code tokenizer.json} is {@code tokenizerFile}. */
  public static ChatTemplate load(Path tokenizerFile) {
    Path dir = tokenizerFile.toAbsolutePath().getParent();
    Path config = dir.resolve("tokenizer_config.json");
    if (!Files.isRegularFile(config)) {
      throw new SpecException("--tokenizer", dir + " has no tokenizer_config.json; chat data needs the tokenizer's chat_template");
    }
    try {
      JsonNode c = Json.PLAIN.readTree(config.toFile());
      Path jinja = dir.resolve("chat_template.jinja");
      String source = Files.isRegularFile(jinja) ? Files.readString(inside(dir, jinja)) : templateIn(c.get("chat_template"));
      if (source == null) {
        throw new SpecException("--tokenizer", config + " has no chat_template; use a tokenizer made for chat, or --format jsonl");
      }
      ChatTemplate t = new ChatTemplate(source, config.toString(), specials(c));
      t.probe();
      return t;
    } catch (IOException e) {
      throw new SpecException("--tokenizer", "cannot read " + config + ": " + e.getMessage());
    }
  }

  /** {@code file}, refused when it is a link that leads out of the tokenizer's directory. */
  private static Path inside(Path dir, Path file) throws IOException {
    Path real = file.toRealPath();
    if (!real.startsWith(dir.toRealPath())) {
      throw new SpecException("--tokenizer", file + " links to " + real + ", outside the tokenizer's directory; copy the template into " + dir);
    }
    return real;
  }

  private static String templateIn(JsonNode t) {
    if (t == null || t.isNull()) return null;
    if (t.isTextual()) return t.textValue();
    for (JsonNode named : t) if ("default".equals(named.path("name").asText())) return named.path("template").asText();
    return null;
  }

  private static Map<String, Object> specials(JsonNode c) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (String k : SPECIAL_KEYS) {
      String v = tokenText(c.get(k));
      if (v != null) m.put(k, v);
    }
    List<String> extra = new ArrayList<>();
    for (JsonNode t : c.path("additional_special_tokens")) if (tokenText(t) != null) extra.add(tokenText(t));
    if (!extra.isEmpty()) m.put("additional_special_tokens", extra);
    return m;
  }

  private static String tokenText(JsonNode t) {
    if (t == null || t.isNull()) return null;
    return t.isTextual() ? t.textValue() : t.path("content").isTextual() ? t.path("content").textValue() : null;
  }

  /** Renders a small conversation once, so a template using what Weft lacks is refused before any data is read. */
  private void probe() {
    List<Object> probe = List.of(Map.of("role", "system", "content", "s"), Map.of("role", "user", "content", "u"),
        Map.of("role", "assistant", "content", "a"));
    try {
      render(probe, Map.of(), false);
    } catch (ChatTemplateException e) {
      if (!e.conversation()) throw e; // a template may well refuse the probe (no system role): that is not our concern
    }
  }

  /**
   * Renders {@code messages} with {@code extra} variables ({@code tools}, {@code documents}, ...) as transformers
   * does ({@code tools} and {@code documents} None unless given). A conversation the template raises on, or whose
   * render passes the limits, is refused in one line.
   */
  public Rendered render(List<?> messages, Map<String, Object> extra, boolean addGenerationPrompt) {
    Map<String, Object> vars = new HashMap<>(specials);
    vars.put("tools", null);
    vars.put("documents", null);
    vars.putAll(extra);
    vars.put("messages", messages);
    vars.put("add_generation_prompt", addGenerationPrompt);
    try {
      Template.Result r = template.render(vars, limits);
      return new Rendered(r.text(), r.generation());
    } catch (TemplateError e) {
      throw ChatTemplateException.refused(switch (e.kind()) {
        case RAISED -> "the chat template refused the conversation: " + e.getMessage();
        case LIMIT -> e.getMessage() + " (WEFT_CHAT_TEMPLATE_STEPS and WEFT_CHAT_TEMPLATE_CHARS set the limits)";
        default -> "the chat template failed on the conversation: " + e.getMessage();
      });
    }
  }

  /** Whether the template marks assistant turns with {@code {% generation %}}. */
  public boolean marksGeneration() { return template.marksGeneration(); }

  /** The tokens that end a turn in this template: its {@code eos_token} and the usual ones it writes. */
  public List<String> turnEnds() {
    List<String> ends = new ArrayList<>();
    if (specials.get("eos_token") instanceof String eos && !eos.isEmpty()) ends.add(eos);
    for (String t : TURN_ENDS) if (source.contains(t) && !ends.contains(t)) ends.add(t);
    return ends;
  }
}
