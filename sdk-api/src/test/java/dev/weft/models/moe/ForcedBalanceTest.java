package dev.weft.models.moe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.util.Tensors;
import org.junit.jupiter.api.Test;

/** The benchmark routing (router_force_balance): round-robin over the experts, every expert the same rows. */
class ForcedBalanceTest {
  @Test
  void tokensGoRoundRobinOverTheExperts() {
    long[] index = Tensors.toLongs(MoeBlock.balanced(6, 2, 4).reshape(-1));
    assertThat(index).containsExactly(0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3);
    long[] counts = new long[8];
    for (long e : Tensors.toLongs(MoeBlock.balanced(1024, 2, 8).reshape(-1))) counts[(int) e]++;
    assertThat(counts).containsOnly(256);
  }
}
