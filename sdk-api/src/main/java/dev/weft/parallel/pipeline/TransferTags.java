package dev.weft.parallel.pipeline;

/**
 * Point-to-point tags, unique per (micro-batch, edge between two virtual stages, direction) within a
 * step, so a pre-posted receive can only meet its own send. The edge is named by its lower virtual stage.
 */
final class TransferTags {
  private TransferTags() {}

  static int of(Action a, Schedule s, int stage) {
    int vs = s.virtualStage(stage, a.chunk());
    boolean activation = a.kind().carriesActivation();
    int edge = switch (a.kind()) {
      case SEND_ACT, RECV_GRAD -> vs;
      case RECV_ACT, SEND_GRAD -> vs - 1;
      default -> throw new IllegalArgumentException(a + " is not a transfer");
    };
    long tag = ((long) a.microBatch() * Math.max(1, s.totalVirtualStages() - 1) + edge) * 2 + (activation ? 0 : 1);
    if (tag > Integer.MAX_VALUE) throw new ScheduleException("too many micro-batches × virtual stages for 32-bit transfer tags");
    return (int) tag;
  }
}
