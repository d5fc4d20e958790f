package dev.weft.cli;

import dev.weft.error.WeftException;
import dev.weft.eval.ChatGeneration;
import dev.weft.eval.Generation;
import dev.weft.eval.ModelSource;
import dev.weft.models.CausalLm;
import dev.weft.models.LanguageModel;
import dev.weft.precision.Autocast;
import dev.weft.spec.SpecException;
import dev.weft.spec.SpecValidator;
import dev.weft.tokenizer.HfTokenizer;
import dev.weft.tokenizer.Tokenizer;
import dev.weft.tokenizer.chat.ChatTemplate;
import dev.weft.tokenizer.chat.ChatTemplateException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code weft generate MODEL --prompt-ids 1,2,3 | --prompt TEXT --max-new-tokens K}: continue a prompt; with
 * {@code --chat}, answer {@code --prompt} as the assistant ({@link ChatGeneration}).
 */
@Command(name = "generate", mixinStandardHelpOptions = true,
    description = "Continue a prompt with a model: greedy by default, or sampled (temperature, top-k, top-p); uses a KV cache.")
final class GenerateCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "MODEL", description = "A Hugging Face directory, a consolidated .safetensors file or a checkpoint.")
  Path model;

  static final class Prompt {
    @Option(names = "--prompt-ids", split = ",", paramLabel = "IDS", description = "Prompt token ids, comma-separated.") long[] ids;
    @Option(names = "--prompt", paramLabel = "TEXT", description = "Prompt text (needs a tokenizer: --tokenizer, tokenizer.json in MODEL, or in the base MODEL records).") String text;
  }

  @ArgGroup(exclusive = true, multiplicity = "1") Prompt prompt;

  @Option(names = "--max-new-tokens", required = true, paramLabel = "K") int maxNewTokens;
  @Option(names = "--temperature", defaultValue = "0", description = "0 (default): greedy; above 0: sample.") double temperature;
  @Option(names = "--top-k", defaultValue = "0", description = "Sample among the K likeliest tokens (0: all).") int topK;
  @Option(names = "--top-p", defaultValue = "1", description = "Sample among the likeliest tokens holding this much probability (1: all).") double topP;
  @Option(names = "--seed", defaultValue = "0") long seed;
  @Option(names = "--tokenizer", paramLabel = "T", description = "tokenizer.json (or 'bytes') to encode --prompt and print text.") String tokenizer;
  @Option(names = "--chat", description = "--prompt is a user turn: render it with the tokenizer's chat_template, generate until an "
      + "end-of-turn token, print the assistant's reply.") boolean chat;
  @Option(names = "--system", paramLabel = "TEXT", description = "With --chat: a system message before the user turn.") String system;
  @picocli.CommandLine.Mixin PrecisionOption precisionOption;
  private String precision; // validated at the start of call()

  @Override
  public Integer call() {
    SpecValidator.require(maxNewTokens >= 1, "--max-new-tokens", maxNewTokens + " must be at least 1");
    SpecValidator.require(Double.isFinite(temperature) && temperature >= 0, "--temperature",
        temperature + " must be 0 (greedy) or a positive number");
    SpecValidator.require(topK >= 0, "--top-k", topK + " must be 0 (off) or positive");
    SpecValidator.require(topP > 0 && topP <= 1, "--top-p", topP + " must be in (0, 1]");
    Generation.Sampling sampling = new Generation.Sampling(temperature, topK, topP, seed);
    SpecValidator.require(system == null || chat, "--system", "is a chat message; add --chat");
    precision = precisionOption.value();
    try (Tokenizer tok = tokenizer()) {
      if (chat) return chat(tok, sampling);
      long[] ids = prompt.ids != null ? prompt.ids : toLongs(requireTokenizer(tok).encode(prompt.text));
      CausalLm lm = open(ids.length + maxNewTokens);
      requireInVocabulary(ids, lm.vocabSize(), prompt.ids != null ? "--prompt-ids" : "--prompt");
      long[] out;
      try (Autocast ac = Autocast.of(precision)) {
        out = Generation.generate(lm, ids, maxNewTokens, sampling);
      }
      System.out.println(String.join(",", Arrays.stream(out).mapToObj(Long::toString).toList()));
      if (tok != null) System.out.println(tok.decode(Arrays.stream(out).mapToInt(Math::toIntExact).toArray()));
      return 0;
    }
  }

  /** {@code --chat}: the reply to the conversation [system?, user], rendered with the tokenizer's chat template. */
  private int chat(Tokenizer tok, Generation.Sampling sampling) {
    SpecValidator.require(prompt.text != null, "--prompt-ids", "--chat takes the user's turn as text; use --prompt TEXT");
    if (!(requireTokenizer(tok) instanceof HfTokenizer hf)) {
      throw new SpecException("--tokenizer", "--chat needs a Hugging Face tokenizer with a chat_template; '" + tok.describe() + "' has none");
    }
    ChatTemplate template;
    try {
      template = ChatTemplate.load(hf.file());
    } catch (ChatTemplateException e) {
      throw new SpecException("--tokenizer", e.getMessage());
    }
    List<Map<String, Object>> messages = new ArrayList<>();
    if (system != null) messages.add(Map.of("role", "system", "content", system));
    messages.add(Map.of("role", "user", "content", prompt.text));
    long[] ids;
    try {
      ids = ChatGeneration.promptIds(hf, template, messages);
    } catch (ChatTemplateException e) {
      throw new SpecException("--prompt", e.getMessage());
    }
    CausalLm lm = open(ids.length + maxNewTokens);
    requireInVocabulary(ids, lm.vocabSize(), "--prompt");
    try (Autocast ac = Autocast.of(precision)) {
      System.out.println(ChatGeneration.reply(lm, hf, template, messages, maxNewTokens, sampling).text());
    }
    return 0;
  }

  /** The model for {@code seqLen} tokens in {@code --precision} (a 16-bit directory of that dtype memory-mapped, as eval does). */
  private CausalLm open(int seqLen) {
    LanguageModel m = ModelSource.open(model, seqLen, precision).model();
    if (!(m instanceof CausalLm lm)) throw new dev.weft.error.BadInputException(model + " holds a model that gives no logits; it cannot generate");
    return lm;
  }

  /** An id outside the embedding would fail natively, with a trace, inside the first forward. */
  private static void requireInVocabulary(long[] ids, long vocab, String flag) {
    SpecValidator.require(ids.length > 0, flag, "the prompt is empty; give at least one token");
    for (int i = 0; i < ids.length; i++) {
      SpecValidator.require(ids[i] >= 0 && ids[i] < vocab, flag, "token " + ids[i] + " (position " + i
          + ") is outside the model's vocabulary of " + vocab + "; use ids from 0 to " + (vocab - 1));
    }
  }

  private Tokenizer tokenizer() {
    if (tokenizer != null) return Tokenizer.open(tokenizer);
    // beside the model, or in the base it records (a checkpoint, a PEFT adapter, a consolidated file)
    return ModelSource.tokenizerDir(model).map(d -> Tokenizer.open(d.resolve("tokenizer.json").toString())).orElse(null);
  }

  private static Tokenizer requireTokenizer(Tokenizer t) {
    if (t == null) throw new dev.weft.error.BadInputException("--prompt needs a tokenizer: pass --tokenizer tokenizer.json, or use --prompt-ids");
    return t;
  }

  private static long[] toLongs(int[] ids) { return Arrays.stream(ids).asLongStream().toArray(); }
}
