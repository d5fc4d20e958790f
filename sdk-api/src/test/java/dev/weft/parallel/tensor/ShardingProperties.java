package dev.weft.parallel.tensor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.models.Init;
import dev.weft.util.Tensors;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

class ShardingProperties {
  @Property
  void vocabRangesTileTheVocabulary(@ForAll @IntRange(min = 1, max = 8) int tp, @ForAll @IntRange(min = 1, max = 64) int perRank) {
    long vocab = (long) tp * perRank;
    long next = 0;
    for (int r = 0; r < tp; r++) {
      VocabRange v = VocabRange.of(vocab, r, tp);
      assertThat(v.start()).isEqualTo(next);
      assertThat(v.size()).isEqualTo(perRank);
      next = v.end();
    }
    assertThat(next).isEqualTo(vocab);
  }

  @Property(tries = 50)
  void slicesOfTheFullInitialWeightReassembleIt(@ForAll @IntRange(min = 1, max = 4) int tp, @ForAll @IntRange(min = 0, max = 1) int dim,
                                                @ForAll @IntRange(min = 1, max = 6) int a, @ForAll @IntRange(min = 1, max = 6) int b) {
    long rows = (long) a * (dim == 0 ? tp : 1), cols = (long) b * (dim == 1 ? tp : 1);
    var full = Init.normalFull(3, "w", 1.0, rows, cols);
    TensorVector parts = new TensorVector();
    for (int r = 0; r < tp; r++) parts.push_back(Init.slice(full, dim, r, tp));
    assertThat(torch.cat(parts, dim).equal(full)).isTrue();
    assertThat(Tensors.toFloats(Init.normalFull(3, "w", 1.0, rows, cols))).isEqualTo(Tensors.toFloats(full));
  }

  @Property(tries = 30)
  void eachOwnedTokenBelongsToExactlyOneRank(@ForAll @IntRange(min = 1, max = 8) int tp, @ForAll @IntRange(min = 0, max = 255) int token) {
    long vocab = 256L * tp;
    int owners = 0;
    for (int r = 0; r < tp; r++) {
      if (VocabRange.of(vocab, r, tp).owns(Tensors.ofLongs(token)).item_bool()) owners++;
    }
    assertThat(owners).isEqualTo(1);
  }
}
