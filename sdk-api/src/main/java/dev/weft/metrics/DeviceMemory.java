package dev.weft.metrics;

/**
 * A rank's accelerator memory as its caching allocator counts it (CUDA: {@code allocated_bytes} and
 * {@code reserved_bytes} of the device's stats), in bytes: held by live tensors, reserved from the driver (cached
 * blocks included), and the peak of allocated since the process started. Absent on CPU.
 */
public record DeviceMemory(String device, long allocated, long reserved, long peakAllocated) {}
