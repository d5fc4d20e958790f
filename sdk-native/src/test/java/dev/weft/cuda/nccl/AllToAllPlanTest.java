package dev.weft.cuda.nccl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.comm.CommException;
import dev.weft.comm.Communicator;
import dev.weft.comm.PendingOp;
import dev.weft.comm.Rendezvous;
import dev.weft.comm.RunRelease;
import dev.weft.comm.gloo.GlooBackend;
import dev.weft.launch.ThreadedRun;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.api.Test;

/**
 * The Java half of the NCCL all-to-all, on the CPU: {@link AllToAllPlan}'s validation and offsets, and the plan issued
 * as point-to-point transfers over Gloo's send/recv (as {@link NcclCommunicator} issues it over ncclSend/ncclRecv)
 * must give what Gloo's own all-to-all gives through the same {@link Communicator} interface, for equal, unequal and
 * zero splits, on 3 ranks.
 */
class AllToAllPlanTest {
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final int WORLD = 3;
  private static final int COLS = 3;

  @Test
  void offsetsAndCountsAreInElements() {
    AllToAllPlan p = AllToAllPlan.of("g", 3, 6, 4, 5, 4, new long[] {2, 0, 3}, new long[] {1, 2, 3});
    assertThat(p.sendCounts()).containsExactly(4, 8, 12);
    assertThat(p.sendOffsets()).containsExactly(0, 4, 12);
    assertThat(p.recvCounts()).containsExactly(8, 0, 12);
    assertThat(p.recvOffsets()).containsExactly(0, 8, 8);
    List<String> issued = new ArrayList<>();
    p.issue(new AllToAllPlan.Transfers() {
      @Override public void send(int peer, long offset, long count) { issued.add("send " + peer + " " + offset + " " + count); }
      @Override public void recv(int peer, long offset, long count) { issued.add("recv " + peer + " " + offset + " " + count); }
    });
    // a zero count issues nothing (NCCL would pair it with nothing on the peer)
    assertThat(issued).containsExactly("send 0 0 4", "recv 0 0 8", "send 1 4 8", "send 2 12 12", "recv 2 8 12");
  }

  @Test
  void refusesWhatGlooRefuses() {
    assertThatThrownBy(() -> AllToAllPlan.of("dp[0,1]", 2, 2, 1, 2, 1, new long[] {1, 1}, new long[] {2}))
        .isInstanceOf(CommException.class).hasMessage("allToAll on dp[0,1]: 1 send and 2 receive counts for a group of 2");
    assertThatThrownBy(() -> AllToAllPlan.of("g", 2, 3, 1, 2, 1, new long[] {1, 1}, new long[] {1, 1}))
        .hasMessage("allToAll on g: the send counts [1, 1] sum to 2 rows but the input has 3 rows (dim 0)");
    assertThatThrownBy(() -> AllToAllPlan.of("g", 2, 2, 1, 2, 1, new long[] {3, -1}, new long[] {1, 1}))
        .hasMessage("allToAll on g: receive count -1 for rank 1 is negative");
    assertThatThrownBy(() -> AllToAllPlan.of("g", 2, 2, 2, 2, 3, new long[] {1, 1}, new long[] {1, 1}))
        .hasMessageContaining("input rows hold 2 elements but output rows 3");
  }

  @Test
  void unequalAndZeroSplitsMatchGloosAllToAll() {
    // rank r sends (r + j) % 3 rows to j; rank j expects (r + j) % 3 from r; row values name (source, destination, row)
    List<float[][]> got = onGroup(c -> {
      int r = c.rank();
      long[] send = new long[WORLD], recv = new long[WORLD];
      for (int j = 0; j < WORLD; j++) { send[j] = (r + j) % 3; recv[j] = (j + r) % 3; }
      Tensor in = rows(r, send);
      return new float[][] {exchange(c, in, send, recv, true), exchange(c, in, send, recv, false)};
    });
    for (int r = 0; r < WORLD; r++) {
      List<Float> want = new ArrayList<>();
      for (int j = 0; j < WORLD; j++) for (int i = 0; i < (j + r) % 3; i++) for (int k = 0; k < COLS; k++) want.add(value(j, r, i, k));
      assertThat(got.get(r)[0]).as("plan over send/recv, rank %d", r).containsExactly(toArray(want));
      assertThat(got.get(r)[1]).as("Gloo's allToAll, rank %d", r).containsExactly(toArray(want));
    }
  }

  @Test
  void equalSplitsExchangeKnownValues() {
    List<float[]> got = onGroup(c -> {
      long[] two = {2, 2, 2};
      return exchange(c, rows(c.rank(), two), two, two, true);
    });
    for (int r = 0; r < WORLD; r++) {
      List<Float> want = new ArrayList<>();
      for (int j = 0; j < WORLD; j++) for (int i = 0; i < 2; i++) for (int k = 0; k < COLS; k++) want.add(value(j, r, i, k));
      assertThat(got.get(r)).containsExactly(toArray(want));
    }
  }

  /** Row i for destination j of rank r's input: elements {@link #value}. */
  private static Tensor rows(int r, long[] send) {
    long n = 0;
    for (long s : send) n += s;
    Tensor t = torch.zeros(n, COLS);
    long row = 0;
    for (int j = 0; j < send.length; j++) {
      for (int i = 0; i < send[j]; i++, row++) for (int k = 0; k < COLS; k++) t.get(row).get(k).fill_(new org.bytedeco.pytorch.Scalar(value(r, j, i, k)));
    }
    return t;
  }

  private static float value(int src, int dst, int row, int col) { return 1000 * src + 100 * dst + 10 * row + col; }

  /** The all-to-all by the plan over Gloo's point-to-point calls ({@code viaPlan}), or by Gloo's own. */
  private static float[] exchange(Communicator c, Tensor in, long[] send, long[] recv, boolean viaPlan) {
    long back = 0;
    for (long s : recv) back += s;
    Tensor out = torch.full(new long[] {back, COLS}, new org.bytedeco.pytorch.Scalar(-1f));
    if (viaPlan) {
      AllToAllPlan plan = AllToAllPlan.of(c.name(), c.size(), in.size(0), COLS, out.size(0), COLS, recv, send);
      Tensor src = in.reshape(-1), dst = out.view(-1);
      List<PendingOp> ops = new ArrayList<>();
      plan.issue(new AllToAllPlan.Transfers() {
        @Override public void send(int peer, long offset, long count) {
          if (peer == c.rank()) return; // Gloo has no send to self: the receive below copies it
          ops.add(c.sendAsync(src.narrow(0, offset, count).clone(), peer, 9));
        }
        @Override public void recv(int peer, long offset, long count) {
          Tensor slot = dst.narrow(0, offset, count);
          if (peer == c.rank()) {
            slot.copy_(src.narrow(0, plan.sendOffsets()[peer], count));
            return;
          }
          Tensor buf = torch.empty(count);
          PendingOp op = c.recvAsync(buf, peer, 9);
          ops.add(() -> { op.await(); slot.copy_(buf); });
        }
      });
      ops.forEach(PendingOp::await);
    } else {
      c.allToAll(out, in, recv, send);
    }
    float[] f = new float[(int) out.numel()];
    Tensor flat = out.reshape(-1).contiguous();
    for (int i = 0; i < f.length; i++) f[i] = flat.get(i).item_float();
    return f;
  }

  private static float[] toArray(List<Float> l) {
    float[] f = new float[l.size()];
    for (int i = 0; i < f.length; i++) f[i] = l.get(i);
    return f;
  }

  private static <T> List<T> onGroup(Function<Communicator, T> body) {
    return ThreadedRun.onRanks(WORLD, WAIT, id -> {
      Rendezvous store = Rendezvous.connect(id.masterAddr(), id.masterPort(), id.rank(), id.rank() == 0, WAIT);
      Communicator c = new GlooBackend().createGroup(store, "a2a", id.rank(), WORLD, WAIT);
      try {
        return body.apply(c);
      } finally {
        RunRelease.release(store, id.rank(), WORLD, List.of(c), WAIT);
      }
    });
  }
}
