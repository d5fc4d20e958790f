package dev.weft.parallel.data;

import dev.weft.checkpoint.StateEntry;
import dev.weft.checkpoint.TensorSlice;
import dev.weft.models.Parameters.Param;
import dev.weft.parallel.data.FlatLayout.Slot;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.Tensor;

/**
 * {@link ShardedOptimizer}'s buffers named as checkpoint entries: parameters and Adam moments as slices
 * of the global tensors (the tensor-parallel box, and under ZeRO the flat range this rank owns).
 */
final class ShardStateEntries {
  private ShardStateEntries() {}

  /**
   * Each slice is written by exactly one rank: data-parallel replicas by dp rank 0 (an expert's by its edp group's), tensors every tp rank
   * holds whole by tp rank 0, HSDP's replicated shards by the first replica. The entries are views: loading into them
   * restores in place (every replica reads its shard).
   */
  static List<StateEntry> of(List<BucketState> states, List<Param> params, int stage, boolean tpWriter) {
    List<StateEntry> out = new ArrayList<>();
    for (BucketState s : states) {
      boolean dpWriter = s.group().rank() == 0, replicaWriter = s.replicate.rank() == 0; // an expert's: its edp group's first
      for (Slot slot : s.b.slots()) {
        Param p = params.get(slot.param());
        boolean tpWrites = (p.isSharded() || tpWriter) && replicaWriter;
        var box = TensorSlice.of(p);
        if (stage == 3) {
          owned(s, slot, box, "model/" + p.name(), s.master, tpWrites, out);
        } else {
          Tensor whole = s.flat.narrow(0, slot.offset(), slot.numel());
          out.add(new StateEntry("model/" + p.name(), whole, box, dpWriter && tpWrites));
        }
        if (stage == 0) {
          out.add(new StateEntry("optim/exp_avg/" + p.name(), s.m.narrow(0, slot.offset(), slot.numel()), box, dpWriter && tpWrites));
          out.add(new StateEntry("optim/exp_avg_sq/" + p.name(), s.v.narrow(0, slot.offset(), slot.numel()), box, dpWriter && tpWrites));
        } else {
          owned(s, slot, box, "optim/exp_avg/" + p.name(), s.m, tpWrites, out);
          owned(s, slot, box, "optim/exp_avg_sq/" + p.name(), s.v, tpWrites, out);
        }
      }
    }
    return out;
  }

  /** The part of {@code slot} inside this rank's shard, taken from a shard-sized buffer. */
  private static void owned(BucketState s, Slot slot, TensorSlice box, String name, Tensor shardBuffer, boolean write,
                            List<StateEntry> out) {
    Tensor part = s.ownedPart(slot, shardBuffer);
    if (part == null) return;
    out.add(new StateEntry(name, part, box.flatRange(s.ownedLo(slot) - slot.offset(), part.numel()), write));
  }
}
