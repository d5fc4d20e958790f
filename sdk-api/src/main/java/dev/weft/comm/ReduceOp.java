package dev.weft.comm;

/** Reductions every backend must support. AVG is SUM followed by a division where the backend lacks it. */
public enum ReduceOp { SUM, MAX, MIN, AVG }
