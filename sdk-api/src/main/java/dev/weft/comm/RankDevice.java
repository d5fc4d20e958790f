package dev.weft.comm;

import org.bytedeco.pytorch.Device;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptions;

/**
 * The torch device one rank trains on, chosen once per process ({@code WorkerRun}) and handed down through
 * {@link Distributed}: {@code cpu}, or {@code cuda:i} with {@code i = LOCAL_RANK mod deviceCount}. Models are built
 * on the CPU (the same seeded initialisation as a CPU run) and moved once; everything the training loop allocates
 * afterwards takes its device from an existing tensor, so this value is read only at those few edges.
 *
 * @param type a torch device type: {@code cpu}, {@code cuda}, or {@code meta} (tests: shapes without storage)
 * @param index the device's index, -1 for {@code cpu} and {@code meta}
 */
public record RankDevice(String type, int index) {
  public static final RankDevice CPU = new RankDevice("cpu", -1);

  public RankDevice {
    if (!type.equals("cpu") && !type.equals("cuda") && !type.equals("meta")) {
      throw new IllegalArgumentException("unknown torch device type '" + type + "' (cpu, cuda or meta)");
    }
    if (type.equals("cuda") ? index < 0 : index != -1) throw new IllegalArgumentException("device index " + index + " for " + type);
  }

  /**
   * The device of a rank whose backend is {@code backend} ({@code cpu} or {@code cuda}), {@code localRank} on its host,
   * with {@code deviceCount} CUDA devices visible: ranks beyond the device count share devices round-robin.
   */
  public static RankDevice of(String backend, int localRank, int deviceCount) {
    if (!"cuda".equals(backend)) return CPU;
    if (deviceCount <= 0) throw new CommException("device: cuda was chosen but no CUDA device is visible to this process");
    return new RankDevice("cuda", Math.floorMod(localRank, deviceCount));
  }

  public boolean cuda() { return type.equals("cuda"); }

  public boolean cpu() { return type.equals("cpu"); }

  /** {@code cpu}, {@code cuda:1}, {@code meta}: torch's spelling. */
  @Override
  public String toString() { return index < 0 ? type : type + ":" + index; }

  public Device torch() { return new Device(toString()); }

  /** Whether {@code t} lives on this device. */
  public boolean holds(Tensor t) {
    Device d = t.device();
    String s = d.str().getString();
    return s.equals(toString()) || (cuda() && index == 0 && s.equals("cuda"));
  }

  /** {@code t} on this device: itself when it is there already; from pinned host memory without blocking on CUDA. */
  public Tensor place(Tensor t) {
    if (holds(t)) return t;
    Tensor src = cuda() && t.is_cpu() ? t.pin_memory() : t;
    return src.to(new TensorOptions(torch()), cuda(), false, new org.bytedeco.pytorch.MemoryFormatOptional());
  }
}
