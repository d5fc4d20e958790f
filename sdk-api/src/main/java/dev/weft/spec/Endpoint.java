package dev.weft.spec;

import java.util.regex.Pattern;

/** {@code HOST:PORT} of the rendezvous store. */
public record Endpoint(String host, int port) {
  private static final Pattern NUMERIC = Pattern.compile("[0-9.]+");
  private static final Pattern LABEL = Pattern.compile("[A-Za-z0-9_]([-A-Za-z0-9_]{0,61}[A-Za-z0-9_])?");
  private static final Pattern OCTET = Pattern.compile("25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9]");

  public static Endpoint parse(String s) { return parse(s, "rendezvous endpoint"); }

  /** {@code where} names the flag or field in the error, e.g. "elastic.rdzvEndpoint". */
  public static Endpoint parse(String s, String where) {
    int colon = s == null ? -1 : s.lastIndexOf(':');
    if (colon <= 0) throw new SpecException(where, "'" + s + "' is not HOST:PORT, e.g. 127.0.0.1:29400");
    int port;
    try {
      port = Integer.parseInt(s.substring(colon + 1).trim());
      if (port < 1 || port > 65535) throw new NumberFormatException();
    } catch (NumberFormatException e) {
      throw new SpecException(where, "'" + s + "' has no valid port (1-65535) after ':'");
    }
    return new Endpoint(requireHost(s.substring(0, colon).trim(), where), port);
  }

  /**
   * {@code host} when it can name a machine: an IPv4 address (each part 0-255), an IPv6 literal (bare or in
   * brackets) or a host name of letters, digits, '-' and '_'. Checked here, before anything listens or
   * connects, so {@code 999.1.1.1} is refused naming its field instead of failing later in every worker.
   */
  public static String requireHost(String host, String where) {
    if (host == null || host.isBlank()) throw new SpecException(where, "the host is empty; give an address or host name, e.g. 127.0.0.1");
    if (validHost(host)) return host;
    throw new SpecException(where, "'" + host + "' is not an IPv4 address (four parts 0-255), an IPv6 address or a host name");
  }

  private static boolean validHost(String h) {
    if (h.startsWith("[") && h.endsWith("]")) return validIpv6(h.substring(1, h.length() - 1));
    if (h.contains(":")) return validIpv6(h);
    if (NUMERIC.matcher(h).matches()) {
      String[] parts = h.split("\\.", -1);
      if (parts.length != 4) return false;
      for (String p : parts) if (!OCTET.matcher(p).matches()) return false;
      return true;
    }
    if (h.length() > 253) return false;
    for (String label : h.split("\\.", -1)) if (!LABEL.matcher(label).matches()) return false;
    return true;
  }

  private static boolean validIpv6(String h) {
    if (!h.matches("[0-9A-Fa-f:.]+(%[\\w.-]+)?") || !h.contains(":")) return false;
    try {
      return java.net.InetAddress.getByName(h) instanceof java.net.Inet6Address; // a literal: parsed, never looked up
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }

  @Override public String toString() { return host + ":" + port; }
}
