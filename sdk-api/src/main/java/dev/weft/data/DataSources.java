package dev.weft.data;

import dev.weft.spec.DataSpec;
import dev.weft.spec.SpecException;
import dev.weft.spec.SpecValidator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Turns {@code data.source} / {@code data.sources} into samples. A source is {@code NAME:LOCATION}
 * (a registered {@link DataSourceFactory} or its class name), {@code arithmetic}, or a plain path:
 * a directory with {@code index.json} is token shards, {@code *.npy} a token array, any other file
 * text read as bytes.
 */
public final class DataSources {
  private DataSources() {}

  /** A factory and the location it opens. */
  public record Resolved(DataSourceFactory factory, String location) {}

  /** Checks every source of {@code data} without reading its samples. */
  public static void validate(DataSpec data) {
    SpecValidator.require(data.validation() >= 0 && data.validation() < 1, "data.validation",
        data.validation() + " must be a fraction in [0, 1) of each source held out for evaluation");
    for (DataSpec.Weighted w : data.mix()) {
      SpecValidator.require(w.weight() > 0 && Double.isFinite(w.weight()), "data.sources",
          "weight " + w.weight() + " of '" + w.source() + "' must be a positive number");
      Resolved r = resolve(w.source());
      r.factory().validate(r.location(), data);
    }
    if (!data.eval().isBlank()) evalSource(data);
  }

  /** {@code data.eval}: a source of its own, instead of (not beside) a {@code data.validation} split. */
  private static void evalSource(DataSpec data) {
    SpecValidator.require(data.validation() == 0, "data.eval", "and data.validation=" + data.validation() + " both hold out data;"
        + " keep one (data.eval: a held-out source of its own, data.validation: a fraction of the training data)");
    try {
      Resolved r = resolve(data.eval());
      r.factory().validate(r.location(), data.evalData());
    } catch (SpecException e) {
      throw new SpecException("data.eval", e.getMessage().substring(e.field().length() + 2));
    }
  }

  /** Token ids of {@code data} are below this (0 when no source knows). Models check their vocabulary against it. */
  public static long vocabSize(DataSpec data) { return open(data, 0).train().vocabSize(); }

  /** Opens every source of {@code data}; a mixture when there are several. */
  public static Splits open(DataSpec data, long seed) {
    List<DataSpec.Weighted> mix = data.mix();
    if (mix.size() == 1) return openOne(mix.get(0).source(), data, seed);
    List<TokenSource> train = new ArrayList<>(), val = new ArrayList<>();
    List<Double> weights = new ArrayList<>();
    for (int i = 0; i < mix.size(); i++) {
      Splits s = openOne(mix.get(i).source(), data, seed + i);
      train.add(s.train());
      val.add(s.validation());
      weights.add(mix.get(i).weight());
    }
    return new Splits(new Mixture(train, weights), val.contains(null) ? null : new Mixture(val, weights));
  }

  private static Splits openOne(String source, DataSpec data, long seed) {
    Resolved r = resolve(source);
    return r.factory().open(r.location(), data, seed);
  }

  public static Resolved resolve(String source) {
    if (source == null || source.isBlank()) {
      throw new SpecException("data.source", "is empty; use 'arithmetic', a directory of token shards, a .npy file or a text file");
    }
    List<String> known = new ArrayList<>();
    int colon = source.indexOf(':');
    String name = colon < 0 ? source : source.substring(0, colon);
    String location = colon < 0 ? "" : source.substring(colon + 1);
    for (DataSourceFactory f : ServiceLoader.load(DataSourceFactory.class)) {
      if (f.name().equals(name)) return new Resolved(f, location);
      known.add(f.name());
    }
    if (name.matches("([a-z_][\\w$]*\\.)+[A-Z][\\w$]*") && !Files.exists(Path.of(source))) {
      return new Resolved(byClass(name), location);
    }
    Path p = Path.of(source);
    if (Files.isDirectory(p)) return new Resolved(new BuiltinSources.Shards(), source);
    if (source.endsWith(".npy")) return new Resolved(new BuiltinSources.Numpy(), source);
    if (Files.isRegularFile(p)) return new Resolved(new BuiltinSources.Text(), source);
    throw new SpecException("data.source", "'" + source + "' is neither a file, a directory nor NAME:LOCATION of a known source "
        + known + "; fix the path or name a DataSourceFactory class");
  }

  private static DataSourceFactory byClass(String name) {
    try {
      Class<?> c = Class.forName(name, true, Thread.currentThread().getContextClassLoader());
      if (!DataSourceFactory.class.isAssignableFrom(c)) {
        throw new SpecException("data.source", name + " does not implement dev.weft.data.DataSourceFactory");
      }
      return (DataSourceFactory) c.getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new SpecException("data.source", "cannot load class " + name + " (" + e + "); is its jar on the classpath?");
    }
  }
}
