package dev.weft.cuda;

import dev.weft.error.WeftException;
import dev.weft.comm.Backend;
import dev.weft.comm.Communicator;
import dev.weft.comm.RankDevice;
import dev.weft.comm.Rendezvous;
import dev.weft.cuda.kernels.FusedShardStep;
import dev.weft.cuda.nccl.Nccl;
import dev.weft.cuda.nccl.NcclComm;
import dev.weft.cuda.nccl.NcclCommunicator;
import dev.weft.optim.ShardStep;
import dev.weft.metrics.DeviceMemory;
import java.time.Duration;
import java.util.Optional;

/**
 * {@code device: cuda}: libtorch CUDA tensors, one device per local rank, NCCL collectives. Rank 0 of each group
 * creates the NCCL unique id and publishes it in the rendezvous store; the others read it from there.
 */
public final class CudaBackend implements Backend {
  /** The device {@link #useDevice} chose (WorkerRun does, from the rank's identity); else LOCAL_RANK's. */
  private volatile RankDevice chosen;

  @Override public String name() { return "cuda"; }

  /** Usable where a device, the driver, NCCL and libtorch's CUDA build are all present; else names each missing one. */
  @Override
  public Availability probe() {
    CudaStatus s = CudaStatus.current();
    return s.available() ? Availability.yes(CudaDoctor.summary()) : Availability.no(CudaDoctor.summary());
  }

  @Override
  public void useDevice(RankDevice device) {
    if (!device.cuda()) return;
    chosen = device;
    CudaRuntime.setDevice(device.index());
    TorchCuda.setDevice(device.index());
  }

  @Override
  public int deviceCount() { return CudaStatus.current().devices().size(); }

  @Override
  public Optional<DeviceMemory> deviceMemory(RankDevice device) { return CudaMemory.of(device); }

  /** Weft's fused AdamW kernel on each flat shard (its own stream per optimizer). */
  @Override
  public ShardStep shardStep() { return new FusedShardStep(); }

  @Override
  public Communicator createGroup(Rendezvous store, String groupName, int groupRank, int groupSize, Duration timeout) {
    CudaStatus s = CudaStatus.current();
    if (!s.available()) throw new WeftException("device: cuda is not usable here: " + s.missing());
    // in-process rank threads share one environment: the identity's local rank (via useDevice) decides, not LOCAL_RANK
    RankDevice picked = chosen;
    int device = picked != null ? picked.index() : LocalDevice.index(s.devices().size());
    CudaRuntime.setDevice(device);
    String key = "weft/nccl/" + groupName + "/unique-id";
    byte[] id;
    if (groupRank == 0) {
      id = Nccl.uniqueId();
      store.set(key, id);
    } else {
      id = store.get(key);
    }
    return new NcclCommunicator(groupName, groupRank, groupSize, timeout, NcclComm.init(groupName, id, groupRank, groupSize, timeout),
        new RankDevice("cuda", device));
  }
}
