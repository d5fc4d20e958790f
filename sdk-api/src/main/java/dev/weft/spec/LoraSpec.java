package dev.weft.spec;

import java.util.List;

/**
 * {@code train.lora}: low-rank adapters on the named projections, the rest of the model frozen.
 * {@code rank} 0 leaves LoRA off (a full fine-tune). {@code targets} are Hugging Face module names
 * ({@code q_proj}, ..., {@code down_proj}); the update of a target is scale · B · A with scale
 * alpha / rank, or alpha / √rank under {@code rslora}. {@code dropout} drops the adapter's input while
 * training. {@code adapter}, when set, is a PEFT adapter directory the adapters start from. {@code quantize} holds the
 * frozen projection weights compressed: {@code nf4}, {@code nf4-dq} (NF4 with its scales double-quantised, QLoRA's
 * "double quant"), {@code int8}, or 16-bit ({@code bf16}, {@code fp16}); {@code none}: fp32.
 */
public record LoraSpec(int rank, double alpha, double dropout, List<String> targets, boolean rslora, String adapter, String quantize) {
  /** The spellings of {@code quantize}. */
  public static final List<String> QUANTIZE = List.of("none", "nf4", "nf4-dq", "int8", "bf16", "fp16");

  /** The module names a target may be (the attention and MLP projections of the decoder families). */
  public static final List<String> MODULES = List.of("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj");

  public LoraSpec {
    targets = targets == null ? MODULES : List.copyOf(targets);
    adapter = adapter == null ? "" : adapter;
    quantize = quantize == null ? "none" : quantize;
  }

  /** LoRA off. */
  public static LoraSpec off() { return new LoraSpec(0, 16, 0, MODULES, false, "", "none"); }

  public boolean enabled() { return rank > 0; }

  public boolean hasAdapter() { return !adapter.isBlank(); }

  /** Whether the frozen projection weights are held compressed. */
  public boolean quantized() { return enabled() && !"none".equals(quantize); }

  /** The factor of B · A in each target's output. */
  public double scale() { return rslora ? alpha / Math.sqrt(rank) : alpha / rank; }

  /** Whether the module {@code name} (a full parameter prefix such as {@code model.layers.0.self_attn.q_proj}) is a target. */
  public boolean targets(String name) {
    return enabled() && targets.contains(name.substring(name.lastIndexOf('.') + 1));
  }

  /** The field checks of {@code train.lora}. */
  static void validate(LoraSpec l) {
    SpecValidator.require(l.rank() >= 0 && l.rank() <= 4096, "train.lora.rank", l.rank() + " is not a rank; use 0 (LoRA off) or 1 to 4096");
    // Numbers are checked with LoRA off too: a typo there would otherwise surface only when LoRA is switched on.
    SpecValidator.require(l.alpha() > 0 && Double.isFinite(l.alpha()), "train.lora.alpha", l.alpha() + " must be a positive number");
    SpecValidator.require(l.dropout() >= 0 && l.dropout() < 1, "train.lora.dropout", l.dropout() + " must be in [0, 1)");
    SpecValidator.require(QUANTIZE.contains(l.quantize()), "train.lora.quantize", "'" + l.quantize() + "' is not a base format; use "
        + String.join(", ", QUANTIZE));
    if (!l.enabled()) {
      SpecValidator.require("none".equals(l.quantize()), "train.lora.quantize", "compresses a LoRA run's frozen base; set train.lora.rank");
      SpecValidator.require(!l.hasAdapter(), "train.lora.adapter", "needs LoRA on; set train.lora.rank to the adapter's r");
      return;
    }
    SpecValidator.require(!l.targets().isEmpty(), "train.lora.targets", "is empty; name at least one of " + String.join(", ", MODULES));
    for (String t : l.targets()) {
      SpecValidator.require(MODULES.contains(t), "train.lora.targets", "'" + t + "' is not a module LoRA can adapt; use some of "
          + String.join(", ", MODULES));
    }
  }
}
