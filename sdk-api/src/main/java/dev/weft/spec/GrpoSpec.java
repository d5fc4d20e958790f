package dev.weft.spec;

import java.util.List;

/**
 * {@code train.grpo}: Group Relative Policy Optimization with verifiable rewards (Shao et al., 2024), TRL's
 * {@code GRPOConfig} names where they fit. {@code groupSize} completions per prompt (TRL's {@code num_generations});
 * the clip range [1 − {@code epsilon}, 1 + {@code epsilonHigh}] of the ratio to the rollout policy (DAPO's
 * clip-higher when {@code epsilonHigh} &gt; {@code epsilon}; unset: {@code epsilon}); {@code beta} the weight of the
 * KL to the reference (0 as current TRL: no reference is held); {@code lossType} ({@link GrpoLossType});
 * {@code scaleRewards}: divide the group's advantages by its std (GRPO) or not (Dr. GRPO); {@code mu} optimizer steps
 * per rollout batch (TRL's {@code num_iterations}); sampling: {@code temperature}, {@code topP}, {@code topK} (0: off),
 * {@code maxNewTokens} (TRL's {@code max_completion_length}), {@code stop} texts that end a completion besides the
 * model's eos; {@code rewards} ({@link RewardSpec}), summed with their weights. Used when {@code train.objective} is
 * {@code grpo}.
 */
public record GrpoSpec(int groupSize, double epsilon, Double epsilonHigh, double beta, String lossType, Boolean scaleRewards,
                       int mu, double temperature, double topP, int topK, int maxNewTokens, List<String> stop,
                       List<RewardSpec> rewards) {
  public GrpoSpec {
    lossType = lossType == null ? GrpoLossType.DAPO.spelling() : lossType;
    epsilonHigh = epsilonHigh == null ? epsilon : epsilonHigh;
    scaleRewards = scaleRewards == null ? Boolean.TRUE : scaleRewards;
    stop = stop == null ? List.of() : List.copyOf(stop);
    rewards = rewards == null ? List.of() : List.copyOf(rewards);
  }

  /** TRL's defaults (8 completions, ε 0.2, β 0, dapo, μ 1, temperature 1) with 64 new tokens and no rewards yet. */
  public static GrpoSpec defaults() {
    return new GrpoSpec(8, 0.2, null, 0, null, null, 1, 1.0, 1.0, 0, 64, null, null);
  }

  /** The field checks of {@code train.grpo}; {@code needsRewards}: the objective is grpo and no DSL reward is set. */
  static void validate(GrpoSpec g) {
    SpecValidator.require(g.groupSize() >= 2, "train.grpo.groupSize", g.groupSize()
        + " must be at least 2: advantages compare the completions of one prompt (8 is usual)");
    SpecValidator.require(g.epsilon() > 0 && g.epsilon() < 1, "train.grpo.epsilon", g.epsilon() + " must be in (0, 1) (0.2 is usual)");
    SpecValidator.require(g.epsilonHigh() >= g.epsilon() && Double.isFinite(g.epsilonHigh()), "train.grpo.epsilonHigh",
        g.epsilonHigh() + " must be at least train.grpo.epsilon (" + g.epsilon() + "; DAPO uses 0.28)");
    SpecValidator.require(g.beta() >= 0 && Double.isFinite(g.beta()), "train.grpo.beta", g.beta() + " must be 0 (no KL term) or positive");
    SpecValidator.require(SpecChoice.find(GrpoLossType.class, g.lossType()).isPresent(), "train.grpo.lossType",
        "'" + g.lossType() + "' is not a GRPO loss type; use one of " + SpecChoice.spellings(GrpoLossType.class));
    SpecValidator.require(g.mu() >= 1, "train.grpo.mu", g.mu() + " must be at least 1 (optimizer steps per rollout batch)");
    SpecValidator.require(g.temperature() > 0 && Double.isFinite(g.temperature()), "train.grpo.temperature", g.temperature()
        + " must be positive: rollouts sample (1.0 is usual)");
    SpecValidator.require(g.topP() > 0 && g.topP() <= 1, "train.grpo.topP", g.topP() + " must be in (0, 1]");
    SpecValidator.require(g.topK() >= 0, "train.grpo.topK", g.topK() + " must be 0 (off) or positive");
    SpecValidator.require(g.maxNewTokens() >= 1, "train.grpo.maxNewTokens", g.maxNewTokens() + " must be at least 1");
    for (int i = 0; i < g.rewards().size(); i++) {
      RewardSpec r = g.rewards().get(i);
      String at = "train.grpo.rewards[" + i + "]";
      SpecValidator.require(!r.name().isBlank(), at + ".name", "is empty; use exact, regex, arithmetic or a RewardFunction class name");
      SpecValidator.require(Double.isFinite(r.weight()), at + ".weight", r.weight() + " must be a finite number");
      SpecValidator.require(!"regex".equals(r.name()) || !r.pattern().isEmpty(), at + ".pattern", "is empty; the regex reward needs a pattern");
    }
  }
}
