package dev.weft.train;

import dev.weft.spec.OptimizerKind;
import dev.weft.spec.TrainSpec;
import org.bytedeco.pytorch.Adam;
import org.bytedeco.pytorch.AdamOptions;
import org.bytedeco.pytorch.AdamW;
import org.bytedeco.pytorch.AdamWOptions;
import org.bytedeco.pytorch.Optimizer;
import org.bytedeco.pytorch.SGD;
import org.bytedeco.pytorch.SGDOptions;
import org.bytedeco.pytorch.TensorVector;

/** The optimizer named by {@code train.optimizer}, over this rank's parameters. */
public final class Optimizers {
  private Optimizers() {}

  public static Optimizer create(TrainSpec t, TensorVector params) {
    return switch (OptimizerKind.of(t.optimizer())) {
      case ADAMW -> {
        AdamWOptions o = new AdamWOptions(t.lr());
        o.betas().put(0, t.beta1()).put(1, t.beta2());
        o.weight_decay().put(t.weightDecay());
        yield new AdamW(params, o);
      }
      case ADAM -> {
        AdamOptions o = new AdamOptions(t.lr());
        o.betas().put(0, t.beta1()).put(1, t.beta2());
        o.weight_decay().put(t.weightDecay());
        yield new Adam(params, o);
      }
      case SGD -> {
        SGDOptions o = new SGDOptions(t.lr());
        o.momentum().put(t.beta1());
        o.weight_decay().put(t.weightDecay());
        yield new SGD(params, o);
      }
    };
  }

  public static void setLr(Optimizer opt, double lr) {
    for (int i = 0; i < opt.param_groups().size(); i++) opt.param_groups().get(i).options().set_lr(lr);
  }
}
