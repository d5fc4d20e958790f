package dev.weft.spec;

import dev.weft.spec.SpecException;
import java.util.Locale;

/** The spec's {@code device}: what the user asked for, before anything is probed. */
public enum DeviceChoice {
  CPU, CUDA, AUTO;

  /** Reads the spec value; anything else is a spec error naming {@code device}. */
  public static DeviceChoice parse(String value) {
    if (value != null) {
      for (DeviceChoice c : values()) if (c.spelling().equals(value.strip().toLowerCase(Locale.ROOT))) return c;
    }
    throw new SpecException("device", "'" + value + "' is not a device; use cpu, cuda or auto");
  }

  /** As written in a spec. */
  public String spelling() { return name().toLowerCase(Locale.ROOT); }
}
