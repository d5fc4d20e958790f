package dev.weft.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.Trainer;
import dev.weft.spec.SpecException;
import dev.weft.train.RunResult;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31 item 4 through the training loop: {@code --resume latest} past a checkpoint holding a NaN
 * weight, past a global shape edited behind a valid seal, and the one line when nothing is intact.
 */
class ResumeFallbackTest {
  @TempDir Path dir;
  private Path ck;
  private RunResult reference;

  private static Trainer small() {
    return Trainer.model("gpt").set("model.config.layers", 1).set("model.config.hidden", 16).set("model.config.heads", 2)
        .seqLen(8).globalBatch(4).steps(10).warmup(1).lr(3e-3).seed(7);
  }

  @BeforeEach
  void trainTo10() {
    ck = dir.resolve("ck");
    small().checkpointEvery(5).checkpointDir(ck).runDir(dir.resolve("a")).fit();
    reference = small().steps(12).resume(ck.resolve("step-000005").toString()).runDir(dir.resolve("ref")).fit();
  }

  private RunResult resumeLatest(String run) {
    return small().steps(12).checkpointDir(ck).resume("latest").runDir(dir.resolve(run)).fit();
  }

  @Test
  void aNanWeightCheckpointIsRefusedAndLatestFallsBackToTheIntactOne() throws Exception {
    Path shard = ck.resolve("step-000010").resolve(Tamper.SHARD);
    SafetensorsFile f = SafetensorsFile.open(shard);
    SafetensorsFile.Entry w = f.entries().values().stream().filter(e -> e.name().startsWith("model/") && e.dtype() == DType.F32)
        .findFirst().orElseThrow();
    try (RandomAccessFile raf = new RandomAccessFile(shard.toFile(), "rw")) {
      raf.seek(f.dataStart() + w.begin());
      raf.write(new byte[] {0, 0, (byte) 0xc0, 0x7f}); // a quiet NaN, little-endian
    }
    Tamper.rehashShard(ck, 10); // checksums recomputed: only the value check can catch it
    RunResult r = resumeLatest("nan");
    assertThat(r.losses()).hasSize(7).isEqualTo(reference.losses());
  }

  @Test
  void aGlobalShapeEditedBehindAValidSealFallsBack() throws Exception {
    Tamper.reseal(Tamper.manifest(ck, 10), t -> {
      ObjectNode emb = null;
      for (var it = t.get("tensors").fields(); it.hasNext() && emb == null; ) {
        var e = it.next();
        ArrayNode sh = (ArrayNode) e.getValue().get("shape");
        if (e.getKey().startsWith("model/") && sh.size() == 2 && sh.get(0).asLong() != sh.get(1).asLong()) emb = (ObjectNode) e.getValue();
      }
      ArrayNode shape = (ArrayNode) emb.get("shape");
      long rows = shape.get(0).asLong(), cols = shape.get(1).asLong();
      emb.putArray("shape").add(cols).add(rows);
      emb.get("pieces").forEach(p -> ((ObjectNode) p).putArray("shape").add(cols).add(rows));
    });
    Checkpoint.open(ck.resolve("step-000010")).verify(); // inspect sees nothing wrong
    RunResult r = resumeLatest("shape");
    assertThat(r.losses()).hasSize(7).isEqualTo(reference.losses());
  }

  @Test
  void nothingIntactIsOneSpecLine() throws Exception {
    try (Stream<Path> s = Files.list(ck)) {
      for (Path p : s.filter(Files::isDirectory).toList()) Files.writeString(p.resolve(Manifest.FILE_NAME), "{\"step\":1}");
    }
    assertThatThrownBy(() -> resumeLatest("none")).isInstanceOf(SpecException.class)
        .hasMessageStartingWith("checkpoint.resume: latest: none of the 2 checkpoint(s) under " + ck + " is intact: step-000010 (")
        .hasMessageContaining("step-000005 (").hasMessageNotContaining("\n");
  }
}
