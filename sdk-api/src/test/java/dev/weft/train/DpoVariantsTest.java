package dev.weft.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.weft.Trainer;
import dev.weft.checkpoint.CheckpointResolver;
import dev.weft.data.Batches;
import dev.weft.data.PreferenceShards;
import dev.weft.models.CausalLm;
import dev.weft.models.LanguageModel;
import dev.weft.models.Parameters.Param;
import dev.weft.models.hf.LoraExport;
import dev.weft.spec.DpoLossKind;
import dev.weft.spec.SpecValidator;
import dev.weft.spec.TrainingSpec;
import dev.weft.util.Tensors;
import java.nio.file.Path;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.global.torch.ScalarType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 42 item 2: DPO's reference is the policy it starts from — after SFT with LoRA, the base with the SFT adapter —
 * so step 1 is log 2; the loss variants (TRL's {@code loss_type} sigmoid with label smoothing, robust, hinge, ipo) each
 * equal their formula on a fixed batch, computed here in doubles from the logits' log-softmax, and their value at zero
 * margin at step 1 of a run.
 */
class DpoVariantsTest {
  private static final int SEQ = 24;
  private static final double BETA = 0.5;
  @TempDir static Path dir;
  static Path hf, pairs;
  static PreferenceFixture.Qwen2Pairs fixture;

  @BeforeAll
  static void data() throws Exception {
    fixture = PreferenceFixture.qwen2Pairs(dir);
    hf = fixture.hf();
    pairs = fixture.pairs();
  }

  static Trainer dpo() { return fixture.dpo(BETA, SEQ).steps(1); }

  @Test
  void sftWithLoraThenDpoFromThatAdapterStartsAtLogTwo() throws Exception {
    Path ckpt = dir.resolve("sft-ckpt"), adapter = dir.resolve("sft-adapter");
    Trainer.model("qwen2").pretrained(hf).lora(4, 8).data("arithmetic").seqLen(SEQ).globalBatch(4).steps(3).warmup(0).lr(5e-2)
        .checkpointDir(ckpt).checkpointEvery(3).runDir(dir.resolve("sft")).fit();
    LoraExport.peft(CheckpointResolver.latest(ckpt).orElseThrow(), adapter);
    RunResult fromSft = dpo().lora(4, 8).set("train.lora.adapter", adapter.toString()).runDir(dir.resolve("dpo-from-sft")).fit();
    assertThat(fromSft.losses().get(0)).isCloseTo(Math.log(2), within(1e-6));
    // the base as reference (what DPO used before): the SFT adapter has moved the policy away from it
    RunResult baseRef = dpo().lora(4, 8).set("train.lora.adapter", adapter.toString()).set("train.dpo.reference", hf.toString())
        .runDir(dir.resolve("dpo-base-ref")).fit();
    assertThat(Math.abs(baseRef.losses().get(0) - Math.log(2))).as("the SFT adapter changed the policy").isGreaterThan(1e-4);
    // an explicit adapter reference equal to the starting one is the default again
    RunResult adapterRef = dpo().lora(4, 8).set("train.lora.adapter", adapter.toString()).set("train.dpo.reference", adapter.toString())
        .runDir(dir.resolve("dpo-adapter-ref")).fit();
    assertThat(adapterRef.losses().get(0)).isCloseTo(Math.log(2), within(1e-6));
  }

  @Test
  void eachVariantIsItsFormulaOnAFixedBatch() {
    TrainingSpec spec = dpo().toSpec();
    LanguageModel policy = ModelBuilder.whole(spec), ref = ModelBuilder.frozenCopy(spec, null, null);
    try (NoGradGuard ng = new NoGradGuard()) {
      for (Param p : policy.parameters().list()) p.tensor().mul_(new Scalar(1.25)); // the policy has moved from the reference
    }
    Batches.Batch b = Batches.make(PreferenceShards.open(pairs, SEQ, 5), 0, 8, SEQ);
    double[] pol = DpoTest.perToken((CausalLm) policy, b), rf = DpoTest.perToken((CausalLm) ref, b);
    long[] tg = Tensors.toLongs(b.targets().contiguous().view(-1));
    double[] counts = new double[8];
    for (int i = 0; i < tg.length; i++) if (tg[i] != Batches.IGNORE) counts[i / SEQ]++;
    double eps = 0.2;
    for (DpoLossKind kind : DpoLossKind.values()) {
      double e = kind == DpoLossKind.SIGMOID || kind == DpoLossKind.ROBUST ? eps : 0;
      double expected = 0;
      for (int p = 0; p < 4; p++) {
        double logits = (pol[2 * p] - rf[2 * p]) - (pol[2 * p + 1] - rf[2 * p + 1]), h = BETA * logits;
        expected += switch (kind) {
          case SIGMOID -> -logSigmoid(h) * (1 - e) - logSigmoid(-h) * e;
          case ROBUST -> (-logSigmoid(h) * (1 - e) + logSigmoid(-h) * e) / (1 - 2 * e);
          case HINGE -> Math.max(0, 1 - h);
          case IPO -> {
            double mean = (pol[2 * p] - rf[2 * p]) / counts[2 * p] - (pol[2 * p + 1] - rf[2 * p + 1]) / counts[2 * p + 1];
            yield Math.pow(mean - 1 / (2 * BETA), 2);
          }
        };
      }
      DpoLoss l = DpoLoss.of(DpoLoss.sequenceLogProbs(policy, b.tokens(), b.targets()),
          ReferencePolicy.frozen(ref).logProbs(b.tokens(), b.targets()), BETA, kind, e, DpoLoss.targetCounts(b.targets()));
      assertThat(l.lossSum().to(ScalarType.Double).item_double()).as("%s", kind).isCloseTo(expected, within(1e-5 * Math.max(1, expected)));
    }
  }

  private static double logSigmoid(double x) { return x >= 0 ? -Math.log1p(Math.exp(-x)) : x - Math.log1p(Math.exp(x)); }

  @Test
  void stepOneOfEachVariantIsItsValueAtZeroMargin() {
    assertThat(dpo().set("train.dpo.loss", "hinge").runDir(dir.resolve("hinge")).fit().losses().get(0)).isCloseTo(1.0, within(1e-6));
    assertThat(dpo().set("train.dpo.loss", "ipo").runDir(dir.resolve("ipo")).fit().losses().get(0))
        .isCloseTo(1 / (4 * BETA * BETA), within(1e-6));
    assertThat(dpo().set("train.dpo.loss", "robust").set("train.dpo.labelSmoothing", 0.1).runDir(dir.resolve("robust")).fit().losses().get(0))
        .isCloseTo(Math.log(2), within(1e-6));
  }

  @Test
  void badSettingsAreRefusedNamingTheField() {
    assertThatThrownBy(() -> SpecValidator.validate(dpo().set("train.dpo.loss", "kto").toSpec()))
        .hasMessageContaining("train.dpo.loss").hasMessageContaining("sigmoid, ipo, hinge, robust");
    assertThatThrownBy(() -> SpecValidator.validate(dpo().set("train.dpo.labelSmoothing", 0.5).toSpec()))
        .hasMessageContaining("train.dpo.labelSmoothing");
    assertThatThrownBy(() -> SpecValidator.validate(dpo().set("train.dpo.loss", "hinge").set("train.dpo.labelSmoothing", 0.1).toSpec()))
        .hasMessageContaining("train.dpo.labelSmoothing");
    assertThatThrownBy(() -> ReferencePolicy.spec(dpo().set("train.dpo.reference", dir.resolve("nothing").toString()).toSpec()))
        .hasMessageContaining("train.dpo.reference").hasMessageContaining("neither config.json");
  }
}
