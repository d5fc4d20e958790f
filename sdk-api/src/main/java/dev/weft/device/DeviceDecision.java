package dev.weft.device;

/**
 * Where a run trains: the backend's name ({@code cpu} or {@code cuda}, a {@link dev.weft.comm.Backend#name()}) and
 * one line saying why, printed once per run.
 */
public record DeviceDecision(String backend, String note) {
  public boolean cuda() { return "cuda".equals(backend); }
}
