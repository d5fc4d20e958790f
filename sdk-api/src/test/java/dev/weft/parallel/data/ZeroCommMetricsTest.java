package dev.weft.parallel.data;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.metrics.MetricsJson;
import dev.weft.train.RunResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** metrics.jsonl's per-step {@code zero} block counts what each ZeRO stage moves, and its waits are part of comm_ms. */
class ZeroCommMetricsTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(ints = {0, 2, 3})
  void eachStageReportsItsGathersAndReductions(int zero) throws Exception {
    RunResult r = Trainer.model("gpt").set("model.config.layers", 2).set("model.config.hidden", 64).set("model.config.heads", 4)
        .seqLen(32).globalBatch(8).steps(3).warmup(1).lr(1e-3).seed(5).dataParallel(2).zero(zero).zeroBucketMiB(0.05)
        .runDir(dir).fit();
    double paramMib = 4.0 * r.summary().parameters() / (1 << 20);
    List<String> lines = Files.readAllLines(dir.resolve("metrics.jsonl"));
    assertThat(lines).hasSize(3);
    for (String line : lines) {
      JsonNode m = MetricsJson.MAPPER.readTree(line), z = m.get("zero");
      double waits = z.get("gather_wait_ms").asDouble() + z.get("reduce_wait_ms").asDouble() + z.get("param_gather_wait_ms").asDouble();
      assertThat(m.get("comm_ms").asDouble()).isGreaterThanOrEqualTo(waits - 1e-6);
      // ZeRO-2/3 reduce-scatter in buckets of 0.05 MiB; stage 0 all-reduces this 0.5 MiB model in one 1 MiB bucket
      if (zero == 0) assertThat(z.get("reductions").asInt()).isEqualTo(1);
      else assertThat(z.get("reductions").asInt()).isGreaterThan(1);
      double mib = z.get("gathered_mib").asDouble();
      if (m.get("step").asInt() == 1) continue; // a step counts the next one's first prefetches, the first step has its own too
      switch (zero) {
        case 0 -> assertThat(z.get("gathers").asInt()).isZero();
        case 2 -> assertThat(mib).isCloseTo(paramMib, org.assertj.core.data.Offset.offset(0.01)); // the updated parameters, once
        default -> {
          // forward gathers every group, backward again all but the final one (kept whole from forward)
          assertThat(mib).isGreaterThan(paramMib).isLessThan(2 * paramMib + 0.01);
          assertThat(z.get("gathers").asInt()).isGreaterThan(2);
        }
      }
    }
  }
}
