package dev.weft.models.hf;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.checkpoint.DType;
import java.util.Locale;

/** Weight dtypes as users spell them ({@code bf16}) and as config.json does ({@code bfloat16}). */
public final class HfDtypes {
  private HfDtypes() {}

  /** {@code bf16|fp16|fp32} (also {@code bfloat16|float16|float32}); null for anything else. */
  public static DType parse(String s) {
    return switch (s.toLowerCase(Locale.ROOT)) {
      case "bf16", "bfloat16" -> DType.BF16;
      case "fp16", "float16", "half" -> DType.F16;
      case "fp32", "float32", "float" -> DType.F32;
      default -> null;
    };
  }

  /** config.json's spelling ({@code torch_dtype}). */
  public static String torchName(DType d) {
    return switch (d) {
      case BF16 -> "bfloat16";
      case F16 -> "float16";
      case F32 -> "float32";
      default -> throw new IllegalArgumentException("weights are written as bf16, fp16 or fp32, not " + d);
    };
  }

  /** The dtype a config.json declares ({@code torch_dtype}, or transformers 5's {@code dtype}); null when none or unknown. */
  public static DType declared(JsonNode config) {
    JsonNode d = config.hasNonNull("torch_dtype") ? config.get("torch_dtype") : config.get("dtype");
    return d == null || !d.isTextual() ? null : parse(d.asText());
  }
}
