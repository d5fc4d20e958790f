package dev.weft;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.EvaluationResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The layers of sdk-api's main classes, lowest first (docs/architecture.md draws them): a package may use its
 * own layer and those below, never one above, and no two packages use each other, even through others.
 * A new package must be given a layer here. The {@code weft} command and the benchmarks are another module (weft-cli):
 * nothing here may use them, nor picocli or DuckDB, which only that module brings.
 */
class LayersTest {
  static final List<List<String>> LAYERS = List.of(
      List.of("error", "util", "log", "metrics", "precision", "optim", "preempt"), // no Weft imports (but errors)
      List.of("spec"),                                                  // the spec records and their own checks
      List.of("comm", "comm.gloo", "device"),                           // process group, worker identity, backends
      List.of("data", "data.prepare", "tokenizer", "tokenizer.chat", "tokenizer.chat.jinja"), // corpora and batches, chat templates
      List.of("models", "models.layers", "models.lora", "models.quant"), // model contracts, dense layers, LoRA adapters, quantised bases
      List.of("checkpoint"),                                            // sharded checkpoints, safetensors
      List.of("models.hf", "models.gpt", "models.decoder", "models.llama", "models.qwen2", "models.qwen3",
          "models.mistral", "models.moe", "models.mixtral", "models.qwen2moe", "models.qwen3moe"), // HF formats, the decoder, its families
      List.of("parallel.tensor", "parallel.pipeline", "parallel.data", "parallel.context", "parallel.expert"), // TP, PP, ZeRO, CP, EP
      List.of("plan", "tracking", "tracking.progress"),                 // spec check, memory plan; TensorBoard, lineage, TrainJob progress
      List.of("train.grpo"),                                            // GRPO's rollouts, rewards and loss
      List.of("train"),                                                 // one rank's training loop
      List.of("launch", "metrics.prometheus"),                          // ranks as threads or processes
      List.of("elastic"),                                               // agents over restarts
      List.of("worker"),                                                // a worker process's entry (no picocli)
      List.of(""),                                                      // dev.weft.Trainer, the API
      List.of("eval", "report"));                                       // tools over a trained run

  static final JavaClasses MAIN = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("dev.weft");

  static String pkg(String name) { return name.isEmpty() ? "dev.weft" : "dev.weft." + name; }

  @Test
  void noPackageCycles() {
    EvaluationResult r = slices().matching("dev.(**)").namingSlices("dev.$1").should().beFreeOfCycles().evaluate(MAIN);
    assertThat(r.hasViolation()).as(String.join("\n", r.getFailureReport().getDetails())).isFalse();
  }

  @Test
  void noLayerUsesAHigherOne() {
    List<String> failures = new ArrayList<>();
    for (int i = 0; i < LAYERS.size() - 1; i++) {
      String[] here = LAYERS.get(i).stream().map(LayersTest::pkg).toArray(String[]::new);
      String[] above = LAYERS.subList(i + 1, LAYERS.size()).stream().flatMap(List::stream).map(LayersTest::pkg).toArray(String[]::new);
      EvaluationResult r = noClasses().that().resideInAnyPackage(here).should().dependOnClassesThat().resideInAnyPackage(above)
          .because("layer " + LAYERS.get(i) + " sits below " + List.of(above)).evaluate(MAIN);
      if (r.hasViolation()) failures.addAll(r.getFailureReport().getDetails());
    }
    assertThat(failures).as(String.join("\n", failures)).isEmpty();
  }

  @Test
  void theLibraryNeverUsesTheTool() {
    EvaluationResult r = noClasses().should().dependOnClassesThat()
        .resideInAnyPackage("dev.weft.cli..", "dev.weft.bench..", "picocli..", "org.duckdb..")
        .because("sdk-api is the library an application adds; the weft command, the benchmarks, picocli and DuckDB live in weft-cli")
        .evaluate(MAIN);
    assertThat(r.hasViolation()).as(String.join("\n", r.getFailureReport().getDetails())).isFalse();
    assertThat(MAIN.stream().map(JavaClass::getPackageName)).noneMatch(p -> p.startsWith("dev.weft.cli") || p.startsWith("dev.weft.bench"));
  }

  @Test
  void everyPackageHasALayer() {
    Set<String> placed = new TreeSet<>();
    LAYERS.forEach(l -> l.forEach(p -> placed.add(pkg(p))));
    Set<String> found = new TreeSet<>();
    for (JavaClass c : MAIN) found.add(c.getPackageName());
    found.removeAll(placed);
    assertThat(found).as("packages with no layer in LayersTest.LAYERS").isEmpty();
    assertThat(MAIN.contain(Trainer.class)).isTrue();
  }
}
