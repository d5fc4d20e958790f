package dev.weft.elastic;

import dev.weft.comm.CommException;
import dev.weft.launch.FreePort;
import java.time.Duration;

/** Where a generation's rank 0 hosts the workers' store: node 0 of the generation publishes it, every node reads it. */
final class MasterAddress {
  private MasterAddress() {}

  static String agree(KeyValue gen, RendezvousRound.Membership m, String nodeAddress, Duration timeout, Duration poll) {
    if (m.nodeRank() == 0) {
      gen.setIfAbsent("master", nodeAddress + ":" + FreePort.find()); // where this node's rank 0 listens
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    String master;
    while ((master = gen.getOrNull("master")) == null) {
      if (System.nanoTime() > deadline) throw new CommException("node 0 of generation " + m.round() + " published no master address");
      RendezvousRound.sleep(poll);
    }
    return master;
  }
}
