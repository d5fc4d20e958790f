package dev.weft.spec;

import java.util.List;

/**
 * Training data. {@code source} names one source: {@code arithmetic} (a learnable synthetic corpus
 * that ships with Weft), a directory of token shards ({@code weft data prepare}), a NumPy {@code .npy}
 * file of token ids, a UTF-8 text file read as byte tokens ({@code file:PATH} or a plain path), or
 * {@code NAME:LOCATION} for a {@code dev.weft.data.DataSourceFactory}. {@code sources}, when not
 * empty, mixes several by weight instead. {@code validation} is the fraction of each source held
 * out for evaluation (0: none). {@code packing} says how samples are cut from token shards that record their
 * documents: {@code true} packs whole documents into each sample (best fit; attention and positions stay inside each
 * document), {@code false} puts one document in each sample, padded; {@code auto} (the default) packs chat data
 * (shards with target flags) and cuts other data from the token stream end to end, documents running together.
 * {@code truncation} says what becomes of a packed or padded document longer than {@code maxLength} tokens (0: one
 * sample, {@code seqLen + 1}): {@code split} (the default) cuts it into sample-sized pieces, {@code right} keeps its
 * first {@code maxLength} tokens, {@code left} its last, {@code drop} leaves it out. {@code chat.train} chooses, on
 * chat shards (with target flags), which tokens are learned ({@link Chat}). {@code eval}, when not empty, is a held-out
 * set from its own source (any form {@code source} takes), read whole, instead of a {@code validation} split.
 */
public record DataSpec(String source, int seqLen, List<Weighted> sources, double validation, String packing, int maxLength,
                       String truncation, Chat chat, String eval) {
  public static final String AUTO = "auto";
  public static final String SPLIT = "split";

  public DataSpec {
    sources = sources == null ? List.of() : List.copyOf(sources);
    packing = packing == null ? AUTO : packing;
    truncation = truncation == null ? SPLIT : truncation;
    chat = chat == null ? Chat.AS_PREPARED : chat;
    eval = eval == null ? "" : eval;
  }

  public DataSpec(String source, int seqLen, List<Weighted> sources, double validation, String packing, int maxLength,
                  String truncation) {
    this(source, seqLen, sources, validation, packing, maxLength, truncation, null, "");
  }

  public DataSpec(String source, int seqLen, List<Weighted> sources, double validation, String packing) {
    this(source, seqLen, sources, validation, packing, 0, SPLIT);
  }

  public DataSpec(String source, int seqLen, List<Weighted> sources, double validation) {
    this(source, seqLen, sources, validation, AUTO);
  }

  /**
   * {@code train}: which tokens of chat shards are learned: {@code assistant} (every assistant turn, as prepared:
   * TRL's {@code assistant_only_loss: true}, Axolotl's {@code roles_to_train: [assistant]}), {@code last} (the last
   * assistant turn of each conversation only), {@code all} (every token: TRL's {@code assistant_only_loss: false},
   * Axolotl's {@code train_on_inputs: true}); empty: as {@code weft data prepare --train-on} made them.
   */
  public record Chat(String train) {
    public static final Chat AS_PREPARED = new Chat("");
    public static final List<String> CHOICES = List.of("assistant", "last", "all");

    public Chat {
      train = train == null ? "" : train;
    }
  }

  /** One source of a mixture and its share of the samples. */
  public record Weighted(String source, double weight) {}

  /** The sources this spec reads: {@code sources}, or {@code source} alone with weight 1. */
  public List<Weighted> mix() { return sources.isEmpty() ? List.of(new Weighted(source, 1)) : sources; }

  /** Whether evaluation has held-out data: its own source ({@code eval}) or a split ({@code validation}). */
  public boolean heldOut() { return !eval.isBlank() || validation > 0; }

  /** The held-out set's own source read whole, as a spec of its own (same lengths and packing); needs {@code eval}. */
  public DataSpec evalData() { return new DataSpec(eval, seqLen, List.of(), 0, packing, maxLength, truncation, chat, ""); }
}
