package dev.weft.models;

import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/** Finds a {@link ModelFactory} by short name (ServiceLoader) or by class name. */
public final class ModelFactories {
  private ModelFactories() {}

  /**
   * The factory's own rules, then the layout rules every model shares: tensor-parallel splits must
   * divide the sizes the factory names, and pipeline stages and recomputation need a {@link StagedModel}.
   * Returns the factory.
   */
  public static ModelFactory validate(TrainingSpec spec) {
    ModelFactory f = lookup(spec.model().factory());
    f.validate(spec);
    var p = spec.parallel();
    if ((p.pp() > 1 || spec.train().recompute()) && !f.staged()) {
      throw new SpecException(p.pp() > 1 ? "parallel.pp" : "train.recompute", "model.factory=" + spec.model().factory()
          + " does not build a dev.weft.models.StagedModel, so it cannot be cut into pipeline stages or recomputed;"
          + " use parallel.pp=1 and train.recompute=false, or implement StagedModel and return true from staged()");
    }
    if (p.tp() > 1) {
      f.splitSizes(spec).forEach((field, n) -> {
        if (n % p.tp() != 0) {
          throw new SpecException("parallel.tp", "tp=" + p.tp() + " does not divide " + field + "=" + n + "; use a tp that divides " + n);
        }
      });
      if (p.sequenceParallel() && spec.data().seqLen() % p.tp() != 0) {
        throw new SpecException("parallel.tp", "tp=" + p.tp() + " does not divide data.seqLen=" + spec.data().seqLen()
            + ", which sequence parallelism splits; use a seqLen that is a multiple of " + p.tp());
      }
    }
    return f;
  }

  /**
   * Every token id of the data must be a row of the model's embedding: the vocabulary the data declares, and each id
   * it holds (a bare .npy declares none; a shard may have been edited), read before any rank starts.
   */
  public static void requireDataVocab(TrainingSpec spec, long modelVocab, String field) {
    if (spec.train().grpoObjective()) return; // GRPO's data is prompts, tokenized by the model's own tokenizer at the run
    String key = dataCheckKey(spec, modelVocab);
    if (DATA_CHECKED.contains(key) || key.equals(System.getenv(DATA_CHECKED_ENV))) return; // the scan reads every token: once
    scanDataVocab(spec, modelVocab, field);
    DATA_CHECKED.add(key);
  }

  /**
   * The variable a launcher hands the workers it starts after validating their spec itself: the data the spec names
   * was found inside the model's vocabulary on this host, so they do not read it all again.
   */
  public static final String DATA_CHECKED_ENV = "WEFT_DATA_VOCAB_CHECKED";
  private static final java.util.Set<String> DATA_CHECKED = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** {@code env} and, when this process has checked {@code spec}'s data against a vocabulary, {@link #DATA_CHECKED_ENV}. */
  public static java.util.Map<String, String> withDataChecked(java.util.Map<String, String> env, TrainingSpec spec) {
    java.util.Map<String, String> out = new java.util.HashMap<>(env);
    DATA_CHECKED.stream().filter(k -> k.startsWith(dataPrefix(spec))).findFirst().ifPresent(k -> out.put(DATA_CHECKED_ENV, k));
    return out;
  }

  private static String dataPrefix(TrainingSpec spec) {
    try { // a key for the data spec and the files it names as they are now (an edited file is read again)
      StringBuilder what = new StringBuilder(spec.data().toString());
      for (var w : spec.data().mix()) fingerprint(w.source(), what);
      return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
          .digest(what.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8))) + ":";
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM has no SHA-256", e);
    }
  }

  /** Each file a source names (a file, or the files of its directory, two levels deep): name, size, modification time. */
  private static void fingerprint(String source, StringBuilder out) {
    String path = source.matches("[a-z]+:.*") && !java.nio.file.Files.exists(java.nio.file.Path.of(source))
        ? source.substring(source.indexOf(':') + 1) : source;
    java.nio.file.Path p;
    try {
      p = java.nio.file.Path.of(path);
    } catch (java.nio.file.InvalidPathException e) {
      return; // a built-in source's name
    }
    if (!java.nio.file.Files.exists(p)) return;
    try (var files = java.nio.file.Files.walk(p, 2)) {
      files.filter(java.nio.file.Files::isRegularFile).sorted().forEach(f -> {
        try {
          out.append('|').append(f).append(',').append(java.nio.file.Files.size(f)).append(',')
              .append(java.nio.file.Files.getLastModifiedTime(f).toInstant()); // to the file system's resolution
        } catch (java.io.IOException e) {
          out.append('|').append(f).append(",?"); // the scan itself will say what is wrong with it
        }
      });
    } catch (java.io.IOException | java.io.UncheckedIOException e) {
      out.append("|?");
    }
  }

  private static String dataCheckKey(TrainingSpec spec, long modelVocab) { return dataPrefix(spec) + modelVocab; }

  private static void scanDataVocab(TrainingSpec spec, long modelVocab, String field) {
    dev.weft.data.TokenSource train = dev.weft.data.DataSources.open(spec.data(), 0).train();
    long dataVocab = train.vocabSize();
    if (modelVocab < dataVocab) {
      throw new SpecException(field, modelVocab + " is below the data's vocabulary of " + dataVocab + " (data.source "
          + spec.data().mix().get(0).source() + (spec.data().mix().size() > 1 ? ", ..." : "") + "); use at least " + dataVocab);
    }
    String outside = train.idOutside(modelVocab);
    if (outside != null) {
      throw new SpecException("data.source", outside + ", not below the model's vocabulary of " + modelVocab + " (" + field
          + "); prepare the data with the model's tokenizer, or fix the file");
    }
  }

  public static ModelFactory lookup(String name) {
    List<String> known = new ArrayList<>();
    for (ModelFactory f : ServiceLoader.load(ModelFactory.class)) {
      if (f.name().equals(name)) return f;
      known.add(f.name());
    }
    if (name != null && name.contains(".")) {
      try {
        Class<?> c = Class.forName(name, true, Thread.currentThread().getContextClassLoader());
        if (!ModelFactory.class.isAssignableFrom(c)) {
          throw new SpecException("model.factory", name + " does not implement dev.weft.models.ModelFactory");
        }
        return (ModelFactory) c.getDeclaredConstructor().newInstance();
      } catch (ReflectiveOperationException e) {
        throw new SpecException("model.factory", "cannot load class " + name + " (" + e + "); is its jar on the classpath?");
      }
    }
    throw new SpecException("model.factory", "'" + name + "' is not a known model; use one of " + known
        + " or the class name of a ModelFactory");
  }
}
