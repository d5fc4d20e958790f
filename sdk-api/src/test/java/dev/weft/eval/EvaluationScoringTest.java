package dev.weft.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.Trainer;
import dev.weft.data.Batches;
import dev.weft.data.TokenArray;
import dev.weft.models.LanguageModel;
import dev.weft.spec.SpecException;
import dev.weft.train.ModelBuilder;
import dev.weft.util.Tensors;
import java.util.Random;
import org.assertj.core.data.Offset;
import org.bytedeco.pytorch.NoGradGuard;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 42: eval's two ways of scoring, stated and counted. Whole documents: each scored alone from its start up to the
 * context, equal to the documents' own losses one by one (batching and right padding change nothing), the targets past
 * the context counted as cut. Windows with a stride: every target scored once, those past the last window cut.
 */
class EvaluationScoringTest {
  private static final int SEQ = 8;
  /** Four documents of 5, 12 (3 targets past a context of 9 tokens), 2 and 9 tokens. */
  private static final long[] ENDS = {5, 17, 19, 28};
  private static LanguageModel model;
  private static int[] ids, flags;

  @BeforeAll
  static void tinyModel() {
    model = ModelBuilder.whole(Trainer.model("gpt").set("model.config.layers", 1).set("model.config.hidden", 32)
        .set("model.config.heads", 2).seqLen(SEQ).seed(3).toSpec());
    Random r = new Random(4);
    ids = r.ints(28, 0, 256).toArray();
    flags = r.ints(28, 0, 3).map(f -> f == 0 ? 0 : 1).toArray();
  }

  private static TokenArray array(int[] a) {
    return new TokenArray() {
      @Override public long size() { return a.length; }
      @Override public int get(long i) { return a[(int) i]; }
    };
  }

  /** Document [start, end) alone, its first {@code SEQ + 1} tokens: its summed loss and its count of targets. */
  private static double[] alone(int start, int end, boolean flagged) {
    int len = Math.min(end - start, SEQ + 1);
    long[] in = new long[len - 1], out = new long[len - 1];
    int n = 0;
    for (int t = 0; t + 1 < len; t++) {
      in[t] = ids[start + t];
      boolean target = !flagged || flags[start + t + 1] != 0;
      out[t] = target ? ids[start + t + 1] : Batches.IGNORE;
      n += target ? 1 : 0;
    }
    try (NoGradGuard ng = new NoGradGuard()) {
      double sum = n == 0 ? 0 : model.lossSum(Tensors.ofLongs(in).view(1, len - 1), Tensors.ofLongs(out).view(1, len - 1), null).item_double();
      return new double[] {sum, n};
    }
  }

  @Test
  void wholeDocumentsAreEachDocumentAloneUpToTheContext() {
    for (boolean flagged : new boolean[] {false, true}) {
      double sum = 0, count = 0;
      long cut = 0;
      int start = 0;
      for (long end : ENDS) {
        double[] a = alone(start, (int) end, flagged);
        sum += a[0];
        count += a[1];
        for (int j = start + SEQ + 1; j < end; j++) cut += !flagged || flags[j] != 0 ? 1 : 0;
        start = (int) end;
      }
      Evaluation.Result r = Evaluation.documents(model, array(ids), flagged ? array(flags) : null, ENDS, SEQ);
      assertThat(r.tokens()).isEqualTo((long) count);
      assertThat(r.loss()).isCloseTo(sum / count, Offset.offset(1e-5));
      assertThat(r.cut()).isEqualTo(cut);
      if (!flagged) assertThat(r.cut()).as("the 12-token document past 9 tokens").isEqualTo(3);
    }
  }

  @Test
  void windowsScoreEveryTargetOnceAndCountTheTail() {
    for (int stride : new int[] {SEQ, 3, 1}) {
      Evaluation.Result r = Evaluation.windows(model, array(ids), null, SEQ, stride);
      long windows = (ids.length - 1 - SEQ) / stride + 1;
      assertThat(r.tokens()).as("stride %d", stride).isEqualTo(SEQ + (windows - 1) * stride);
      assertThat(r.tokens() + r.cut()).as("stride %d", stride).isEqualTo(ids.length - 1);
    }
    Evaluation.Result consecutive = Evaluation.run(model, array(ids), SEQ);
    assertThat(consecutive.tokens()).isEqualTo(3 * SEQ);
    assertThat(consecutive.cut()).isEqualTo(3);
    assertThatThrownBy(() -> Evaluation.windows(model, array(ids), null, SEQ, SEQ + 1)).isInstanceOf(SpecException.class)
        .hasMessageStartingWith("--stride: ");
  }
}
