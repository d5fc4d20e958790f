package dev.weft.spec;

/** Where and how often to save. {@code every = 0} saves nothing. An empty {@code dir} means RUN_DIR/checkpoints. */
public record CheckpointSpec(String dir, int every, int keep, boolean async) {}
