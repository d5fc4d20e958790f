package dev.weft.cuda.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.comm.CommException;
import dev.weft.comm.PendingOp;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The stream/event ordering of NCCL collectives, on a host stand-in: a "stream" is a single thread running its
 * queue in order, an "event" a future completed when the stream reaches it, and "wait for an event" a queued task
 * that blocks that stream's thread. The same {@link CollectiveOrder} drives CUDA streams and events on a GPU.
 */
class CollectiveOrderTest {
  private static final long DEADLINE_S = 60; // a loaded machine: generous, and only reached when ordering is wrong

  private final HostStreams ops = new HostStreams();
  private final ExecutorService compute = Executors.newSingleThreadExecutor();
  private final ExecutorService comm = Executors.newSingleThreadExecutor();
  private final AtomicInteger checks = new AtomicInteger(), aborts = new AtomicInteger();

  @AfterEach
  void stopStreams() {
    compute.shutdownNow();
    comm.shutdownNow();
  }

  private CollectiveOrder<ExecutorService, CompletableFuture<Void>> order(Duration timeout) {
    return new CollectiveOrder<>(ops, compute, comm, "dp-0", "rank 0 of 2", timeout, new CollectiveOrder.Watch() {
      @Override public void check() { checks.incrementAndGet(); }
      @Override public void abort() { aborts.incrementAndGet(); }
    });
  }

  @Test
  void aCollectiveStartsOnlyAfterTheComputeQueuedBeforeIt() throws Exception {
    CountDownLatch producerMayFinish = new CountDownLatch(1);
    int[] gradient = {0}, sent = {-1};
    compute.submit(() -> {
      await(producerMayFinish);
      gradient[0] = 7; // the bucket's gradients, written by backward on the compute stream
    });
    try (var order = order(Duration.ofSeconds(DEADLINE_S))) {
      PendingOp op = order.launch("allReduce", () -> comm.submit(() -> sent[0] = gradient[0]));
      producerMayFinish.countDown(); // released only after the launch: without the event the comm thread read 0
      op.await();
      assertThat(sent[0]).isEqualTo(7);
    }
  }

  @Test
  void computeQueuedAfterALaunchRunsWhileTheCollectiveIsInFlight() throws Exception {
    CountDownLatch backwardRan = new CountDownLatch(1);
    try (var order = order(Duration.ofSeconds(DEADLINE_S))) {
      // the collective cannot finish before later compute has run: if compute waited for it, neither would finish
      PendingOp op = order.launch("allReduce", () -> comm.submit(() -> await(backwardRan)));
      CompletableFuture<Void> moreBackward = CompletableFuture.runAsync(backwardRan::countDown, compute);
      moreBackward.get(DEADLINE_S, TimeUnit.SECONDS);
      assertThat(order.inFlight()).isEqualTo(1);
      op.await();
      assertThat(order.inFlight()).isZero();
    }
  }

  @Test
  void computeQueuedAfterAnAwaitReadsTheResult() throws Exception {
    int[] reduced = {0};
    try (var order = order(Duration.ofSeconds(DEADLINE_S))) {
      PendingOp op = order.launch("reduceScatter", () -> comm.submit(() -> reduced[0] = 42));
      op.await();
      assertThat(CompletableFuture.supplyAsync(() -> reduced[0], compute).get(DEADLINE_S, TimeUnit.SECONDS)).isEqualTo(42);
    }
  }

  @Test
  void collectivesOnOneGroupCompleteInLaunchOrder() throws Exception {
    StringBuilder log = new StringBuilder();
    try (var order = order(Duration.ofSeconds(DEADLINE_S))) {
      PendingOp a = order.launch("send", () -> comm.submit(() -> log.append('a')));
      compute.submit(() -> log.append('c'));
      PendingOp b = order.launch("recv", () -> comm.submit(() -> log.append('b')));
      b.await();
      a.await();
    }
    // a before b (one stream), c before b (b waited for the compute queued before its launch)
    assertThat(log.toString()).isIn("acb", "cab");
  }

  @Test
  void aStuckCollectiveTimesOutAbortsTheGroupAndNamesIt() {
    CountDownLatch never = new CountDownLatch(1);
    try (var order = order(Duration.ofMillis(300))) {
      PendingOp op = order.launch("allGather", () -> comm.submit(() -> await(never)));
      assertThatThrownBy(op::await).isInstanceOf(CommException.class)
          .hasMessageStartingWith("allGather on group dp-0 (rank 0 of 2) did not complete within")
          .hasMessageContaining("the communicator was aborted");
      assertThat(aborts.get()).isEqualTo(1);
      assertThat(checks.get()).isPositive();
    } finally {
      never.countDown();
    }
  }

  @Test
  void anAsynchronousLibraryErrorSurfacesFromTheAwait() {
    CountDownLatch never = new CountDownLatch(1);
    var order = new CollectiveOrder<>(ops, compute, comm, "tp-1", "rank 1 of 2", Duration.ofSeconds(DEADLINE_S),
        new CollectiveOrder.Watch() {
          @Override public void check() { throw new CommException("NCCL error on group tp-1: remote process exited"); }
          @Override public void abort() {}
        });
    try (order) {
      PendingOp op = order.launch("allReduce", () -> comm.submit(() -> await(never)));
      assertThatThrownBy(op::await).isInstanceOf(CommException.class).hasMessageContaining("remote process exited");
    } finally {
      never.countDown();
    }
  }

  @Test
  void everyEventIsReleasedOnceAwaitedOrClosed() throws Exception {
    CountDownLatch hold = new CountDownLatch(1);
    try (var order = order(Duration.ofSeconds(DEADLINE_S))) {
      order.launch("allReduce", () -> comm.submit(() -> {})).await();
      order.launch("allReduce", () -> comm.submit(() -> await(hold))); // never awaited: closed with the group
    } finally {
      hold.countDown();
    }
    assertThat(ops.released.get()).isEqualTo(ops.recorded.get()).isEqualTo(4);
  }

  private static void await(CountDownLatch l) {
    try {
      if (!l.await(DEADLINE_S, TimeUnit.SECONDS)) throw new IllegalStateException("latch not released");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Host streams and events. */
  private static final class HostStreams implements StreamOps<ExecutorService, CompletableFuture<Void>> {
    final AtomicInteger recorded = new AtomicInteger(), released = new AtomicInteger();

    @Override
    public CompletableFuture<Void> record(ExecutorService stream) {
      recorded.incrementAndGet();
      CompletableFuture<Void> e = new CompletableFuture<>();
      stream.submit(() -> e.complete(null));
      return e;
    }

    @Override
    public void waitFor(ExecutorService stream, CompletableFuture<Void> event) {
      stream.submit(() -> {
        try {
          event.get(DEADLINE_S, TimeUnit.SECONDS);
        } catch (Exception ex) {
          throw new IllegalStateException(ex);
        }
      });
    }

    @Override public boolean done(CompletableFuture<Void> event) { return event.isDone(); }
    @Override public void release(CompletableFuture<Void> event) { released.incrementAndGet(); }
  }
}
