package dev.weft.spec;

/**
 * {@code parallel.cpMethod}: how context-parallel ranks attend over the whole sequence. {@code allgather}
 * gathers every rank's K/V and runs the fused attention kernel per query chunk (fastest on CPU; the whole
 * sequence's K/V on every rank); {@code ring} passes K/V blocks around the ring and merges them by online
 * softmax (K/V memory of two blocks); {@code alltoall} (Ulysses) trades heads for sequence, so cp must
 * divide the heads.
 */
public enum CpMethod implements SpecChoice {
  ALLGATHER("allgather"), RING("ring"), ALLTOALL("alltoall");

  private final String spelling;

  CpMethod(String spelling) { this.spelling = spelling; }

  @Override public String spelling() { return spelling; }

  /** The method a validated {@code parallel.cpMethod} names. */
  public static CpMethod of(String spelling) { return SpecChoice.of(CpMethod.class, spelling); }
}
