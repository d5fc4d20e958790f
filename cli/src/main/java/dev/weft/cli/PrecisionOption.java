package dev.weft.cli;

import dev.weft.spec.PrecisionDtype;
import dev.weft.spec.SpecChoice;
import dev.weft.spec.SpecValidator;
import picocli.CommandLine.Option;

/** {@code --precision} of the commands that build a whole model to run it ({@code eval}, {@code generate}). */
final class PrecisionOption {
  @Option(names = "--precision", defaultValue = "fp32", paramLabel = "fp32|bf16|fp16",
      description = "Compute dtype (default: ${DEFAULT-VALUE}); bf16/fp16 run under autocast, and a Hugging Face directory"
          + " stored in that dtype is used memory-mapped as it is (no fp32 copy: loads at read speed, half the memory).")
  String precision;

  /** The validated spelling ({@code fp32}, {@code bf16}, {@code fp16}). */
  String value() {
    SpecValidator.require(SpecChoice.find(PrecisionDtype.class, precision).isPresent(), "--precision",
        "'" + precision + "' is not one of " + SpecChoice.spellings(PrecisionDtype.class));
    return precision;
  }
}
