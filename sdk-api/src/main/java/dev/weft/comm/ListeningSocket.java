package dev.weft.comm;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.stream.Stream;

/**
 * A listening TCP socket bound to one address by this JVM, handed to libtorch's TCPStore server by
 * its file descriptor ({@code TCPStoreOptions.masterListenFd}): libtorch itself always listens on
 * every interface. Java does not expose a socket's descriptor, so it is found on Linux by the
 * socket's inode ({@code /proc/net/tcp*} → {@code /proc/self/fd}). The channel is kept open for the
 * life of the process (the store serves until then), so the descriptor is never closed under it.
 */
final class ListeningSocket {
  private static final List<ServerSocketChannel> KEPT = new ArrayList<>();

  private ListeningSocket() {}

  /** The descriptor of a socket listening on {@code addr:port}, or empty where this cannot be done (not Linux). */
  static synchronized OptionalInt bind(InetAddress addr, int port) throws IOException {
    if (!Files.isDirectory(Path.of("/proc/self/fd"))) return OptionalInt.empty();
    ServerSocketChannel ch = ServerSocketChannel.open();
    try {
      ch.bind(new InetSocketAddress(addr, port), 512);
      long inode = listeningInode(addr, port);
      OptionalInt fd = inode < 0 ? OptionalInt.empty() : descriptorOf(inode);
      if (fd.isEmpty()) {
        ch.close();
        return fd;
      }
      KEPT.add(ch);
      return fd;
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  /** The inode of the socket listening on {@code addr:port} in /proc/net/tcp or tcp6; -1 if none. */
  private static long listeningInode(InetAddress addr, int port) throws IOException {
    String portHex = String.format(Locale.ROOT, ":%04X", port);
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      Path p = Path.of(table);
      if (!Files.isReadable(p)) continue;
      for (String line : Files.readAllLines(p)) {
        String[] f = line.trim().split("\\s+");
        // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
        if (f.length > 9 && f[1].endsWith(portHex) && "0A".equals(f[3]) && isAddress(f[1], addr)) {
          return Long.parseLong(f[9]);
        }
      }
    }
    return -1;
  }

  /** {@code local} ("HEX:PORT" of /proc/net/tcp*) is {@code addr}, also as an IPv4-mapped IPv6 address (Java's sockets are dual-stack). */
  static boolean isAddress(String local, InetAddress addr) {
    String hex = local.substring(0, local.indexOf(':'));
    String mine = hexAddress(addr);
    return hex.equals(mine) || (mine.length() == 8 && hex.equals("0000000000000000FFFF0000" + mine));
  }

  /** An address as /proc/net/tcp writes it: the 32-bit words of the address in host (little-endian) order. */
  static String hexAddress(InetAddress addr) {
    byte[] b = addr.getAddress();
    StringBuilder s = new StringBuilder();
    for (int w = 0; w < b.length; w += 4) {
      for (int i = 3; i >= 0; i--) s.append(String.format(Locale.ROOT, "%02X", b[w + i] & 0xff));
    }
    return s.toString();
  }

  private static OptionalInt descriptorOf(long inode) throws IOException {
    String target = "socket:[" + inode + "]";
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      for (Path fd : fds.toList()) {
        try {
          if (target.equals(Files.readSymbolicLink(fd).toString())) return OptionalInt.of(Integer.parseInt(fd.getFileName().toString()));
        } catch (IOException | NumberFormatException e) {
          // closed between listing and reading, or not a descriptor: not ours
        }
      }
    }
    return OptionalInt.empty();
  }
}
