package dev.weft.train;

import static dev.weft.train.TensorParallelEquivalenceTest.assertClose;

import dev.weft.Trainer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Training with the head's loss over chunks takes the steps the whole-logits loss takes, in the layouts whose
 * gradients reach the head's weight by other ways: ZeRO-3 (gathered units, ready hooks), pipeline stages (the head on
 * the last) and tensor parallelism with sequence parallelism (64 tokens a micro-batch, chunks of 7).
 */
class ChunkedLossLayoutsTest {
  @TempDir Path dir;

  private static Trainer llama() {
    return Trainer.model("llama").set("model.config.num_hidden_layers", 2).seqLen(16).globalBatch(8).microBatches(2)
        .steps(3).warmup(1).lr(1e-2).seed(5);
  }

  private void same(String name, Trainer t) {
    RunResult whole = t.set("train.lossChunk", 0).runDir(dir.resolve(name + "-whole")).fit();
    RunResult chunked = t.set("train.lossChunk", 7).runDir(dir.resolve(name + "-chunked")).fit();
    assertClose(chunked.losses(), whole.losses(), 1e-5);
  }

  @Test
  void zero3PipelineAndTensorParallelTakeTheSameSteps() {
    same("z3", llama().dataParallel(2).microBatches(1).zero(3));
    same("pp", llama().pipeline(2));
    same("tp", llama().tensorParallel(2).sequenceParallel());
  }
}
