package dev.weft.spec;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.plan.SpecCheck;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Issue 31, item 7: {@code lr: .nan} named no field, {@code 1e400} and {@code --set x=NaN} passed checks written
 * as {@code x >= 0}. Every number field of the spec refuses NaN and infinities, and every one of them refuses a
 * negative value, naming the field, however the value was written.
 */
class NonFiniteNumbersProperties {
  /** Every double-valued field of the spec records, by dotted path. */
  static List<String> numberFields() {
    List<String> out = new ArrayList<>();
    collect(TrainingSpec.class, "", out);
    return out;
  }

  private static void collect(Class<?> type, String path, List<String> out) {
    for (RecordComponent c : type.getRecordComponents()) {
      String at = path.isEmpty() ? c.getName() : path + "." + c.getName();
      if (c.getType() == double.class) out.add(at);
      else if (c.getType().isRecord()) collect(c.getType(), at, out);
    }
  }

  @Provide
  Arbitrary<String> fields() { return Arbitraries.of(numberFields()); }

  @Provide
  Arbitrary<String> nonFinite() { return Arbitraries.of("NaN", ".nan", "Infinity", "-Infinity", ".inf", "-.inf", "1e400", "-1e400"); }

  @Property
  void nonFiniteValuesAreRefusedNamingTheField(@ForAll("fields") String field, @ForAll("nonFinite") String value) {
    var tree = SpecIO.defaultsTree();
    assertThatThrownBy(() -> {
      SpecOverrides.apply(tree, field + "=" + value);
      SpecCheck.validate(SpecIO.bind(tree));
    }).isInstanceOf(SpecException.class).hasMessageStartingWith(field + ": ");
  }

  @Property
  void nonFiniteValuesInAYamlFileAreRefusedNamingTheField(@ForAll("fields") String field, @ForAll("nonFinite") String value) {
    String[] parts = field.split("\\.");
    StringBuilder yaml = new StringBuilder();
    for (int i = 0; i < parts.length; i++) yaml.append("  ".repeat(i)).append(parts[i]).append(i + 1 < parts.length ? ":\n" : ": " + value + "\n");
    assertThatThrownBy(() -> SpecCheck.validate(SpecIO.parse(yaml.toString())))
        .isInstanceOf(SpecException.class).hasMessageStartingWith(field + ": ");
  }

  @Property
  void negativeValuesAreRefusedNamingTheField(@ForAll("fields") String field, @ForAll("negative") double value) {
    var tree = SpecIO.defaultsTree();
    SpecOverrides.apply(tree, field + "=" + value);
    assertThatThrownBy(() -> SpecCheck.validate(SpecIO.bind(tree))).isInstanceOf(SpecException.class)
        .hasMessageStartingWith(field + ": ");
  }

  @Provide
  Arbitrary<Double> negative() { return Arbitraries.doubles().between(-1e9, -0.01); }
}
