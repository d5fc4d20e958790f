package dev.weft.tokenizer;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** Writes small Hugging Face tokenizer.json files of the two common kinds, for tests (no hub). */
public final class TinyTokenizers {
  private static final ObjectMapper JSON = new ObjectMapper();

  private TinyTokenizers() {}

  /**
   * GPT-2 style byte-level BPE: the 256 byte symbols, then one token per merge, then
   * {@code <|endoftext|>} as the last id.
   */
  public static Path byteLevelBpe(Path file, List<String> merges) throws IOException {
    ObjectNode vocab = JSON.createObjectNode();
    String[] sym = byteSymbols();
    for (int b = 0; b < 256; b++) vocab.put(sym[b], b);
    ArrayNode m = JSON.createArrayNode();
    for (String merge : merges) {
      m.add(merge);
      vocab.put(merge.replace(" ", ""), vocab.size());
    }
    int eot = vocab.size();
    ObjectNode root = base(JSON.createArrayNode().add(added(eot, "<|endoftext|>")));
    ObjectNode byteLevel = JSON.createObjectNode().put("type", "ByteLevel").put("add_prefix_space", false)
        .put("trim_offsets", true).put("use_regex", true);
    root.set("pre_tokenizer", byteLevel);
    root.set("decoder", byteLevel);
    root.set("model", bpe(vocab, m, false, null));
    JSON.writeValue(file.toFile(), root);
    return file;
  }

  /**
   * The tokenizer.json Hugging Face converts a Llama SentencePiece model to: BPE over "▁"-joined
   * text with byte fallback ({@code <0x00>}..{@code <0xFF>}), {@code <unk>}, {@code <s>}, {@code </s>}.
   */
  public static Path sentencePieceBpe(Path file, List<String> pieces, List<String> merges) throws IOException {
    ObjectNode vocab = JSON.createObjectNode();
    vocab.put("<unk>", 0);
    vocab.put("<s>", 1);
    vocab.put("</s>", 2);
    for (int b = 0; b < 256; b++) vocab.put(String.format("<0x%02X>", b), vocab.size());
    for (String p : pieces) vocab.put(p, vocab.size());
    ArrayNode m = JSON.createArrayNode();
    merges.forEach(m::add);
    ObjectNode root = base(JSON.createArrayNode().add(added(0, "<unk>")).add(added(1, "<s>")).add(added(2, "</s>")));
    ObjectNode normalizer = root.putObject("normalizer").put("type", "Sequence");
    normalizer.putArray("normalizers")
        .add(JSON.createObjectNode().put("type", "Prepend").put("prepend", "▁"))
        .add(replace(" ", "▁"));
    root.putNull("pre_tokenizer");
    ObjectNode decoder = root.putObject("decoder").put("type", "Sequence");
    decoder.putArray("decoders")
        .add(replace("▁", " "))
        .add(JSON.createObjectNode().put("type", "ByteFallback"))
        .add(JSON.createObjectNode().put("type", "Fuse"))
        .add(JSON.createObjectNode().put("type", "Strip").put("content", " ").put("start", 1).put("stop", 0));
    root.set("model", bpe(vocab, m, true, "<unk>"));
    JSON.writeValue(file.toFile(), root);
    return file;
  }

  private static ObjectNode base(ArrayNode added) {
    ObjectNode root = JSON.createObjectNode().put("version", "1.0");
    root.putNull("truncation");
    root.putNull("padding");
    root.set("added_tokens", added);
    root.putNull("normalizer");
    root.putNull("post_processor");
    return root;
  }

  private static ObjectNode bpe(ObjectNode vocab, ArrayNode merges, boolean byteFallback, String unk) {
    ObjectNode model = JSON.createObjectNode().put("type", "BPE");
    model.putNull("dropout");
    if (unk == null) model.putNull("unk_token"); else model.put("unk_token", unk);
    model.putNull("continuing_subword_prefix");
    model.putNull("end_of_word_suffix");
    model.put("fuse_unk", byteFallback).put("byte_fallback", byteFallback).put("ignore_merges", false);
    model.set("vocab", vocab);
    model.set("merges", merges);
    return model;
  }

  private static ObjectNode added(int id, String content) {
    return JSON.createObjectNode().put("id", id).put("content", content).put("single_word", false).put("lstrip", false)
        .put("rstrip", false).put("normalized", false).put("special", true);
  }

  private static ObjectNode replace(String from, String to) {
    ObjectNode r = JSON.createObjectNode().put("type", "Replace");
    r.putObject("pattern").put("String", from);
    return r.put("content", to);
  }

  /** GPT-2's printable stand-in for each byte: printable Latin-1 bytes are themselves, the rest 256 + n. */
  public static String[] byteSymbols() {
    String[] s = new String[256];
    int next = 256;
    for (int b = 0; b < 256; b++) {
      boolean printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      s[b] = new String(Character.toChars(printable ? b : next++));
    }
    return s;
  }
}
