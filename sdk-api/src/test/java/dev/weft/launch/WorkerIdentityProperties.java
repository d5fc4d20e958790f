package dev.weft.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.WeftException;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class WorkerIdentityProperties {
  @Property
  void torchrunNames(@ForAll @IntRange(min = 1, max = 64) int world, @ForAll @IntRange(min = 0, max = 63) int r,
                     @ForAll @IntRange(min = 1024, max = 65535) int port) {
    int rank = r % world;
    WorkerIdentity id = WorkerIdentity.fromEnv(Map.of("RANK", "" + rank, "WORLD_SIZE", "" + world, "LOCAL_RANK", "0",
        "MASTER_ADDR", "trainer-0.svc", "MASTER_PORT", "" + port));
    assertThat(id).isEqualTo(new WorkerIdentity(rank, world, 0, "trainer-0.svc", port));
  }

  @Property
  void kubeflowElasticNamesAndCompletionIndexes(@ForAll @IntRange(min = 1, max = 8) int nnodes,
                                                @ForAll @IntRange(min = 1, max = 8) int perNode,
                                                @ForAll @IntRange(min = 0, max = 63) int n, @ForAll @IntRange(min = 0, max = 63) int l) {
    int node = n % nnodes, local = l % perNode;
    WorkerIdentity pet = WorkerIdentity.fromEnv(Map.of("PET_NNODES", nnodes + ":" + (nnodes + 2), "PET_NPROC_PER_NODE", "" + perNode,
        "PET_NODE_RANK", "" + node, "LOCAL_RANK", "" + local, "PET_RDZV_ENDPOINT", "job-master:23456"));
    assertThat(pet).isEqualTo(new WorkerIdentity(node * perNode + local, nnodes * perNode, local, "job-master", 23456));
    WorkerIdentity indexed = WorkerIdentity.fromEnv(Map.of("JOB_COMPLETION_INDEX", "" + node, "WEFT_NPROC_PER_NODE", "" + perNode,
        "WEFT_LOCAL_RANK", "" + local, "NNODES", "" + nnodes, "MASTER_ADDR", "job-0.job"));
    assertThat(indexed.rank()).isEqualTo(node * perNode + local);
    assertThat(indexed.worldSize()).isEqualTo(nnodes * perNode);
    assertThat(indexed.masterPort()).isEqualTo(WorkerIdentity.DEFAULT_PORT);
  }

  @Property
  void weftNamesWin(@ForAll @IntRange(min = 0, max = 3) int rank) {
    WorkerIdentity id = WorkerIdentity.fromEnv(Map.of("WEFT_RANK", "" + rank, "RANK", "9", "WEFT_WORLD_SIZE", "4", "WORLD_SIZE", "10"));
    assertThat(id.rank()).isEqualTo(rank);
    assertThat(id.worldSize()).isEqualTo(4);
  }

  @Test
  void badValuesAreNamed() {
    assertThatThrownBy(() -> WorkerIdentity.fromEnv(Map.of("RANK", "two"))).isInstanceOf(WeftException.class).hasMessageContaining("RANK");
    assertThatThrownBy(() -> WorkerIdentity.fromEnv(Map.of("RANK", "4", "WORLD_SIZE", "4"))).hasMessageContaining("outside");
  }

  @Test
  void emptyEnvironmentIsOneRank() {
    assertThat(WorkerIdentity.fromEnv(Map.of())).isEqualTo(WorkerIdentity.single());
  }
}
