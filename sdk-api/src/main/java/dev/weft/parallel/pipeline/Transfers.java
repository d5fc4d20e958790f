package dev.weft.parallel.pipeline;

import java.util.ArrayList;
import java.util.List;

/**
 * Turns one stage's compute order into a full action list by adding the point-to-point transfers
 * each compute needs: receive right before it, send right after it. Transfers between chunks that
 * live on the same stage (one stage, or the turn of a V) are local and get no action; weight
 * gradients need no transfer.
 */
final class Transfers {
  private Transfers() {}

  static List<Action> around(List<Action> compute, int stage, int stages, int virtualStages, ChunkLayout layout) {
    int last = stages * virtualStages - 1;
    List<Action> out = new ArrayList<>(compute.size() * 2);
    for (Action a : compute) {
      int vs = layout.virtualStage(stage, a.chunk(), stages);
      int prev = vs > 0 ? layout.ownerOf(vs - 1, stages) : -1, next = vs < last ? layout.ownerOf(vs + 1, stages) : -1;
      boolean hasPrev = vs > 0 && prev != stage, hasNext = vs < last && next != stage;
      if (a.kind() == Action.Kind.BACKWARD_WEIGHT) {
        out.add(a); // the weight gradient stays on the stage
      } else if (a.kind() == Action.Kind.FORWARD) {
        if (hasPrev) out.add(new Action(Action.Kind.RECV_ACT, a.microBatch(), a.chunk(), prev));
        out.add(a);
        if (hasNext) out.add(new Action(Action.Kind.SEND_ACT, a.microBatch(), a.chunk(), next));
      } else {
        if (hasNext) out.add(new Action(Action.Kind.RECV_GRAD, a.microBatch(), a.chunk(), next));
        out.add(a);
        if (hasPrev) out.add(new Action(Action.Kind.SEND_GRAD, a.microBatch(), a.chunk(), prev));
      }
    }
    return out;
  }
}
