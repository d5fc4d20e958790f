package dev.weft.spec;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A spec field with a fixed set of values, each spelled the way YAML, {@code --set} and the DSL write it.
 * The spec records keep the spelled string (so files round-trip unchanged); the enum parses it, and
 * {@link SpecValidator} is the one place that refuses an unknown spelling.
 */
public interface SpecChoice {
  /** The spelling in YAML, {@code --set} and the DSL. */
  String spelling();

  /** The value spelled {@code name}, if there is one. */
  static <E extends Enum<E> & SpecChoice> Optional<E> find(Class<E> type, String name) {
    return Arrays.stream(type.getEnumConstants()).filter(e -> e.spelling().equals(name)).findFirst();
  }

  /** The value spelled {@code name}; for specs already validated, so an unknown one is a bug. */
  static <E extends Enum<E> & SpecChoice> E of(Class<E> type, String name) {
    return find(type, name).orElseThrow(() -> new IllegalStateException(
        "unvalidated " + type.getSimpleName() + " '" + name + "'; SpecValidator refuses it"));
  }

  /** Every spelling, in declaration order, e.g. {@code adamw, adam, sgd}. */
  static <E extends Enum<E> & SpecChoice> String spellings(Class<E> type) {
    return Arrays.stream(type.getEnumConstants()).map(SpecChoice::spelling).collect(Collectors.joining(", "));
  }
}
