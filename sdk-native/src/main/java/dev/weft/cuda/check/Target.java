package dev.weft.cuda.check;

import dev.weft.comm.RankDevice;

/** Where the training half of the check runs: {@code cuda:index}, or the CPU with tiny shapes ({@code dry}). */
record Target(String device, int index, boolean dry) {
  static Target cuda(int index) { return new Target("cuda", index, false); }

  static Target tiny() { return new Target("cpu", -1, true); }

  RankDevice rankDevice() { return dry ? RankDevice.CPU : new RankDevice("cuda", index); }
}
