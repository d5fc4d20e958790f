package dev.weft.tracking.progress;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.text.SimpleDateFormat;
import java.util.Base64;
import java.util.Date;
import java.util.TimeZone;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A CA of the test's own (its certificate in a PEM file, as the Trainer mounts {@code ca.crt}) and a server key with a
 * certificate it signed for 127.0.0.1. The X.509 DER is written here (a few fields, ECDSA P-256) because forking
 * keytool seven times cost the class a dozen seconds on a loaded machine.
 */
record TestCa(Path caPem, KeyPair serverKey, X509Certificate[] serverChain) {
  private static final char[] PASS = "changeit".toCharArray();

  /** A fresh CA under {@code dir}, named {@code cn}, and a server certificate it signed. */
  static TestCa make(Path dir, String cn) throws Exception { return make(dir, cn, "localhost"); }

  /** As {@link #make(Path, String)}, the server certificate also naming {@code dnsName} (a Service's name). */
  static TestCa make(Path dir, String cn, String dnsName) throws Exception {
    KeyPair caKey = ecKey(), server = ecKey();
    X509Certificate ca = certificate(1, cn, cn, caKey.getPublic().getEncoded(), caKey.getPrivate(),
        ext(oid(2, 5, 29, 19), true, seq(bool(true))));                                  // basicConstraints cA
    X509Certificate leaf = certificate(2, "localhost", cn, server.getPublic().getEncoded(), caKey.getPrivate(),
        ext(oid(2, 5, 29, 17), false, seq(tlv(0x87, new byte[] {127, 0, 0, 1}), tlv(0x82, ascii("localhost")), tlv(0x82, ascii(dnsName))))); // SAN
    Path pem = dir.resolve(cn + ".crt");
    Files.writeString(pem, "-----BEGIN CERTIFICATE-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(ca.getEncoded())
        + "\n-----END CERTIFICATE-----\n");
    return new TestCa(pem, server, new X509Certificate[] {leaf, ca});
  }

  /** The server side's TLS: the CA-signed key and its chain. */
  SSLContext serverContext() throws Exception {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    ks.setKeyEntry("server", serverKey.getPrivate(), PASS, serverChain);
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(ks, PASS);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(kmf.getKeyManagers(), null, null);
    return ctx;
  }

  private static KeyPair ecKey() throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"));
    return g.generateKeyPair();
  }

  private static X509Certificate certificate(long serial, String subject, String issuer, byte[] publicKeyInfo, PrivateKey signer,
                                             byte[] extension) throws Exception {
    byte[] ecdsaSha256 = seq(oid(1, 2, 840, 10045, 4, 3, 2));
    long now = System.currentTimeMillis();
    byte[] tbs = seq(tlv(0xa0, integer(BigInteger.TWO)), integer(BigInteger.valueOf(serial)), ecdsaSha256, name(issuer),
        seq(time(new Date(now - 3_600_000)), time(new Date(now + 86_400_000))), name(subject), publicKeyInfo,
        tlv(0xa3, seq(extension)));
    Signature s = Signature.getInstance("SHA256withECDSA");
    s.initSign(signer);
    s.update(tbs);
    byte[] der = seq(tbs, ecdsaSha256, bitString(s.sign()));
    return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(der));
  }

  private static byte[] name(String cn) { return seq(tlv(0x31, seq(oid(2, 5, 4, 3), tlv(0x0c, cn.getBytes(StandardCharsets.UTF_8))))); }

  private static byte[] ext(byte[] oid, boolean critical, byte[] value) {
    return critical ? seq(oid, bool(true), tlv(0x04, value)) : seq(oid, tlv(0x04, value));
  }

  private static byte[] time(Date d) {
    SimpleDateFormat f = new SimpleDateFormat("yyMMddHHmmss'Z'");
    f.setTimeZone(TimeZone.getTimeZone("UTC"));
    return tlv(0x17, ascii(f.format(d)));
  }

  private static byte[] ascii(String s) { return s.getBytes(StandardCharsets.US_ASCII); }

  private static byte[] bool(boolean b) { return tlv(0x01, new byte[] {(byte) (b ? 0xff : 0)}); }

  private static byte[] integer(BigInteger v) { return tlv(0x02, v.toByteArray()); }

  private static byte[] bitString(byte[] bits) {
    byte[] b = new byte[bits.length + 1];
    System.arraycopy(bits, 0, b, 1, bits.length);
    return tlv(0x03, b);
  }

  private static byte[] oid(int... arcs) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(arcs[0] * 40 + arcs[1]);
    for (int i = 2; i < arcs.length; i++) {
      int v = arcs[i];
      int groups = 1;
      while ((v >>> (7 * groups)) != 0) groups++;
      for (int g = groups - 1; g >= 0; g--) out.write(((v >>> (7 * g)) & 0x7f) | (g > 0 ? 0x80 : 0));
    }
    return tlv(0x06, out.toByteArray());
  }

  private static byte[] seq(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) out.writeBytes(p);
    return tlv(0x30, out.toByteArray());
  }

  private static byte[] tlv(int tag, byte[] value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(tag);
    int n = value.length;
    if (n < 0x80) {
      out.write(n);
    } else {
      int bytes = n < 0x100 ? 1 : n < 0x10000 ? 2 : 3;
      out.write(0x80 | bytes);
      for (int i = bytes - 1; i >= 0; i--) out.write((n >>> (8 * i)) & 0xff);
    }
    out.writeBytes(value);
    return out.toByteArray();
  }
}
