package dev.weft.parallel.pipeline;

import dev.weft.comm.Communicator;
import dev.weft.models.Parameters;
import dev.weft.util.Tensors;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/** Runs a body on p rank threads, each with a Gloo pipeline group, as the executor tests need. */
final class PipelineRanks {
  static final Duration TIMEOUT = Duration.ofSeconds(60);

  private PipelineRanks() {}

  static <T> List<T> run(int stages, BiFunction<Communicator, Integer, T> body) {
    return run(stages, TIMEOUT, body);
  }

  /** With a shorter deadline where one rank is meant to fail: its peer then waits only this long. */
  static <T> List<T> run(int stages, Duration timeout, BiFunction<Communicator, Integer, T> body) {
    return dev.weft.testing.GroupRanks.run(stages, "pp", timeout, c -> body.apply(c, c.rank())); // released together at the end
  }

  /** Every parameter's gradient, by name. */
  static Map<String, float[]> grads(Parameters params) {
    Map<String, float[]> out = new LinkedHashMap<>();
    for (Parameters.Param p : params.list()) out.put(p.name(), Tensors.toFloats(p.tensor().grad()));
    return out;
  }
}
