package dev.weft.parallel.pipeline;

import dev.weft.spec.PipelineSchedule;
import dev.weft.spec.SpecChoice;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/** The schedule generators, selected by name. Pure functions: same arguments, same schedule. */
public final class Schedules {
  public static final String GPIPE = PipelineSchedule.GPIPE.spelling();
  public static final String ONE_F_ONE_B = PipelineSchedule.ONE_F_ONE_B.spelling();
  public static final String INTERLEAVED = PipelineSchedule.INTERLEAVED.spelling();
  public static final String ZB_H1 = PipelineSchedule.ZB_H1.spelling();
  public static final String ZBV = PipelineSchedule.ZBV.spelling();

  private Schedules() {}

  /** The schedule called {@code name}; {@code virtualStages} (chunks per stage) above 1 needs interleaved-1f1b, and zbv exactly 2. */
  public static Schedule of(String name, int stages, int microBatches, int virtualStages) {
    requirePositive(stages, microBatches, virtualStages);
    String n = name == null ? "" : name.strip().toLowerCase(java.util.Locale.ROOT);
    PipelineSchedule kind = SpecChoice.find(PipelineSchedule.class, n).orElseThrow(() -> new ScheduleException(
        "unknown parallel.schedule '" + name + "'; use one of " + SpecChoice.spellings(PipelineSchedule.class)));
    if (kind == PipelineSchedule.ZBV) {
      if (virtualStages != 2) throw new ScheduleException("schedule " + ZBV + " runs two chunks per stage in a V, but "
          + virtualStages + " virtual stages were asked for; use 2");
    } else if (kind != PipelineSchedule.INTERLEAVED && virtualStages != 1) {
      throw new ScheduleException("schedule " + n + " runs one chunk per stage, but " + virtualStages
          + " virtual stages were asked for; use parallel.schedule=" + INTERLEAVED + " or 1 virtual stage");
    }
    return switch (kind) {
      case GPIPE -> gpipe(stages, microBatches);
      case ONE_F_ONE_B -> oneFOneB(stages, microBatches);
      case INTERLEAVED -> interleaved(stages, microBatches, virtualStages);
      case ZB_H1 -> zbH1(stages, microBatches);
      case ZBV -> zbv(stages, microBatches);
    };
  }

  /** All forwards, then all backwards: simple, and every micro-batch's activations alive at once. */
  public static Schedule gpipe(int stages, int microBatches) {
    requirePositive(stages, microBatches, 1);
    return build(GPIPE, stages, microBatches, 1, s -> {
      List<Action> c = new ArrayList<>();
      for (int mb = 0; mb < microBatches; mb++) c.add(Action.forward(mb, 0));
      for (int mb = 0; mb < microBatches; mb++) c.add(Action.backward(mb, 0));
      return c;
    }, s -> microBatches);
  }

  /**
   * One forward, one backward: stage s runs {@code stages - s - 1} warm-up forwards, then alternates,
   * so it never holds more than {@code stages - s} micro-batches' activations.
   */
  public static Schedule oneFOneB(int stages, int microBatches) {
    requirePositive(stages, microBatches, 1);
    return build(ONE_F_ONE_B, stages, microBatches, 1, s -> {
      int warm = Math.min(stages - s - 1, microBatches);
      List<Action> c = new ArrayList<>();
      for (int mb = 0; mb < warm; mb++) c.add(Action.forward(mb, 0));
      for (int i = 0; i < microBatches - warm; i++) {
        c.add(Action.forward(warm + i, 0));
        c.add(Action.backward(i, 0));
      }
      for (int mb = microBatches - warm; mb < microBatches; mb++) c.add(Action.backward(mb, 0));
      return c;
    }, s -> Math.min(stages - s, microBatches));
  }

  /**
   * Interleaved 1F1B (Megatron's layout): each stage holds {@code virtualStages} chunks and works
   * through micro-batches in groups of {@code stages}, chunk by chunk, which divides the bubble by
   * the number of chunks at the price of more transfers and more warm-up activations. With one
   * virtual stage it is plain 1F1B.
   */
  public static Schedule interleaved(int stages, int microBatches, int virtualStages) {
    requirePositive(stages, microBatches, virtualStages);
    if (virtualStages == 1) return oneFOneB(stages, microBatches);
    if (microBatches % stages != 0) {
      int lower = microBatches / stages * stages;
      throw new ScheduleException(INTERLEAVED + " needs parallel.microBatches to be a multiple of the " + stages
          + " pipeline stages, got " + microBatches + "; use " + (lower > 0 ? lower + " or " : "") + (lower + stages));
    }
    int total = microBatches * virtualStages;
    int group = stages * virtualStages;
    IntFunction<Integer> warmOf = s -> Math.min(total, (stages - s - 1) * 2 + (virtualStages - 1) * stages);
    return build(INTERLEAVED, stages, microBatches, virtualStages, s -> {
      int warm = warmOf.apply(s);
      List<Action> c = new ArrayList<>();
      for (int k = 0; k < warm; k++) c.add(Action.forward(groupMicroBatch(k, stages, group), (k % group) / stages));
      for (int i = 0; i < total - warm; i++) {
        int k = warm + i;
        c.add(Action.forward(groupMicroBatch(k, stages, group), (k % group) / stages));
        c.add(Action.backward(groupMicroBatch(i, stages, group), virtualStages - 1 - (i % group) / stages));
      }
      for (int k = total - warm; k < total; k++) {
        c.add(Action.backward(groupMicroBatch(k, stages, group), virtualStages - 1 - (k % group) / stages));
      }
      return c;
    }, s -> Math.min(total, warmOf.apply(s) + 1));
  }

  /** ZB-H1: 1F1B with the backward split into B and W and the W's held back to fill the cool-down ({@link ZeroBubble#h1}). */
  public static Schedule zbH1(int stages, int microBatches) {
    requirePositive(stages, microBatches, 1);
    return build(ZB_H1, stages, microBatches, 1, ChunkLayout.LOOPED, s -> ZeroBubble.h1(s, stages, microBatches),
        s -> Math.min(stages, microBatches));
  }

  /** ZBV: two chunks per stage in a V, B/W split, ordered greedily in unit time ({@link ZeroBubble#v}). */
  public static Schedule zbv(int stages, int microBatches) {
    requirePositive(stages, microBatches, 1);
    List<List<Action>> orders = ZeroBubble.v(stages, microBatches);
    return build(ZBV, stages, microBatches, 2, ChunkLayout.V, orders::get, s -> Math.min(2 * stages, 2 * microBatches));
  }

  /** Micro-step k of a stage handles micro-batch (k / group) * stages + k % stages. */
  private static int groupMicroBatch(int k, int stages, int group) {
    return (k / group) * stages + k % stages;
  }

  private static Schedule build(String name, int stages, int microBatches, int virtualStages,
                                IntFunction<List<Action>> computeOrder, IntFunction<Integer> promise) {
    return build(name, stages, microBatches, virtualStages, ChunkLayout.LOOPED, computeOrder, promise);
  }

  private static Schedule build(String name, int stages, int microBatches, int virtualStages, ChunkLayout layout,
                                IntFunction<List<Action>> computeOrder, IntFunction<Integer> promise) {
    List<List<Action>> lists = new ArrayList<>();
    List<Integer> promises = new ArrayList<>();
    for (int s = 0; s < stages; s++) {
      lists.add(Transfers.around(computeOrder.apply(s), s, stages, virtualStages, layout));
      promises.add(promise.apply(s));
    }
    return new Schedule(name, stages, microBatches, virtualStages, layout, lists, promises);
  }

  private static void requirePositive(int stages, int microBatches, int virtualStages) {
    if (stages < 1) throw new ScheduleException("parallel.pp (pipeline stages) must be ≥ 1, got " + stages);
    if (microBatches < 1) throw new ScheduleException("parallel.microBatches must be ≥ 1, got " + microBatches);
    if (virtualStages < 1) throw new ScheduleException("virtual stages per rank must be ≥ 1, got " + virtualStages);
  }
}
