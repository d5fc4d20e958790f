package dev.weft.models;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.util.Tensors;
import org.bytedeco.pytorch.LongOptional;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.api.Test;

/** The attention mask's rule (causal, window, documents) entry by entry, and the plain attention that applies it. */
class AttentionMaskTest {
  private static boolean rule(long i, long j, int window, long[] docs) {
    return j <= i && (window == 0 || i - j < window) && (docs == null || docs[(int) i] == docs[(int) j]);
  }

  private static void assertRule(Tensor visible, long t, long s, int window, long[] docs) {
    Tensor v = visible.reshape(t, s);
    for (long qi = 0; qi < t; qi++) {
      for (long j = 0; j < s; j++) {
        long i = s - t + qi; // the queries are the last t of the s positions
        assertThat(v.get(qi).get(j).item_bool()).as("query %d key %d", i, j).isEqualTo(rule(i, j, window, docs));
      }
    }
  }

  @Test
  void visibleFollowsTheRule() {
    Tensor like = torch.zeros(1);
    assertRule(AttentionMask.causal(3).visible(6, 6, like), 6, 6, 3, null);
    assertRule(AttentionMask.causal(3).visible(1, 6, like), 1, 6, 3, null); // one new token after a cache of 5
    assertRule(AttentionMask.CAUSAL.visible(2, 5, like), 2, 5, 0, null);
    long[] docs = {0, 0, 1, 1, 1, 2};
    assertRule(AttentionMask.causal(2).withDocuments(Tensors.ofLongs(docs).view(1, 6)).visible(6, 6, like), 6, 6, 2, docs);
    assertThat(AttentionMask.causal(8).isPlainCausal(6, 6)).isTrue();
    assertThat(AttentionMask.causal(3).isPlainCausal(6, 6)).isFalse();
    assertThat(AttentionMask.CAUSAL.isUnmasked(1, 9)).isTrue();
    assertThat(AttentionMask.causal(null)).isEqualTo(AttentionMask.CAUSAL);
  }

  @Test
  void plainAttentionAppliesTheMaskAndSharesKeyValueHeads() {
    Tensor q = Init.normalFull(1, "q", 1, 2, 4, 6, 8), k = Init.normalFull(1, "k", 1, 2, 2, 6, 8), v = Init.normalFull(1, "v", 1, 2, 2, 6, 8);
    Tensor causal = Attention.plain(q, k, v, AttentionMask.CAUSAL);
    // one document over everything: the explicit-mask path gives the causal result
    Tensor oneDoc = Attention.plain(q, k, v, AttentionMask.CAUSAL.withDocuments(torch.zeros(2, 6).to(torch.ScalarType.Long)));
    assertThat(causal.sub(oneDoc).abs().max().item_double()).isLessThan(1e-6);
    // grouped-query attention: key/value head j serves query heads 2j and 2j + 1
    Tensor kr = torch.repeat_interleave(k, 2, new LongOptional(1), new LongOptional());
    Tensor vr = torch.repeat_interleave(v, 2, new LongOptional(1), new LongOptional());
    assertThat(causal.sub(Attention.plain(q, kr, vr, AttentionMask.CAUSAL)).abs().max().item_double()).isLessThan(1e-6);
    // a window of 1: each token sees only itself, so the output is its own value
    Tensor self = Attention.plain(q, kr, vr, AttentionMask.causal(1));
    assertThat(self.sub(vr).abs().max().item_double()).isLessThan(1e-6);
    // documents cut attention: the first token of a document sees only itself
    Tensor docs = Tensors.ofLongs(0, 0, 0, 1, 1, 1).view(1, 6).expand(new long[] {2, 6}).contiguous();
    Tensor cut = Attention.plain(q, kr, vr, AttentionMask.CAUSAL.withDocuments(docs));
    assertThat(cut.select(2, 3).sub(vr.select(2, 3)).abs().max().item_double()).isLessThan(1e-6);
  }
}
