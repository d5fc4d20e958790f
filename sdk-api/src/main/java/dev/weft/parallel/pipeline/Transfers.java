package dev.weft.parallel.pipeline;

import java.util.ArrayList;
import java.util.List;

/**
 * Turns one stage's compute order into a full action list by adding the point-to-point transfers
 * each compute needs: receive right before it, send right after it. Transfers between chunks that
 * live on the same stage (only when there is one stage) are local and get no action.
 */
final class Transfers {
  private Transfers() {}

  static List<Action> around(List<Action> compute, int stage, int stages, int virtualStages) {
    int last = stages * virtualStages - 1;
    List<Action> out = new ArrayList<>(compute.size() * 2);
    for (Action a : compute) {
      int vs = a.chunk() * stages + stage;
      int prev = Math.floorMod(vs - 1, stages), next = (vs + 1) % stages;
      boolean hasPrev = vs > 0 && prev != stage, hasNext = vs < last && next != stage;
      if (a.kind() == Action.Kind.FORWARD) {
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
