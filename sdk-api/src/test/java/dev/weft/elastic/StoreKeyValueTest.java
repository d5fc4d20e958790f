package dev.weft.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.comm.Rendezvous;
import dev.weft.comm.StoreCalls;
import dev.weft.launch.FreePort;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A {@link KeyValue#set} on the rendezvous store is held by the store when it returns: a worker's {@code done} or an
 * agent's {@code lost} key is read by another process on its own connection, after something else told it to look.
 * libtorch's set gets no answer, so without the acknowledgement a read right after it could reach the store first
 * (measured under a load of 12 on 2 cores: 249 of 20,000 reads missed the value).
 */
class StoreKeyValueTest {
  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private final List<Rendezvous> open = new ArrayList<>();

  private KeyValue connection(int port, boolean host) {
    Rendezvous r = Rendezvous.connect("127.0.0.1", port, host ? 0 : 1, host, DEADLINE, "127.0.0.1", "");
    open.add(r);
    return new StoreKeyValue(r.prefixed("elastic/"), new StoreCalls("the test store", DEADLINE));
  }

  @AfterEach void close() { // clients first, the host last
    for (int i = open.size() - 1; i >= 0; i--) open.get(i).close();
  }

  @Test
  void aValueSetOnOneConnectionIsReadOnAnotherRightAfter() {
    int port = FreePort.find();
    connection(port, true);
    KeyValue writer = connection(port, false);
    KeyValue reader = connection(port, false);
    int missed = 0;
    for (int i = 0; i < 5000; i++) { // each round: a fresh key set by one client, read at once by the other
      writer.set("k" + i, "v" + i);
      if (!("v" + i).equals(reader.getOrNull("k" + i))) missed++;
    }
    assertThat(missed).as("reads that missed a value set before them").isZero();
  }
}
