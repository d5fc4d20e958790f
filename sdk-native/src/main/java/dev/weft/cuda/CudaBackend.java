package dev.weft.cuda;

import dev.weft.error.WeftException;
import dev.weft.comm.Backend;
import dev.weft.comm.Communicator;
import dev.weft.comm.Rendezvous;
import dev.weft.cuda.kernels.FusedShardStep;
import dev.weft.cuda.nccl.Nccl;
import dev.weft.cuda.nccl.NcclComm;
import dev.weft.cuda.nccl.NcclCommunicator;
import dev.weft.optim.ShardStep;
import java.time.Duration;

/**
 * {@code device: cuda}: libtorch CUDA tensors, one device per local rank, NCCL collectives. Rank 0 of each group
 * creates the NCCL unique id and publishes it in the rendezvous store; the others read it from there.
 */
public final class CudaBackend implements Backend {
  @Override public String name() { return "cuda"; }

  /**
   * The piece still missing where everything else is present: the training loop keeps the model, batches and
   * optimizer state in host memory (docs/native.md, "Training on GPUs"), so {@code device: cuda} cannot train yet.
   */
  static final String NO_PLACEMENT = "Weft's training loop does not place the model on CUDA yet (see docs/native.md)";

  @Override
  public Availability probe() {
    CudaStatus s = CudaStatus.current();
    if (s.available()) return Availability.no(NO_PLACEMENT + "\n" + CudaDoctor.summary());
    return Availability.no(CudaDoctor.summary());
  }

  /** Weft's fused AdamW kernel on each flat shard (its own stream per optimizer). */
  @Override
  public ShardStep shardStep() { return new FusedShardStep(); }

  @Override
  public Communicator createGroup(Rendezvous store, String groupName, int groupRank, int groupSize, Duration timeout) {
    CudaStatus s = CudaStatus.current();
    if (!s.available()) throw new WeftException("device: cuda is not usable here: " + s.missing());
    CudaRuntime.setDevice(LocalDevice.index(s.devices().size()));
    String key = "weft/nccl/" + groupName + "/unique-id";
    byte[] id;
    if (groupRank == 0) {
      id = Nccl.uniqueId();
      store.set(key, id);
    } else {
      id = store.get(key);
    }
    return new NcclCommunicator(groupName, groupRank, groupSize, timeout, NcclComm.init(groupName, id, groupRank, groupSize, timeout));
  }
}
