package dev.weft.elastic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.weft.checkpoint.CheckpointMeta;
import dev.weft.checkpoint.Checkpointer;
import dev.weft.checkpoint.CommitStore;
import dev.weft.checkpoint.StateEntry;
import dev.weft.checkpoint.TensorSlice;
import dev.weft.comm.RunToken;
import dev.weft.error.BadInputException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 41 item 1's checkpoint half: a run's checkpoints carry its token's identity, and an elastic agent whose next
 * generation would resume from a checkpoint another token saved in its checkpoint dir refuses in one line (exit 2)
 * instead of training on the other run's state. Real checkpoints on disk, written by the real Checkpointer.
 */
class ResumeCheckTokenTest {
  private static final String MINE = RunToken.identity("a".repeat(32));
  private static final String THEIRS = RunToken.identity("z".repeat(32));
  @TempDir Path dir;

  /** Commits step {@code step} into {@code root} with the run-token identity {@code identity} (null: none recorded). */
  private static void save(Path root, long step, String identity) {
    Map<String, Object> state = new HashMap<>(Map.of("samples_consumed", step * 4));
    if (identity != null) state.put(RunToken.STATE_KEY, identity);
    long[] shape = {4};
    try (Checkpointer c = Checkpointer.create(root, 0, 1, CommitStore.inProcess(), new Checkpointer.Options(0, false, Duration.ofSeconds(60)))) {
      c.save(new CheckpointMeta(step, new CheckpointMeta.Mesh(1, 1, 1), 0, JsonNodeFactory.instance.objectNode(), state),
          List.of(new StateEntry("model/w", torch.arange(new Scalar(4)).to(torch.ScalarType.Float), TensorSlice.whole(shape), true)));
    }
  }

  private boolean resumes(Path root, String identity) {
    try (ResumeCheck check = new ResumeCheck(root.toString(), dir.resolve("work"), identity, line -> {})) {
      return check.hasCheckpoint();
    }
  }

  @Test
  void theRunsOwnCheckpointResumes() {
    Path root = dir.resolve("ckpt");
    save(root, 10, MINE);
    assertThat(resumes(root, MINE)).isTrue();
  }

  @Test
  void aCheckpointAnotherTokenSavedIsRefusedInOneLine() {
    Path root = dir.resolve("ckpt");
    save(root, 10, MINE);
    save(root, 20, THEIRS); // another run wrote into this run's checkpoint dir and moved latest
    assertThatThrownBy(() -> resumes(root, MINE)).isInstanceOf(BadInputException.class)
        .hasMessageContaining("latest").hasMessageContaining("another run token (" + THEIRS + ", this run's is " + MINE + ")")
        .hasMessageNotContaining("\n");
  }

  @Test
  void latestNamesTheRunThatMovedItAndAForeignOneIsRefusedWithoutReadingAManifest() throws Exception {
    Path root = dir.resolve("ckpt");
    save(root, 10, MINE);
    Path latest = root.resolve("latest");
    assertThat(java.nio.file.Files.readString(latest)).isEqualTo("step-000010\nrun_token " + MINE + "\n");
    assertThat(resumes(root, MINE)).isTrue();
    // the pointer moved by another run's commit (its step directory gone or not: an object store's agent reads no manifest)
    java.nio.file.Files.writeString(latest, "step-000010\nrun_token " + THEIRS + "\n");
    assertThatThrownBy(() -> resumes(root, MINE)).isInstanceOf(BadInputException.class)
        .hasMessageContaining(latest.toString()).hasMessageContaining("another run token (" + THEIRS);
    java.nio.file.Files.writeString(latest, "step-000010\n"); // a pointer written before owners were recorded
    assertThat(resumes(root, MINE)).isTrue();
  }

  @Test
  void aTokenlessRunsCheckpointIsRefusedToATokenedRunAndTheReverse() {
    Path none = dir.resolve("none");
    save(none, 10, RunToken.identity(""));
    assertThatThrownBy(() -> resumes(none, MINE)).isInstanceOf(BadInputException.class).hasMessageContaining("(none, this run's is");
    Path tokened = dir.resolve("tokened");
    save(tokened, 10, MINE);
    assertThatThrownBy(() -> resumes(tokened, "none")).isInstanceOf(BadInputException.class).hasMessageContaining("this run's is none");
  }

  @Test
  void aCheckpointSavedBeforeIdentitiesWereRecordedResumes() {
    Path root = dir.resolve("old");
    save(root, 10, null);
    assertThat(resumes(root, MINE)).isTrue();
  }
}
