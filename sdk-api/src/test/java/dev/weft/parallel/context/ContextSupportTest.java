package dev.weft.parallel.context;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.spec.SpecException;
import dev.weft.util.Tensors;
import org.junit.jupiter.api.Test;

/** What cp refuses, in one line naming the field; and the zigzag cut of a sequence. */
class ContextSupportTest {
  @Test
  void unsupportedCombinationsAreRefusedByField() {
    assertThatThrownBy(() -> ContextParallelEquivalenceTest.small().contextParallel(3).seqLen(516).set("parallel.cpMethod", "alltoall").toSpec())
        .isInstanceOf(SpecException.class).hasMessageContaining("parallel.cpMethod").hasMessageContaining("4 attention heads");
    assertThatThrownBy(() -> ContextParallelEquivalenceTest.small().contextParallel(3).seqLen(500).toSpec())
        .isInstanceOf(SpecException.class).hasMessageContaining("data.seqLen").hasMessageContaining("multiple of 6");
    assertThatCode(() -> ContextParallelEquivalenceTest.small().contextParallel(2).recompute().toSpec()).doesNotThrowAnyException();
  }

  @Test
  void eachRankHoldsAChunkAndItsMirror() {
    Zigzag z = new Zigzag(2, 1);
    long[] seq = new long[8];
    for (int i = 0; i < 8; i++) seq[i] = i;
    assertThat(Tensors.toLongs(z.slice(Tensors.ofLongs(seq).view(1, 8)).reshape(-1))).containsExactly(2, 3, 4, 5);
    assertThat(Tensors.toLongs(new Zigzag(2, 0).positions(8, Tensors.ofLongs(0)))).containsExactly(0, 1, 6, 7);
  }
}
