package dev.weft.data;

import dev.weft.error.BadInputException;
import dev.weft.error.WeftException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * NumPy's {@code .npy} format (versions 1–3) for token arrays: the header is a Python dict literal
 * ({@code descr}, {@code fortran_order}, {@code shape}) parsed here; the data follows it.
 */
public final class Npy {
  private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};

  private Npy() {}

  /** What the header says: element type, flattened length, and where the data starts. */
  public record Header(TokenWidth width, long[] shape, long dataOffset) {
    public long count() {
      long n = 1;
      for (long d : shape) n = Math.multiplyExact(n, d);
      return n;
    }
  }

  static TokenArray open(Path file) {
    Header h = readHeader(file);
    return new MappedTokens(file, h.dataOffset(), h.count(), h.width());
  }

  public static Header readHeader(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      byte[] pre = in.readNBytes(8);
      if (pre.length < 8 || !java.util.Arrays.equals(java.util.Arrays.copyOf(pre, 6), MAGIC)) {
        throw new BadInputException(file + " is not a NumPy .npy file (no \\x93NUMPY magic); save it with numpy.save");
      }
      int major = pre[6];
      if (major < 1 || major > 3) throw new BadInputException(file + ": .npy version " + major + " is unknown; save it with numpy.save");
      int lenBytes = major == 1 ? 2 : 4;
      ByteBuffer lb = ByteBuffer.wrap(in.readNBytes(lenBytes)).order(ByteOrder.LITTLE_ENDIAN);
      long len = major == 1 ? Short.toUnsignedInt(lb.getShort()) : Integer.toUnsignedLong(lb.getInt());
      byte[] text = in.readNBytes((int) len);
      if (text.length < len) throw new BadInputException(file + ": .npy header is truncated");
      String dict = new String(text, major == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
      return parse(file, dict, 8 + lenBytes + len);
    } catch (IOException e) {
      throw new WeftException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  private static Header parse(Path file, String dict, long dataOffset) {
    Map<String, Object> m;
    try {
      m = new Literal(dict).dict();
    } catch (IllegalArgumentException e) {
      throw new BadInputException(file + ": cannot parse the .npy header (" + e.getMessage() + ")");
    }
    Object descr = m.get("descr"), fortran = m.get("fortran_order"), shape = m.get("shape");
    if (!(descr instanceof String d) || !(fortran instanceof Boolean f) || !(shape instanceof List<?> s)) {
      throw new BadInputException(file + ": the .npy header lacks descr, fortran_order or shape");
    }
    TokenWidth w = switch (d.replace('=', '<').replace("<u1", "|u1")) {
      case "|u1" -> TokenWidth.UINT8;
      case "<u2" -> TokenWidth.UINT16;
      case "<i4" -> TokenWidth.INT32;
      case "<u4" -> TokenWidth.UINT32;
      default -> throw new BadInputException(file + " holds " + d + "; token ids must be little-endian uint16 or int32 (or uint8/uint32) "
          + "(numpy: arr.astype('<u2') or arr.astype('<i4'))");
    };
    long[] dims = s.stream().mapToLong(o -> (Long) o).toArray();
    if (f && dims.length > 1) {
      throw new BadInputException(file + " is in Fortran order; save a C-ordered array (numpy.ascontiguousarray)");
    }
    return new Header(w, dims, dataOffset);
  }

  /** Writes {@code tokens} as a 1-D {@code .npy} file of the given width. */
  public static void write(Path file, TokenWidth width, int[] tokens) {
    try (OutputStream out = Files.newOutputStream(file)) {
      out.write(header(width, tokens.length));
      ByteBuffer b = ByteBuffer.allocate(tokens.length * width.bytes).order(ByteOrder.LITTLE_ENDIAN);
      for (int t : tokens) width.write(b, t);
      out.write(b.array());
    } catch (IOException e) {
      throw new WeftException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  /** A version-1 header for a 1-D array of {@code count} tokens, padded to 64 bytes as NumPy does. */
  public static byte[] header(TokenWidth width, long count) {
    String dict = "{'descr': '" + width.npyDescr + "', 'fortran_order': False, 'shape': (" + count + ",), }";
    int total = (10 + dict.length() + 1 + 63) / 64 * 64;
    String padded = dict + " ".repeat(total - 10 - dict.length() - 1) + "\n";
    ByteBuffer b = ByteBuffer.allocate(total).order(ByteOrder.LITTLE_ENDIAN);
    b.put(MAGIC).put((byte) 1).put((byte) 0).putShort((short) padded.length());
    b.put(padded.getBytes(StandardCharsets.ISO_8859_1));
    return b.array();
  }

  /** The subset of Python literals a .npy header uses: dict, tuple, str, int, True/False. */
  private static final class Literal {
    private final String s;
    private int at;

    Literal(String s) { this.s = s; }

    Map<String, Object> dict() {
      Object v = value();
      if (!(v instanceof Map<?, ?> m)) throw new IllegalArgumentException("not a dict");
      @SuppressWarnings("unchecked") Map<String, Object> r = (Map<String, Object>) m;
      return r;
    }

    private Object value() {
      skip();
      if (at >= s.length()) throw new IllegalArgumentException("ends early");
      char c = s.charAt(at);
      if (c == '{') return map();
      if (c == '(' || c == '[') return seq(c == '(' ? ')' : ']');
      if (c == '\'' || c == '"') return str(c);
      if (s.startsWith("True", at)) { at += 4; return true; }
      if (s.startsWith("False", at)) { at += 5; return false; }
      int start = at;
      while (at < s.length() && (Character.isDigit(s.charAt(at)) || s.charAt(at) == '-')) at++;
      if (start == at) throw new IllegalArgumentException("unexpected '" + c + "' at " + start);
      String num = s.substring(start, at);
      if (at < s.length() && s.charAt(at) == 'L') at++;
      return Long.parseLong(num);
    }

    private Map<String, Object> map() {
      Map<String, Object> m = new HashMap<>();
      at++;
      while (true) {
        skip();
        if (peek('}')) return m;
        Object k = value();
        skip();
        expect(':');
        m.put(String.valueOf(k), value());
        skip();
        if (!peek(',')) { skip(); expect('}'); return m; }
      }
    }

    private List<Object> seq(char close) {
      List<Object> l = new ArrayList<>();
      at++;
      while (true) {
        skip();
        if (peek(close)) return l;
        l.add(value());
        skip();
        if (!peek(',')) { skip(); expect(close); return l; }
      }
    }

    private String str(char q) {
      int end = s.indexOf(q, at + 1);
      if (end < 0) throw new IllegalArgumentException("unterminated string");
      String r = s.substring(at + 1, end);
      at = end + 1;
      return r;
    }

    private boolean peek(char c) {
      if (at < s.length() && s.charAt(at) == c) { at++; return true; }
      return false;
    }

    private void expect(char c) {
      if (!peek(c)) throw new IllegalArgumentException("expected '" + c + "' at " + at);
    }

    private void skip() { while (at < s.length() && Character.isWhitespace(s.charAt(at))) at++; }
  }
}
