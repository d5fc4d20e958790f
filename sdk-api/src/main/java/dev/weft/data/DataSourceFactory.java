package dev.weft.data;

import dev.weft.spec.DataSpec;

/**
 * Opens a kind of data. A source in the spec reads {@code NAME:LOCATION}; {@code NAME} is this
 * factory's {@link #name()} (registered through {@link java.util.ServiceLoader} in
 * {@code META-INF/services/dev.weft.data.DataSourceFactory}) or the factory's class name, so every
 * worker, wherever it runs, opens the same data. A factory whose data is one long stream of token
 * ids returns {@link Windows#split}; one with its own notion of samples implements
 * {@link TokenSource} itself.
 */
public interface DataSourceFactory {
  String name();

  /** Throws {@link dev.weft.spec.SpecException} (field {@code data.source}) when {@code location} cannot work. */
  default void validate(String location, DataSpec data) {}

  /** Opens {@code location}; samples are {@code data.seqLen() + 1} tokens; {@code seed} is the run's. */
  Splits open(String location, DataSpec data, long seed);
}
