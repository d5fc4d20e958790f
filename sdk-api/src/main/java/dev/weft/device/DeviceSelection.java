package dev.weft.device;

import dev.weft.spec.DeviceChoice;
import dev.weft.comm.Backend;
import dev.weft.spec.SpecException;
import java.util.Optional;

/**
 * Turns the spec's {@code device} and what the CUDA backend's probe found into a decision. Pure: the probe result is
 * an argument ({@link Devices} gathers it), so every case is testable without a GPU.
 *
 * <ul>
 *   <li>{@code cpu}: libtorch CPU + Gloo, always.
 *   <li>{@code cuda}: the CUDA backend, or a spec error naming {@code device} and every missing piece.
 *   <li>{@code auto}: CUDA where it is usable, else CPU, saying why.
 * </ul>
 */
public final class DeviceSelection {
  /** What {@code device: cuda} needs when the sdk-native jar is not on the classpath at all. */
  static final String NO_CUDA_BACKEND = "the CUDA backend is not on the classpath (add the weft-sdk-native jar)";

  private DeviceSelection() {}

  /**
   * @param cuda the CUDA backend's probe, or empty when no backend named {@code cuda} is on the classpath
   */
  public static DeviceDecision decide(DeviceChoice choice, Optional<Backend.Availability> cuda) {
    String why = cuda.map(DeviceSelection::verdict).orElse(NO_CUDA_BACKEND);
    boolean usable = cuda.map(Backend.Availability::available).orElse(false);
    return switch (choice) {
      case CPU -> new DeviceDecision("cpu", "device: cpu");
      case CUDA -> {
        if (!usable) {
          throw new SpecException("device", "cuda is not usable here: " + why
              + "; use device=cpu or device=auto, or see weft doctor");
        }
        yield new DeviceDecision("cuda", "device: cuda (" + why + ")");
      }
      case AUTO -> usable ? new DeviceDecision("cuda", "device: auto chose cuda (" + why + ")")
          : new DeviceDecision("cpu", "device: auto chose cpu, because CUDA is not usable here: " + why);
    };
  }

  /** The first line of a probe's detail: the verdict, or every missing piece; the rest is the doctor's report. */
  static String verdict(Backend.Availability a) {
    String d = a.detail() == null ? "" : a.detail().strip();
    int nl = d.indexOf('\n');
    return nl < 0 ? d : d.substring(0, nl).strip();
  }
}
