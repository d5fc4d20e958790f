package dev.weft.train.grpo;

import dev.weft.util.Tensors;
import org.bytedeco.pytorch.Generator;
import org.bytedeco.pytorch.GeneratorOptional;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * Picks the next token of many rows at once from their last logits [N, vocab]: temperature, then top-k, then top-p
 * (nucleus) per row, then one multinomial draw per row. Rows come in groups that share a generator (a prompt's G
 * completions), so what a prompt draws does not depend on which other prompts share its batch or its rank.
 */
public record GroupSampler(double temperature, int topK, double topP) {
  /** The next ids [N] of rows whose generators are {@code rngs[row / group]}. */
  public long[] next(Tensor logits, Generator[] rngs, int group) {
    Tensor z = Tensors.onHost(logits).to(torch.ScalarType.Float).div(new Scalar(temperature)); // generators are CPU ones
    long vocab = z.size(1);
    if (topK > 0 && topK < vocab) {
      Tensor kth = z.topk(topK, 1, true, true).get0().narrow(1, topK - 1, 1);
      z = z.masked_fill(z.lt(kth), new Scalar(Double.NEGATIVE_INFINITY));
    }
    if (topP < 1) {
      var sorted = z.sort(1, true);
      Tensor probs = torch.softmax(sorted.get0(), 1);
      Tensor before = torch.cumsum(probs, 1).sub(probs); // mass ranked above each token: the top token always stays
      Tensor drop = torch.zeros_like(before.ge(new Scalar(topP))).scatter(1, sorted.get1(), before.ge(new Scalar(topP)));
      z = z.masked_fill(drop, new Scalar(Double.NEGATIVE_INFINITY));
    }
    Tensor p = torch.softmax(z, 1);
    long[] out = new long[(int) z.size(0)];
    for (int g = 0; g * group < out.length; g++) {
      Tensor ids = torch.multinomial(p.narrow(0, (long) g * group, group), 1, false, new GeneratorOptional(rngs[g]));
      long[] v = Tensors.toLongs(ids.contiguous().view(-1));
      System.arraycopy(v, 0, out, g * group, group);
    }
    return out;
  }
}
