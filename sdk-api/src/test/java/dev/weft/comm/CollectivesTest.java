package dev.weft.comm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.comm.gloo.GlooBackend;
import dev.weft.launch.FreePort;
import dev.weft.testing.GroupRanks;
import dev.weft.util.Tensors;
import java.time.Duration;
import java.util.List;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Every collective of the Gloo communicator, with real process groups between rank threads. */
class CollectivesTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private static <T> List<T> withGroup(int world, java.util.function.Function<Communicator, T> body) {
    return GroupRanks.run(world, "test", TIMEOUT, body);
  }

  private static double[] toDoubles(float[] f) {
    double[] d = new double[f.length];
    for (int i = 0; i < f.length; i++) d[i] = f[i];
    return d;
  }

  private static Tensor full(float v, long n) { return torch.full(new long[] {n}, new Scalar(v)); }

  @ParameterizedTest
  @ValueSource(ints = {2, 3, 4})
  void allReduceSumMaxMinAvg(int world) {
    List<double[]> got = withGroup(world, c -> {
      Tensor s = full(c.rank() + 1, 5), mx = full(c.rank() + 1, 3), mn = full(c.rank() + 1, 3), av = full(c.rank() + 1, 3);
      c.allReduce(s, ReduceOp.SUM);
      c.allReduce(mx, ReduceOp.MAX);
      c.allReduce(mn, ReduceOp.MIN);
      c.allReduce(av, ReduceOp.AVG);
      return new double[] {s.sum().item_double() / 5, mx.max().item_double(), mn.min().item_double(), av.mean().item_double()};
    });
    double sum = world * (world + 1) / 2.0;
    for (double[] g : got) assertThat(g).containsExactly(sum, world, 1, sum / world);
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 4})
  void allGatherAndReduceScatter(int world) {
    List<float[][]> got = withGroup(world, c -> {
      Tensor out = torch.zeros(3L * world);
      c.allGather(out, full(10 * c.rank(), 3));
      Tensor in = torch.arange(new Scalar(2 * world)).to(torch.ScalarType.Float).add(new Scalar(100 * c.rank()));
      Tensor rs = torch.zeros(2);
      c.reduceScatter(rs, in);
      return new float[][] {Tensors.toFloats(out), Tensors.toFloats(rs)};
    });
    for (int r = 0; r < world; r++) {
      float[] gathered = got.get(r)[0];
      for (int i = 0; i < 3 * world; i++) assertThat(gathered[i]).isEqualTo(10f * (i / 3));
      float base = 100f * world * (world - 1) / 2;
      assertThat(got.get(r)[1]).containsExactly(base + world * (2f * r), base + world * (2f * r + 1));
    }
  }

  /** Rank r sends (r + j) % 3 rows to rank j (zero rows included), each row 2 wide and stamped 100·r + j. */
  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void allToAllWithUnevenAndZeroCounts(int world) {
    List<float[]> got = withGroup(world, c -> {
      int r = c.rank();
      long[] send = new long[world], recv = new long[world];
      for (int j = 0; j < world; j++) { send[j] = (r + j) % 3; recv[j] = (j + r) % 3; }
      long rows = java.util.Arrays.stream(send).sum(), back = java.util.Arrays.stream(recv).sum();
      float[] in = new float[(int) rows * 2];
      int k = 0;
      for (int j = 0; j < world; j++) for (long i = 0; i < send[j] * 2; i++) in[k++] = 100 * r + j;
      Tensor out = torch.zeros(back, 2);
      c.allToAll(out, Tensors.ofDoubles(toDoubles(in)).to(torch.ScalarType.Float).reshape(rows, 2), recv, send);
      return Tensors.toFloats(out);
    });
    for (int r = 0; r < world; r++) {
      java.util.List<Float> want = new java.util.ArrayList<>();
      for (int j = 0; j < world; j++) for (int i = 0; i < ((j + r) % 3) * 2; i++) want.add(100f * j + r);
      float[] g = got.get(r);
      assertThat(g).hasSize(want.size());
      for (int i = 0; i < g.length; i++) assertThat(g[i]).isEqualTo(want.get(i));
    }
  }

  @Test
  void broadcastSendRecvAndBarrier() {
    List<float[]> got = withGroup(3, c -> {
      Tensor b = c.rank() == 1 ? Tensors.ofDoubles(7, 8, 9).to(torch.ScalarType.Float) : torch.zeros(3);
      c.broadcast(b, 1);
      Tensor msg = torch.zeros(2);
      if (c.rank() == 0) c.send(full(42, 2), 2, 5);
      if (c.rank() == 2) c.recv(msg, 0, 5);
      c.barrier();
      float[] bb = Tensors.toFloats(b), mm = Tensors.toFloats(msg);
      return new float[] {bb[0], bb[1], bb[2], mm[0], mm[1]};
    });
    for (float[] g : got) assertThat(g).startsWith(7f, 8f, 9f);
    assertThat(got.get(2)).endsWith(42f, 42f);
  }

  @Test
  void aMissingPeerIsATimeoutThatNamesTheGroup() {
    int port = FreePort.find();
    Duration shortTimeout = Duration.ofSeconds(3);
    Rendezvous store = Rendezvous.connect("127.0.0.1", port, 0, true, shortTimeout);
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> new GlooBackend().createGroup(store, "lonely", 0, 2, shortTimeout))
        .isInstanceOf(CommException.class).hasMessageContaining("lonely");
    assertThat((System.nanoTime() - t0) / 1e9).isLessThan(30);
    store.close();
  }

  @Test
  void aWorkerThatStartsFirstWaitsForTheStoreHost() throws Exception {
    int port = FreePort.find();
    var host = new java.util.concurrent.atomic.AtomicReference<Rendezvous>();
    var late = new Thread(() -> {
      try {
        Thread.sleep(500); // the worker's first tries (at once, then after 0.1, 0.2 s) find no store
      } catch (InterruptedException ignored) {
        return;
      }
      host.set(Rendezvous.connect("127.0.0.1", port, 0, true, TIMEOUT));
      host.get().set("hello", "world");
    });
    late.start();
    Rendezvous early = Rendezvous.connect("127.0.0.1", port, 1, false, TIMEOUT);
    assertThat(early.getString("hello")).isEqualTo("world");
    late.join();
    early.close();
    host.get().close();
  }
}
