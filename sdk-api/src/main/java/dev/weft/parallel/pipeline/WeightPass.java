package dev.weft.parallel.pipeline;

import dev.weft.models.DeferredWeightGrads;
import dev.weft.models.DeferredWeightGrads.Grad;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.BoolOptional;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

/**
 * One micro-batch's split backward on one chunk, each part computed once. B ({@link #inputPass}):
 * autograd over the graph to the stage input and the trainable parameters, accumulating nothing; the
 * deferred linears' weights are detached, so their dW is not computed, only their output gradients
 * caught. W ({@link #fill}): dW = dYᵀ·X per linear, then every parameter's gradient of this micro-batch
 * goes in through one autograd call on the parameters themselves, so accumulation and the data-parallel
 * ready hooks (post-hooks of the AccumulateGrad nodes) happen in W, as with a whole backward.
 */
final class WeightPass {
  private final DeferredWeightGrads deferred;
  private final List<Grad> others; // B's gradients of parameters outside a deferred linear (norms, experts)
  private final long bytes;

  private WeightPass(DeferredWeightGrads deferred, List<Grad> others) {
    this.deferred = deferred;
    this.others = others;
    long b = deferred.bytes();
    for (Grad g : others) b += g.grad().nbytes();
    this.bytes = b;
  }

  /** What B gives: the stage input's gradient (valid during the action) and what W needs. */
  record Split(Tensor inputGrad, WeightPass weights) {}

  /**
   * B: the gradient of {@code input} and of every parameter autograd reaches; the graph is freed.
   * {@code seed} is null when {@code root} is the loss.
   */
  static Split inputPass(Tensor root, Tensor seed, Tensor input, List<Tensor> params, DeferredWeightGrads deferred, HeldTensors held) {
    List<Tensor> trainable = params.stream().filter(Tensor::requires_grad).toList();
    try (TensorVector roots = new TensorVector(root); TensorVector inputs = new TensorVector();
         TensorVector seeds = seed == null ? new TensorVector() : new TensorVector(seed)) {
      inputs.push_back(input);
      for (Tensor p : trainable) inputs.push_back(p);
      TensorVector g = torch.grad(roots, inputs, seeds, new BoolOptional(false), false, true);
      List<Grad> others = new ArrayList<>();
      for (int i = 0; i < trainable.size(); i++) {
        Tensor gi = g.get(i + 1);
        if (gi.defined()) others.add(new Grad(trainable.get(i), held.keep(gi.detach())));
      }
      return new Split(g.get(0), new WeightPass(deferred, others));
    }
  }

  /** B of a module that does not list its parameters: only the input's gradient, the graph retained for W. */
  static Tensor inputOnly(Tensor root, Tensor seed, Tensor input) {
    try (TensorVector roots = new TensorVector(root); TensorVector inputs = new TensorVector(input);
         TensorVector seeds = seed == null ? new TensorVector() : new TensorVector(seed)) {
      return torch.grad(roots, inputs, seeds, new BoolOptional(true), false, false).get(0);
    }
  }

  /** Bytes held from B to W: the deferred linears' inputs and output gradients, and B's parameter gradients. */
  long bytes() { return bytes; }

  /** W: the parameters receive this micro-batch's gradients; then what B kept is freed. */
  void fill(HeldTensors held) {
    List<Grad> all = deferred.gradients(others);
    if (!all.isEmpty()) {
      try (TensorVector params = new TensorVector(); TensorVector grads = new TensorVector(); TensorVector none = new TensorVector()) {
        for (Grad g : all) {
          params.push_back(g.param());
          grads.push_back(g.grad());
        }
        torch.backward(params, grads, new BoolOptional(false), false, none);
      }
    }
    for (Grad g : others) held.drop(g.grad());
    deferred.close();
  }
}
