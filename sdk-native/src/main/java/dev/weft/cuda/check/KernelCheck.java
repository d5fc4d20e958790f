package dev.weft.cuda.check;

import dev.weft.cuda.CudaStream;
import dev.weft.cuda.kernels.AdamWConfig;
import dev.weft.cuda.kernels.CastKind;
import dev.weft.cuda.kernels.DeviceKernels;
import dev.weft.cuda.kernels.Kernels;
import dev.weft.cuda.kernels.ReferenceKernels;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Runs every kernel on the device and its C++ reference on the host over the same inputs, and compares. */
public final class KernelCheck {
  /** Sizes cover empty, odd, not a multiple of 4 (the scalar tail of the vector path) and multi-block grids. */
  static final long[] SIZES = {0, 1, 3, 4, 5, 1023, 4099, (1 << 20) + 1};
  /** NF4 lengths: empty, one nibble, odd (a lone high nibble), a partial last block of 64, multi-block grids. */
  static final long[] NF4_SIZES = {0, 1, 3, 63, 64, 65, 4099, (1 << 22) + 1};
  /** int8 shapes [rows, cols]: empty, a single element, odd columns, a 2048-wide layer's worth of rows. */
  static final long[][] INT8_SHAPES = {{0, 5}, {1, 1}, {3, 7}, {513, 1027}, {2048, 2049}};
  private static final Duration WAIT = Duration.ofSeconds(60);
  /** More tensors than one kernel launch takes (64), so the chunking is exercised. */
  private static final int LIST_TENSORS = 70;

  private final Kernels reference = new ReferenceKernels();
  private final CudaStream stream;
  private final Kernels device;
  private final RandomData random = new RandomData(42);

  public KernelCheck(CudaStream stream) {
    this.stream = stream;
    this.device = new DeviceKernels(stream);
  }

  public List<CheckResult> runAll() {
    List<CheckResult> out = new ArrayList<>();
    for (long n : SIZES) {
      out.add(adam(n, true, 0));
      out.add(adam(n, false, 1));
    }
    for (CastKind kind : CastKind.values()) for (long n : SIZES) out.add(cast(kind, n));
    out.add(unscale(false));
    out.add(unscale(true));
    for (int elemSize : new int[] {1, 2, 4, 8}) out.add(packUnpack(elemSize));
    for (boolean bf16 : new boolean[] {false, true}) {
      for (long n : NF4_SIZES) out.add(nf4(n, bf16));
      for (long[] rc : INT8_SHAPES) out.add(int8(rc[0], rc[1], bf16));
    }
    return out;
  }

  /** {@code shift} elements off the buffer start make the addresses unaligned, forcing the scalar kernel. */
  CheckResult adam(long n, boolean decoupled, int shift) {
    AdamWConfig c = new AdamWConfig(1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, decoupled);
    long bytes = 4 * (n + shift);
    try (Mirror p = new Mirror(bytes); Mirror g = new Mirror(bytes); Mirror m = new Mirror(bytes);
         Mirror v = new Mirror(bytes); Mirror bf = new Mirror(2 * (n + shift))) {
      random.gaussian(p.host, 1);
      random.gaussian(g.host, 0.1);
      random.gaussian(m.host, 0.01);
      random.positive(v.host, 1e-4);
      for (Mirror x : List.of(p, g, m, v, bf)) x.upload();
      long off4 = 4L * shift, off2 = 2L * shift;
      for (long step = 1; step <= 3; step++) {
        device.adamStep(c, step, p.deviceAddress() + off4, g.deviceAddress() + off4, m.deviceAddress() + off4,
            v.deviceAddress() + off4, bf.deviceAddress() + off2, n);
        reference.adamStep(c, step, p.hostAddress() + off4, g.hostAddress() + off4, m.hostAddress() + off4,
            v.hostAddress() + off4, bf.hostAddress() + off2, n);
      }
      stream.synchronize(WAIT, "adam step kernel");
      double dp = Compare.maxRelativeFloatDiff(p.download(), p.host, 1e-3);
      double dm = Compare.maxRelativeFloatDiff(m.download(), m.host, 1e-6);
      double dv = Compare.maxRelativeFloatDiff(v.download(), v.host, 1e-10);
      long bfBad = Compare.halfMismatches(bf.download(), bf.host, 1, true);
      boolean ok = dp <= 1e-5 && dm <= 1e-5 && dv <= 1e-5 && bfBad == 0;
      return CheckResult.of((decoupled ? "adamw" : "adam") + " n=" + n + (shift > 0 ? " unaligned" : ""), ok,
          String.format("max rel diff p=%.2e m=%.2e v=%.2e, bf16 copies off by >1 ulp: %d", dp, dm, dv, bfBad));
    }
  }

  CheckResult cast(CastKind kind, long n) {
    try (Mirror src = new Mirror(kind.srcBytes * n); Mirror dst = new Mirror(kind.dstBytes * n)) {
      if (kind.srcBytes == 4) random.castInputs(src.host); else random.bytes(src.host);
      src.upload();
      device.cast(kind, src.deviceAddress(), dst.deviceAddress(), n);
      reference.cast(kind, src.hostAddress(), dst.hostAddress(), n);
      stream.synchronize(WAIT, "cast kernel");
      ByteBuffer got = dst.download();
      long bad = kind.dstBytes == 2 ? Compare.halfMismatches(got, dst.host, 0, kind == CastKind.F32_TO_BF16)
          : Compare.floatMismatches(got, dst.host);
      return CheckResult.of("cast " + kind + " n=" + n, bad == 0, "elements that differ: " + bad);
    }
  }

  /** Random codes and random absmax, dequantized on both sides: bit-exact (one fp32 product, one rounding). */
  CheckResult nf4(long n, boolean bf16) {
    int outBytes = bf16 ? 2 : 4;
    try (Mirror codes = new Mirror((n + 1) / 2); Mirror absmax = new Mirror(4 * ((n + 63) / 64)); Mirror dst = new Mirror(outBytes * n)) {
      random.bytes(codes.host);
      random.positive(absmax.host, 1);
      codes.upload();
      absmax.upload();
      device.dequantNf4(codes.deviceAddress(), absmax.deviceAddress(), dst.deviceAddress(), n, bf16);
      reference.dequantNf4(codes.hostAddress(), absmax.hostAddress(), dst.hostAddress(), n, bf16);
      return dequantResult("dequant nf4 -> " + (bf16 ? "bf16" : "fp32") + " n=" + n, dst, bf16);
    }
  }

  CheckResult int8(long rows, long cols, boolean bf16) {
    int outBytes = bf16 ? 2 : 4;
    try (Mirror q = new Mirror(rows * cols); Mirror scale = new Mirror(4 * rows); Mirror dst = new Mirror(outBytes * rows * cols)) {
      random.bytes(q.host);
      random.positive(scale.host, 0.01);
      q.upload();
      scale.upload();
      device.dequantInt8(q.deviceAddress(), scale.deviceAddress(), dst.deviceAddress(), rows, cols, bf16);
      reference.dequantInt8(q.hostAddress(), scale.hostAddress(), dst.hostAddress(), rows, cols, bf16);
      return dequantResult("dequant int8 -> " + (bf16 ? "bf16" : "fp32") + " " + rows + "x" + cols, dst, bf16);
    }
  }

  private CheckResult dequantResult(String name, Mirror dst, boolean bf16) {
    stream.synchronize(WAIT, name);
    ByteBuffer got = dst.download();
    long bad = bf16 ? Compare.halfMismatches(got, dst.host, 0, true) : Compare.floatMismatches(got, dst.host);
    return CheckResult.of(name, bad == 0, "elements that differ from the reference: " + bad);
  }

  CheckResult unscale(boolean withInf) {
    long[] sizes = listSizes();
    try (Mirrors xs = Mirrors.of(sizes, 4); Mirror flag = new Mirror(4)) {
      for (Mirror x : xs.list) random.gaussian(x.host, 1000);
      if (withInf) xs.list.get(xs.list.size() - 3).host.putFloat(0, Float.POSITIVE_INFINITY);
      xs.uploadAll();
      flag.upload();
      device.unscaleCheck(xs.deviceAddresses(), sizes, 1f / 1024, flag.deviceAddress());
      reference.unscaleCheck(xs.hostAddresses(), sizes, 1f / 1024, flag.hostAddress());
      stream.synchronize(WAIT, "unscale kernel");
      long bad = 0;
      for (Mirror x : xs.list) bad += Compare.floatMismatches(x.download(), x.host);
      float f = flag.download().getFloat(0), fr = flag.host.getFloat(0);
      boolean ok = bad == 0 && f == fr && fr == (withInf ? 1f : 0f);
      return CheckResult.of("unscale+check " + sizes.length + " tensors" + (withInf ? " with inf" : ""), ok,
          "elements that differ: " + bad + ", found_inf device=" + f + " reference=" + fr);
    }
  }

  CheckResult packUnpack(int elemSize) {
    long[] sizes = listSizes();
    long total = 0;
    for (long s : sizes) total += s;
    try (Mirrors xs = Mirrors.of(sizes, elemSize); Mirror bucket = new Mirror(total * elemSize)) {
      for (Mirror x : xs.list) random.bytes(x.host);
      xs.uploadAll();
      device.pack(xs.deviceAddresses(), sizes, elemSize, bucket.deviceAddress());
      reference.pack(xs.hostAddresses(), sizes, elemSize, bucket.hostAddress());
      stream.synchronize(WAIT, "bucket pack kernel");
      boolean packed = bucket.download().equals(bucket.host);
      random.bytes(bucket.host);
      bucket.upload();
      device.unpack(xs.deviceAddresses(), sizes, elemSize, bucket.deviceAddress());
      reference.unpack(xs.hostAddresses(), sizes, elemSize, bucket.hostAddress());
      stream.synchronize(WAIT, "bucket unpack kernel");
      boolean unpacked = true;
      for (Mirror x : xs.list) unpacked &= x.download().equals(x.host);
      return CheckResult.of("bucket pack/unpack elem=" + elemSize + "B " + sizes.length + " tensors, " + total
          + " elements", packed && unpacked, "pack " + (packed ? "equal" : "DIFFERS") + ", unpack "
          + (unpacked ? "equal" : "DIFFERS"));
    }
  }

  private long[] listSizes() {
    long[] sizes = new long[LIST_TENSORS];
    for (int i = 0; i < sizes.length; i++) sizes[i] = i % 10 == 0 ? 0 : random.nextInt(5000) + (i == 5 ? 300_000 : 0);
    return sizes;
  }

  /** A list of mirrors, closed together. */
  static final class Mirrors implements AutoCloseable {
    final List<Mirror> list = new ArrayList<>();

    static Mirrors of(long[] sizes, int elemSize) {
      Mirrors m = new Mirrors();
      for (long s : sizes) m.list.add(new Mirror(s * elemSize));
      return m;
    }

    void uploadAll() { list.forEach(Mirror::upload); }

    long[] hostAddresses() { return list.stream().mapToLong(Mirror::hostAddress).toArray(); }

    long[] deviceAddresses() { return list.stream().mapToLong(Mirror::deviceAddress).toArray(); }

    @Override
    public void close() { list.forEach(Mirror::close); }
  }
}
