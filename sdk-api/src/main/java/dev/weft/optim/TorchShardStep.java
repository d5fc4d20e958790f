package dev.weft.optim;

import dev.weft.optim.AdamArgs;
import dev.weft.optim.ShardStep;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;

/** Adam/AdamW as libtorch tensor passes; the same formula as libtorch's own AdamW. */
final class TorchShardStep implements ShardStep {
  @Override
  public void adam(AdamArgs a, Tensor p, Tensor g, Tensor m, Tensor v) {
    if (a.weightDecay() > 0) {
      if (a.decoupled()) p.mul_(new Scalar(1 - a.lr() * a.weightDecay()));
      else g.add_(p, new Scalar(a.weightDecay()));
    }
    double bc1 = 1 - Math.pow(a.beta1(), a.step()), bc2 = 1 - Math.pow(a.beta2(), a.step());
    m.mul_(new Scalar(a.beta1())).add_(g, new Scalar(1 - a.beta1()));
    v.mul_(new Scalar(a.beta2())).addcmul_(g, g, new Scalar(1 - a.beta2()));
    // the denominator is a bucket-sized temporary: freed here, not held by the step's PointerScope until the step ends
    // (which kept the rank's whole owned state again: one denominator per bucket)
    try (Tensor denom = v.sqrt()) {
      denom.div_(new Scalar(Math.sqrt(bc2))).add_(new Scalar(a.eps()));
      p.addcdiv_(m, denom, new Scalar(-a.lr() / bc1));
    }
  }
}
