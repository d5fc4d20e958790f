package dev.weft.device;

import dev.weft.spec.DeviceChoice;
import dev.weft.comm.Backend;
import dev.weft.comm.Backends;
import java.util.Optional;

/** The edge of device selection: probes the backends on the classpath (once per call) and returns the chosen one. */
public final class Devices {
  private Devices() {}

  /** Decides for a spec's {@code device} value on this machine. */
  public static DeviceDecision decide(String device) {
    DeviceChoice choice = DeviceChoice.parse(device);
    if (choice == DeviceChoice.CPU) return DeviceSelection.decide(choice, Optional.empty());
    Optional<Backend.Availability> cuda = Backends.all().stream().filter(b -> "cuda".equals(b.name())).findFirst()
        .map(Backend::probe);
    return DeviceSelection.decide(choice, cuda);
  }

  /** The backend a decision names (probed again: the probe results are cached by the backends themselves). */
  public static Backend backend(DeviceDecision decision) {
    return Backends.select(decision.backend());
  }
}
