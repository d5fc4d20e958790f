package dev.weft.metrics;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** This process's memory as the kernel counts it ({@code /proc/self/status}); 0 where that file does not exist. */
public final class ProcessMemory {
  private static final Path STATUS = Path.of("/proc/self/status");

  private ProcessMemory() {}

  /** Peak resident set size in bytes ({@code VmHWM}). */
  public static long peakRssBytes() { return field("VmHWM:"); }

  /** Current resident set size in bytes ({@code VmRSS}). */
  public static long rssBytes() { return field("VmRSS:"); }

  private static long field(String name) {
    try {
      for (String line : Files.readAllLines(STATUS)) {
        if (line.startsWith(name)) {
          String[] parts = line.substring(name.length()).trim().split("\\s+");
          return Long.parseLong(parts[0]) * 1024; // reported in kB
        }
      }
    } catch (IOException | RuntimeException e) {
      return 0;
    }
    return 0;
  }
}
