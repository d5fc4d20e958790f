package dev.weft.data;

import dev.weft.util.Tensors;
import org.bytedeco.pytorch.Tensor;

/**
 * Where the documents of packed samples lie: per token [B, T], its position inside its own document
 * (restarting at 0 where a document starts) and its document's id (distinct within a sample; padding is a
 * document of its own). A model given them applies rotary or learned positions at {@code positions} and confines
 * attention to tokens of the same id. They cover the whole sequence on every rank and every pipeline stage: layouts
 * that split the sequence slice them where they split the activations.
 */
public record PackedDocuments(Tensor positions, Tensor ids) {
  /** Ids [B, T] per token → positions restarting at each change of id, and both as tensors. */
  public static PackedDocuments of(int[] ids, int batch, int seqLen) {
    long[] pos = new long[ids.length], id = new long[ids.length];
    for (int b = 0; b < batch; b++) {
      for (int t = 0; t < seqLen; t++) {
        int k = b * seqLen + t;
        id[k] = ids[k];
        pos[k] = t > 0 && ids[k] == ids[k - 1] ? pos[k - 1] + 1 : 0;
      }
    }
    return new PackedDocuments(Tensors.ofLongs(pos).view(batch, seqLen), Tensors.ofLongs(id).view(batch, seqLen));
  }

  /** Why {@code model} refuses packed samples: it cannot confine attention to documents. */
  public static String refusal(Object model) {
    return "data.packing: the model " + model.getClass().getSimpleName() + " cannot keep packed documents apart; "
        + "set data.packing: false or train a decoder model (gpt, llama, qwen2, qwen3, mistral)";
  }

  /** Samples {@code [first, first + count)} of the batch. */
  public PackedDocuments rows(long first, long count) {
    return new PackedDocuments(positions.narrow(0, first, count), ids.narrow(0, first, count));
  }
}
