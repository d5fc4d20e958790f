package dev.weft.comm;

import java.time.Duration;

/**
 * A compute + communication backend, found through {@link java.util.ServiceLoader}. The CPU
 * backend (libtorch CPU + Gloo) lives in this module; the CUDA backend (NCCL) in sdk-native.
 */
public interface Backend {
  /** {@code cpu}, {@code cuda}, ... the value of the spec's device choice. */
  String name();

  /** Whether this backend can run here, and if not, exactly why. Cheap and safe to call anywhere. */
  Availability probe();

  /**
   * Creates the communicator for one group. All members call this with the same {@code groupName};
   * {@code store} is this process's connection to the rendezvous store.
   */
  Communicator createGroup(Rendezvous store, String groupName, int groupRank, int groupSize, Duration timeout);

  /** The Adam update of the sharded optimizer on this backend's device: libtorch passes unless it has a fused kernel. */
  default dev.weft.optim.ShardStep shardStep() { return dev.weft.optim.ShardStep.LIBTORCH; }

  /**
   * Makes {@code device} this thread's current device before any group or kernel is made (CUDA: Weft's runtime and
   * libtorch's), so a single rank, which makes no group, still runs its kernels where its tensors are.
   */
  default void useDevice(RankDevice device) {}

  /** How many devices of this backend's kind this process sees (0 for the CPU). */
  default int deviceCount() { return 0; }

  /** The caching allocator's figures for {@code device}, where this backend has one (empty on the CPU). */
  default java.util.Optional<dev.weft.metrics.DeviceMemory> deviceMemory(RankDevice device) { return java.util.Optional.empty(); }

  /** What a probe found: usable or not, and a sentence a person can act on. */
  record Availability(boolean available, String detail) {
    public static Availability yes(String detail) { return new Availability(true, detail); }
    public static Availability no(String reason) { return new Availability(false, reason); }
  }
}
