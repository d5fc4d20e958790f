package dev.weft.spec;

import dev.weft.spec.SpecException;

/** {@code HOST:PORT} of the rendezvous store. */
public record Endpoint(String host, int port) {
  public static Endpoint parse(String s) { return parse(s, "rendezvous endpoint"); }

  /** {@code where} names the flag or field in the error, e.g. "elastic.rdzvEndpoint". */
  public static Endpoint parse(String s, String where) {
    int colon = s == null ? -1 : s.lastIndexOf(':');
    if (colon <= 0) throw new SpecException(where, "'" + s + "' is not HOST:PORT, e.g. 127.0.0.1:29400");
    try {
      int port = Integer.parseInt(s.substring(colon + 1).trim());
      if (port < 1 || port > 65535) throw new NumberFormatException();
      return new Endpoint(s.substring(0, colon).trim(), port);
    } catch (NumberFormatException e) {
      throw new SpecException(where, "'" + s + "' has no valid port (1-65535) after ':'");
    }
  }

  @Override public String toString() { return host + ":" + port; }
}
