package dev.weft.tokenizer.chat;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.el.JinjavaInterpreterResolver;
import com.hubspot.jinjava.lib.fn.ELFunctionDefinition;
import jinjava.javax.el.CompositeELResolver;

/**
 * Jinjava set up as transformers sets up Jinja for chat templates: {@code trim_blocks} and {@code lstrip_blocks},
 * loop controls, {@code namespace}, plus transformers' extensions ({@code {% generation %}}, {@code raise_exception},
 * {@code strftime_now}, {@code tojson} as Python writes JSON) and Python's string methods.
 */
final class TemplateEngine {
  private TemplateEngine() {}

  static Jinjava create() {
    CompositeELResolver resolver = new CompositeELResolver();
    resolver.add(new PythonStrings());
    resolver.add(JinjavaInterpreterResolver.DEFAULT_RESOLVER_READ_WRITE);
    JinjavaConfig config = JinjavaConfig.newBuilder().withTrimBlocks(true).withLstripBlocks(true).withElResolver(resolver)
        .withReadOnlyResolver(false).build();
    Jinjava j = new Jinjava(config);
    j.getGlobalContext().registerTag(new GenerationTag());
    j.getGlobalContext().registerFilter(new PythonJson());
    j.getGlobalContext().registerFunction(
        new ELFunctionDefinition("", "raise_exception", TemplateFunctions.class, "raiseException", Object.class));
    j.getGlobalContext().registerFunction(
        new ELFunctionDefinition("", "strftime_now", TemplateFunctions.class, "strftimeNow", String.class));
    return j;
  }
}
