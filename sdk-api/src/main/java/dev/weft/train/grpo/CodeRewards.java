package dev.weft.train.grpo;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Rewards given as Java objects in the DSL ({@code .reward(fn)}): the spec names them {@code code:N}, and a run in
 * this JVM ({@code fit()}) finds them here. Worker processes ({@code launch}) cannot: they need a class name.
 */
public final class CodeRewards {
  public static final String PREFIX = "code:";
  private static final Map<String, RewardFunction> REGISTERED = new ConcurrentHashMap<>();
  private static final AtomicLong NEXT = new AtomicLong();

  private CodeRewards() {}

  /** The spec name under which {@code fn} is found. */
  public static String register(RewardFunction fn) {
    String name = PREFIX + NEXT.incrementAndGet();
    REGISTERED.put(name, fn);
    return name;
  }

  static RewardFunction find(String name) { return REGISTERED.get(name); }
}
