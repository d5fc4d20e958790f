package dev.weft.comm;

import dev.weft.error.WeftException;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/** Finds backends through the SPI. */
public final class Backends {
  private Backends() {}

  public static List<Backend> all() {
    List<Backend> out = new ArrayList<>();
    ServiceLoader.load(Backend.class).forEach(out::add);
    return out;
  }

  /** The backend named {@code name}, available here, or an error that says why not. */
  public static Backend select(String name) {
    for (Backend b : all()) {
      if (b.name().equals(name)) {
        Backend.Availability a = b.probe();
        if (!a.available()) throw new WeftException("device '" + name + "' is not usable here: " + a.detail());
        return b;
      }
    }
    throw new WeftException("no backend named '" + name + "' is on the classpath; known: "
        + all().stream().map(Backend::name).toList() + " (the CUDA backend needs the weft-sdk-native jar)");
  }
}
