package dev.weft.models;

import dev.weft.spec.SpecException;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/** Finds a {@link ModelFactory} by short name (ServiceLoader) or by class name. */
public final class ModelFactories {
  private ModelFactories() {}

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
