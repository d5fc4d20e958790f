package dev.weft.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.spec.SpecIO;
import dev.weft.spec.TrainingSpec;
import dev.weft.testing.WeftCli;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** HSDP in the plan: ZeRO divides by the shard group; the replicate all-reduce is planned apart and called out as the cross-host part. */
class HsdpPlanTest {
  private static final Path TINY = Path.of("../samples/configs/gpt-tiny.yaml");
  private static final Path LLAMA = Path.of("../samples/configs/llama-tiny.yaml");

  private static RankPlan first(String... sets) {
    return MemoryPlan.ranks(SpecIO.read(TINY, List.of(sets))).orElseThrow().get(0);
  }

  @Test
  void shardGroupDividesTheStateAndTheReplicasAllReduceTheGradientShard() {
    RankPlan z0 = first("parallel.dp=4", "parallel.zero=0");
    RankPlan hsdp = first("parallel.dp=4", "parallel.zero=3", "parallel.zeroShardSize=2");
    RankPlan z3 = first("parallel.dp=2", "parallel.zero=3");
    assertThat(hsdp.parameters()).isEqualTo(z0.parameters() / 2);
    assertThat(hsdp.optimizerState()).isEqualTo(z0.optimizerState() / 2);
    assertThat(hsdp.dpBytes()).isEqualTo(z3.dpBytes()); // the shard group is a ZeRO-3 group of 2
    double reduceBytes = "fp32".equals(SpecIO.read(TINY, List.of()).precision().reduceDtype()) ? 4 : 2;
    assertThat(hsdp.dpReplicateBytes()).isEqualTo(2 * 0.5 * hsdp.parameterCount() / 2 * reduceBytes); // ring all-reduce over 2 replicas
    assertThat(z0.dpReplicateBytes()).isZero();
  }

  /** A Llama-3-8B-shaped model on two hosts of eight GPUs: HSDP 8 × 2 against ZeRO-3 over all sixteen (docs/performance.md). */
  @Test
  void twoHostLayoutNamesTheCrossHostBytes() {
    List<String> base = List.of("--set", "model.config.hidden_size=4096", "--set", "model.config.intermediate_size=14336",
        "--set", "model.config.num_hidden_layers=32", "--set", "model.config.num_attention_heads=32", "--set",
        "model.config.num_key_value_heads=8", "--set", "model.config.vocab_size=128256", "--set", "data.seqLen=4096", "--set",
        "precision=bf16", "--set", "device=cuda", "--set", "parallel.dp=16", "--set", "parallel.tp=1", "--set", "parallel.zero=3", "--set",
        "parallel.microBatches=1", "--set", "train.globalBatch=16", "--set", "train.evalEvery=0",
        "--set", "deployment.procsPerNode=8");
    List<String> hsdp = new ArrayList<>(List.of("plan", LLAMA.toString()));
    hsdp.addAll(base);
    hsdp.addAll(List.of("--set", "parallel.zeroShardSize=8"));
    WeftCli.Output out = WeftCli.capture(hsdp.toArray(String[]::new));
    assertThat(out.code()).as(out.err()).isZero();
    assertThat(out.out()).contains("HSDP: ZeRO-3 within 2 shard groups of 8 dp ranks").contains("host-local (8 ranks per host)");
    List<String> plain = new ArrayList<>(List.of("plan", LLAMA.toString()));
    plain.addAll(base);
    WeftCli.Output z3 = WeftCli.capture(plain.toArray(String[]::new));
    System.out.println(out.out() + "\n---- ZeRO-3 over dp16:\n" + z3.out());
    TrainingSpec spec = SpecIO.read(LLAMA, List.of("parallel.dp=4", "parallel.zero=3", "parallel.zeroShardSize=2", "deployment.procsPerNode=1"));
    assertThat(HsdpPlan.line(spec, MemoryPlan.ranks(spec).orElseThrow()).orElseThrow()).contains("shard groups cross hosts too")
        .contains("make that a multiple of 4"); // llama-tiny has tp=2
  }
}
