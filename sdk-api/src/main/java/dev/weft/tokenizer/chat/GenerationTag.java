package dev.weft.tokenizer.chat;

import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.lib.tag.Tag;
import com.hubspot.jinjava.tree.Node;
import com.hubspot.jinjava.tree.TagNode;

/**
 * transformers' {@code {% generation %}...{% endgeneration %}}: marks what the assistant generates. The block's
 * output is wrapped in two Unicode noncharacters, which {@link ChatTemplate} turns into character spans and removes.
 */
final class GenerationTag implements Tag {
  static final char START = '\uFDD0';
  static final char END = '\uFDD1';

  @Override
  public String getName() { return "generation"; }

  @Override
  public String getEndTagName() { return "endgeneration"; }

  @Override
  public String interpret(TagNode tagNode, JinjavaInterpreter interpreter) {
    StringBuilder out = new StringBuilder().append(START);
    for (Node child : tagNode.getChildren()) out.append(child.render(interpreter).getValue());
    return out.append(END).toString();
  }
}
