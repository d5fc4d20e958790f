package dev.weft.cli;

import dev.weft.comm.Backend;
import dev.weft.comm.Backends;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code weft doctor}: what hardware and libraries Weft sees, and why anything is missing. */
@Command(name = "doctor", mixinStandardHelpOptions = true, description = "Show the hardware and libraries Weft can use.")
final class DoctorCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    Runtime rt = Runtime.getRuntime();
    System.out.printf("Java      %s (%s), %s%n", Runtime.version(), System.getProperty("java.vendor"), System.getProperty("java.home"));
    System.out.printf("Machine   %d cores, %.1f GiB max heap, %s %s%n", rt.availableProcessors(), rt.maxMemory() / 1073741824.0,
        System.getProperty("os.name"), System.getProperty("os.arch"));
    System.out.printf("Env       OMP_WAIT_POLICY=%s (workers get PASSIVE)%n", System.getenv().getOrDefault("OMP_WAIT_POLICY", "unset"));
    System.out.printf("Allocator %s%n", workersAllocator());
    for (Backend b : Backends.all()) {
      Backend.Availability a = b.probe();
      System.out.printf("Backend   %-5s %s%n", b.name(), a.available() ? "available" : "NOT available");
      for (String line : a.detail().split("\n")) System.out.println("          " + line);
    }
    return 0;
  }

  /** What worker processes will allocate with, and why ({@code WEFT_ALLOCATOR}). */
  private static String workersAllocator() {
    String choice = System.getenv().getOrDefault(dev.weft.launch.Allocator.ENV, "auto");
    try {
      String preload = dev.weft.launch.Allocator.workerEnv().get("LD_PRELOAD");
      return (preload == null ? "workers: the C library's malloc" : "workers: " + preload) + " (" + dev.weft.launch.Allocator.ENV + "=" + choice
          + (preload == null && choice.equals("auto") ? "; no jemalloc installed: apt-get install libjemalloc2 lowers a step's peak memory)" : ")");
    } catch (dev.weft.error.WeftException e) {
      return "NOT usable: " + e.getMessage();
    }
  }
}
