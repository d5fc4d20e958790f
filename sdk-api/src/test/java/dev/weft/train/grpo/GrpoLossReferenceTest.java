package dev.weft.train.grpo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.spec.GrpoLossType;
import dev.weft.testing.PythonRef;
import dev.weft.util.Tensors;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.bytedeco.pytorch.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 45, "Done when" 1: the GRPO loss, advantages, clip fraction and KL of fixed batches equal an independent NumPy
 * implementation of TRL's formulas (grpo_reference.py) within 1e-6 — each normalisation, with the clip active and not,
 * with β = 0 and β &gt; 0, with and without the std — and the gradient at ratio 1 is −A·mask/denominator.
 */
class GrpoLossReferenceTest {
  private static final int B = 6, GROUP = 3, T = 7, MAX_NEW = 9;
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  /** One fixed batch: log-probabilities, the rollout policy's ({@code drift} away), the reference's, masks, rewards. */
  record Batch(double[][] logp, double[][] old, double[][] ref, double[][] mask, double[] rewards) {
    static Batch of(long seed, double drift) {
      Random r = new Random(seed);
      double[][] logp = new double[B][T], old = new double[B][T], ref = new double[B][T], mask = new double[B][T];
      double[] rewards = new double[B];
      for (int b = 0; b < B; b++) {
        int start = 1 + r.nextInt(2), end = b == 5 ? start : Math.min(T, start + 1 + r.nextInt(T - start)); // row 5: an empty completion
        for (int t = 0; t < T; t++) {
          logp[b][t] = -0.05 - 3 * r.nextDouble();
          old[b][t] = logp[b][t] + drift * r.nextGaussian();
          ref[b][t] = logp[b][t] + 0.3 * r.nextGaussian();
          mask[b][t] = t >= start && t < end ? 1 : 0;
        }
        rewards[b] = r.nextInt(3) == 0 ? 1.0 : r.nextDouble();
      }
      return new Batch(logp, old, ref, mask, rewards);
    }
  }

  record Case(Batch batch, GrpoLossType type, boolean scale, double eps, double epsHigh, double beta) {}

  @Test
  void lossAdvantagesClipAndKlEqualNumpyOnFixedBatches() throws Exception {
    PythonRef.require("numpy");
    List<Case> cases = new ArrayList<>();
    Batch clipping = Batch.of(7, 0.6), inside = Batch.of(11, 0.02);
    for (GrpoLossType type : GrpoLossType.values()) {
      for (Batch b : List.of(clipping, inside)) {
        cases.add(new Case(b, type, true, 0.2, 0.2, 0.0));
        cases.add(new Case(b, type, false, 0.2, 0.28, 0.04)); // Dr. GRPO's advantages, DAPO's clip-higher, a KL term
      }
    }
    JsonNode expected = reference(cases);
    for (int i = 0; i < cases.size(); i++) {
      Case c = cases.get(i);
      JsonNode e = expected.get(i);
      double[] adv = Advantages.of(c.batch().rewards(), GROUP, c.scale());
      for (int b = 0; b < B; b++) assertThat(adv[b]).as("advantage %d of case %d", b, i).isCloseTo(e.get("advantages").get(b).asDouble(), within(1e-6));
      GrpoLoss l = GrpoLoss.of(matrix(c.batch().logp()), matrix(c.batch().old()), matrix(c.batch().ref()), Tensors.ofDoubles(adv),
          matrix(c.batch().mask()), new GrpoLoss.Params(c.eps(), c.epsHigh(), c.beta(), c.type()));
      double den = new GrpoLoss.Normalization(c.type(), B, l.tokens(), MAX_NEW).denominator();
      String what = c.type().spelling() + " case " + i;
      assertThat(l.lossSum().item_double() / den).as(what).isCloseTo(e.get("loss").asDouble(), within(1e-6));
      assertThat(l.clipped() / l.tokens()).as(what).isCloseTo(e.get("clip_ratio").asDouble(), within(1e-6));
      assertThat(l.klSum() / l.tokens()).as(what).isCloseTo(e.get("kl").asDouble(), within(1e-6));
    }
    assertThat(expected.get(0).get("clip_ratio").asDouble()).as("the drifting batch clips").isGreaterThan(0.05);
    assertThat(expected.get(2).get("clip_ratio").asDouble()).as("the near batch does not").isEqualTo(0.0);
  }

  @Test
  void atRatioOneTheGradientIsMinusTheAdvantageOverTheDenominator() {
    Batch b = Batch.of(3, 0);
    double[] adv = Advantages.of(b.rewards(), GROUP, true);
    Tensor logp = matrix(b.logp()).requires_grad_(true);
    GrpoLoss l = GrpoLoss.of(logp, null, null, Tensors.ofDoubles(adv), matrix(b.mask()), new GrpoLoss.Params(0.2, 0.2, 0, GrpoLossType.DAPO));
    double den = new GrpoLoss.Normalization(GrpoLossType.DAPO, B, l.tokens(), MAX_NEW).denominator();
    l.lossSum().div(new org.bytedeco.pytorch.Scalar(den)).backward();
    double[] g = Tensors.toDoubles(logp.grad().contiguous().view(-1));
    for (int i = 0; i < B; i++) {
      for (int t = 0; t < T; t++) assertThat(g[i * T + t]).isCloseTo(-adv[i] * b.mask()[i][t] / den, within(1e-12));
    }
    assertThat(l.clipped()).isZero();
  }

  private static Tensor matrix(double[][] rows) {
    double[] flat = new double[rows.length * rows[0].length];
    for (int i = 0; i < rows.length; i++) System.arraycopy(rows[i], 0, flat, i * rows[0].length, rows[0].length);
    return Tensors.ofDoubles(flat).view(rows.length, rows[0].length);
  }

  private JsonNode reference(List<Case> cases) throws Exception {
    ArrayNode all = JSON.createArrayNode();
    for (Case c : cases) {
      ObjectNode o = all.addObject();
      o.set("logp", JSON.valueToTree(c.batch().logp()));
      o.set("old", JSON.valueToTree(c.batch().old()));
      o.set("ref", JSON.valueToTree(c.batch().ref()));
      o.set("mask", JSON.valueToTree(c.batch().mask()));
      o.set("rewards", JSON.valueToTree(c.batch().rewards()));
      o.put("group", GROUP).put("scale", c.scale()).put("eps", c.eps()).put("eps_high", c.epsHigh()).put("beta", c.beta())
          .put("type", c.type().spelling()).put("max_new", MAX_NEW);
    }
    Path in = dir.resolve("cases.json"), script = dir.resolve("grpo_reference.py");
    JSON.writeValue(in.toFile(), all);
    try (InputStream s = GrpoLossReferenceTest.class.getResourceAsStream("grpo_reference.py")) {
      Files.copy(s, script);
    }
    Process p = new ProcessBuilder(PythonRef.command(script.toString(), in.toString())).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("grpo_reference.py finished").isTrue();
    assertThat(p.exitValue()).isZero();
    return JSON.readTree(out);
  }
}
