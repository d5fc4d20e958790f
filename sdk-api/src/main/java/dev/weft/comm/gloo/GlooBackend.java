package dev.weft.comm.gloo;

import dev.weft.comm.Backend;
import dev.weft.comm.Communicator;
import dev.weft.comm.Rendezvous;
import java.time.Duration;

/** CPU backend: libtorch CPU tensors, Gloo collectives over TCP. Always available where libtorch loads. */
public final class GlooBackend implements Backend {
  @Override public String name() { return "cpu"; }

  @Override
  public Availability probe() {
    try {
      dev.weft.util.NativeCache.load();
      return Availability.yes("libtorch CPU with Gloo (" + Runtime.getRuntime().availableProcessors() + " cores)");
    } catch (Throwable t) {
      return Availability.no("libtorch did not load: " + t);
    }
  }

  @Override
  public Communicator createGroup(Rendezvous store, String groupName, int groupRank, int groupSize, Duration timeout) {
    return GlooCommunicator.create(store, groupName, groupRank, groupSize, timeout);
  }
}
