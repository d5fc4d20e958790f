package dev.weft.launch;

import dev.weft.plan.SpecCheck;
import dev.weft.comm.WorkerIdentity;
import dev.weft.comm.DeviceMesh;
import dev.weft.comm.Backend;
import dev.weft.comm.Distributed;
import dev.weft.comm.RankDevice;
import dev.weft.device.DeviceDecision;
import dev.weft.device.Devices;
import dev.weft.spec.TrainingSpec;
import dev.weft.train.RunResult;
import dev.weft.train.StepListener;
import dev.weft.train.TrainingLoop;
import dev.weft.util.NativeThreads;
import java.nio.file.Path;
import java.time.Duration;

/** Runs one rank of a spec: join the mesh, train, leave. Used by worker processes and in-process rank threads. */
public final class WorkerRun {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(WorkerRun.class);

  private WorkerRun() {}

  /** Layouts that run, but slowly: said once, by rank 0. */
  static void warnAboutSlowLayouts(TrainingSpec spec, WorkerIdentity id) {
    var p = spec.parallel();
    int perNode = id.nprocPerNode();
    if (p.tp() > perNode) {
      log.warn("parallel.tp={} is larger than the {} ranks per node: tensor-parallel all-reduces (several per layer) will"
          + " cross the network; keep tp within a node where you can", p.tp(), perNode);
    }
    if (p.pp() > 1 && p.microBatches() < p.pp()) {
      log.warn("parallel.microBatches={} is below parallel.pp={}: the pipeline runs, but stages idle for (p-1)/(m+p-1) = {}%"
          + " of each step; use at least {} micro-batches", p.microBatches(), p.pp(),
          Math.round(100.0 * (p.pp() - 1) / (p.microBatches() + p.pp() - 1)), p.pp());
    }
  }

  /** One rank inside a JVM that goes on (fit(), rank threads): its groups and store are released when it ends. */
  public static RunResult run(TrainingSpec spec, WorkerIdentity id, Path runDir, int threads, Duration timeout,
                              StepListener listener) {
    return run(spec, id, runDir, threads, timeout, listener, false);
  }

  /**
   * One rank; {@code processExits}: this is a worker process that exits after the run, which frees its groups and
   * store ({@link Distributed#leaveToProcessExit}).
   */
  public static RunResult run(TrainingSpec spec, WorkerIdentity id, Path runDir, int threads, Duration timeout,
                              StepListener listener, boolean processExits) {
    NativeThreads.configure(threads);
    spec = SpecCheck.validate(spec, id.worldSize()); // train.epochs becomes its steps here
    var p = spec.parallel();
    if (id.rank() == 0) warnAboutSlowLayouts(spec, id);
    DeviceDecision device = Devices.decide(spec.device());
    if (id.rank() == 0 && !"cpu".equals(spec.device())) log.info("{}", device.note());
    Backend backend = Devices.backend(device);
    RankDevice placement = RankDevice.of(device.backend(), id.localRank(), backend.deviceCount());
    if (placement.cuda()) log.info("rank {} (local rank {}) trains on {}", id.rank(), id.localRank(), placement);
    backend.useDevice(placement);
    try (Distributed dist = Distributed.start(id, new DeviceMesh(p.dp(), p.pp(), p.cp(), p.tp()), backend, placement, timeout)) {
      if (processExits) dist.leaveToProcessExit();
      return TrainingLoop.run(spec, dist, runDir, listener, !processExits); // an exiting worker keeps no copy of the weights
    }
  }
}
