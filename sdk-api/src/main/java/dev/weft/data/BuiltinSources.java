package dev.weft.data;

import dev.weft.spec.DataSpec;
import dev.weft.spec.SpecException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The data sources that ship with Weft, registered like any user's {@link DataSourceFactory}. */
public final class BuiltinSources {
  private BuiltinSources() {}

  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(BuiltinSources.class);

  /** {@code arithmetic}: the synthetic corpus; validation draws from another seed. */
  public static final class Arithmetic implements DataSourceFactory {
    private static final long VALIDATION_SEED = 0x5EEDL;

    @Override
    public String name() { return "arithmetic"; }

    @Override
    public Splits open(String location, DataSpec data, long seed) {
      return new Splits(new ArithmeticCorpus(seed), data.validation() > 0 ? new ArithmeticCorpus(seed ^ VALIDATION_SEED) : null);
    }
  }

  /**
   * {@code none}: no samples and no vocabulary. The spec of a model built from its weights alone (eval,
   * generate, export) names it, so nothing is checked against data that is not there; a sample read is an error.
   */
  public static final class None implements DataSourceFactory {
    public static final String NAME = "none";

    @Override
    public String name() { return NAME; }

    @Override
    public Splits open(String location, DataSpec data, long seed) {
      TokenSource nothing = new TokenSource() {
        @Override public void sample(long index, int[] out) {
          throw new SpecException("data.source", "'none' holds no samples; name the data to train on");
        }
        @Override public String describe() { return "no data"; }
        @Override public long vocabSize() { return 0; }
      };
      return new Splits(nothing, null);
    }
  }

  /** {@code file:PATH}: a UTF-8 text file as byte tokens, memory-mapped. */
  public static final class Text implements DataSourceFactory {
    @Override
    public String name() { return "file"; }

    @Override
    public void validate(String location, DataSpec data) { requireFile(location, "a UTF-8 text file"); }

    @Override
    public Splits open(String location, DataSpec data, long seed) {
      Path f = requireFile(location, "a UTF-8 text file");
      requireNoPacking(data, "a text file");
      requireNoTruncation(data, "a text file");
      TokenArray bytes = new MappedTokens(f, 0, size(f), TokenWidth.UINT8);
      return Windows.split(bytes, "text file " + f + " (byte tokens)", 256, data.seqLen(), data.validation(), seed);
    }
  }

  /** {@code npy:PATH}: a NumPy array of token ids. */
  public static final class Numpy implements DataSourceFactory {
    @Override
    public String name() { return "npy"; }

    @Override
    public void validate(String location, DataSpec data) { Npy.readHeader(requireFile(location, "a .npy file of token ids")); }

    @Override
    public Splits open(String location, DataSpec data, long seed) {
      Path f = requireFile(location, "a .npy file of token ids");
      requireNoPacking(data, "a .npy file");
      requireNoTruncation(data, "a .npy file");
      return Windows.split(TokenArray.npy(f), "token array " + f, 0, data.seqLen(), data.validation(), seed);
    }
  }

  /** {@code shards:DIR}: token shards written by {@code weft data prepare}. */
  public static final class Shards implements DataSourceFactory {
    @Override
    public String name() { return "shards"; }

    @Override
    public void validate(String location, DataSpec data) { ShardIndex.read(requireShards(location)); }

    @Override
    public Splits open(String location, DataSpec data, long seed) {
      Path dir = requireShards(location);
      ShardIndex ix = ShardIndex.read(dir);
      String what = "token shards " + dir + " (" + ix.tokens() + " tokens, " + ix.dtype() + ")";
      boolean auto = DataSpec.AUTO.equals(data.packing());
      if (!ix.flagged()) ChatTrain.flags(null, null, data.chat().train(), dir.toString()); // refuses a choice it cannot make
      if (auto && !ix.flagged()) {
        requireNoTruncation(data, dir + " (plain token shards read as a stream)");
        return Windows.split(ix.open(dir), ix.openFlags(dir), what, ix.vocabSize(), data.seqLen(), data.validation(), seed);
      }
      long[] ends = ix.documentEnds(dir);
      if (ends == null && auto) {
        log.warn("{} record no document ends (prepared before Weft recorded them): samples run across documents; prepare "
            + "the data again to pack whole documents", dir);
        requireNoTruncation(data, dir + " (no document ends recorded)");
        TokenArray flags = ChatTrain.flags(ix.openFlags(dir), null, data.chat().train(), dir.toString());
        return Windows.split(ix.open(dir), flags, what, ix.vocabSize(), data.seqLen(), data.validation(), seed);
      }
      if (ends == null) {
        throw new SpecException("data.packing", dir + " records no document ends (prepared by an older Weft); prepare the "
            + "data again with weft data prepare, or remove data.packing");
      }
      TokenArray flags = ChatTrain.flags(ix.openFlags(dir), ends, data.chat().train(), dir.toString());
      return PackedSamples.split(ix.open(dir), flags, ends, !"false".equals(data.packing()), what, ix.vocabSize(),
          data.seqLen(), data.validation(), seed, data.maxLength(), data.truncation());
    }
  }

  /** Samples cut from a stream know no documents to truncate: an explicit {@code data.truncation} is refused. */
  static void requireNoTruncation(DataSpec data, String what) {
    if (!DataSpec.SPLIT.equals(data.truncation())) {
      throw new SpecException("data.truncation", what + " has no documents to truncate; set data.packing true (or false) "
          + "on shards from weft data prepare, or remove data.truncation");
    }
  }

  /** Sources that know no documents refuse an explicit {@code data.packing}. */
  static void requireNoPacking(DataSpec data, String what) {
    if (!DataSpec.AUTO.equals(data.packing())) {
      throw new SpecException("data.packing", what + " records no documents to pack or pad; prepare it with weft data prepare "
          + "(token shards record them) or remove data.packing");
    }
  }

  /** {@code preference:DIR}: preference pairs written by {@code weft data prepare --format preference} (DPO). */
  public static final class Preference implements DataSourceFactory {
    public static final String NAME = "preference";

    @Override
    public String name() { return NAME; }

    @Override
    public void validate(String location, DataSpec data) {
      if (data.validation() > 0) {
        throw new SpecException("data.validation", "preference pairs hold out no validation split yet; use data.validation=0");
      }
      PreferenceShards.open(Path.of(location), data.seqLen(), 0);
    }

    @Override
    public Splits open(String location, DataSpec data, long seed) {
      return new Splits(PreferenceShards.open(Path.of(location), data.seqLen(), seed), null);
    }
  }

  static Path requireFile(String location, String what) {
    Path f = Path.of(location);
    if (!Files.isRegularFile(f) || !Files.isReadable(f)) {
      throw new SpecException("data.source", "'" + location + "' is not a readable file; give the path of " + what);
    }
    return f;
  }

  static Path requireShards(String location) {
    Path d = Path.of(location);
    if (!ShardIndex.isShardDirectory(d)) {
      throw new SpecException("data.source", "'" + location + "' has no " + ShardIndex.FILE
          + "; give a directory written by weft data prepare");
    }
    return d;
  }

  private static long size(Path f) {
    try {
      return Files.size(f);
    } catch (java.io.IOException e) {
      throw new SpecException("data.source", "cannot read " + f + ": " + e.getMessage());
    }
  }
}
