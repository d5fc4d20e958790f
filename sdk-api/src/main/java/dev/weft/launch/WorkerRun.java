package dev.weft.launch;

import dev.weft.comm.Backends;
import dev.weft.comm.DeviceMesh;
import dev.weft.comm.Distributed;
import dev.weft.spec.SpecValidator;
import dev.weft.spec.TrainingSpec;
import dev.weft.train.RunResult;
import dev.weft.train.StepListener;
import dev.weft.train.TrainingLoop;
import dev.weft.util.NativeThreads;
import java.nio.file.Path;
import java.time.Duration;

/** Runs one rank of a spec: join the mesh, train, leave. Used by worker processes and in-process rank threads. */
public final class WorkerRun {
  private WorkerRun() {}

  public static RunResult run(TrainingSpec spec, WorkerIdentity id, Path runDir, int threads, Duration timeout,
                              StepListener listener) {
    NativeThreads.configure(threads);
    SpecValidator.validate(spec, id.worldSize());
    var p = spec.parallel();
    try (Distributed dist = Distributed.start(id, new DeviceMesh(p.dp(), p.pp(), p.tp()), Backends.select("cpu"), timeout)) {
      return TrainingLoop.run(spec, dist, runDir, listener);
    }
  }
}
