package dev.weft.s3;

import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.BlobStoreContext;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A real S3-compatible server on loopback for tests: S3Proxy over jclouds' in-memory blob store
 * (its filesystem store lists directories as objects, which S3 does not), on a free port, with V4 signatures checked against one key pair. While open, the
 * AWS system properties point the SDK (and so {@code checkpoint.dir: s3://...}) at it.
 */
final class S3Server implements AutoCloseable {
  static final String ACCESS = "weft-test-access";
  static final String SECRET = "weft-test-secret-value";
  private static final String[] PROPS = {"aws.endpointUrl", "aws.accessKeyId", "aws.secretAccessKey", "aws.region"};

  private final S3Proxy proxy;
  private final BlobStoreContext context;
  private final Map<String, String> saved = new HashMap<>();
  final URI endpoint;

  private S3Server(S3Proxy proxy, BlobStoreContext context, URI endpoint) {
    this.proxy = proxy;
    this.context = context;
    this.endpoint = endpoint;
  }

  static S3Server start(String... buckets) throws Exception { return start(UnaryOperator.identity(), buckets); }

  /** A server whose store is {@code wrap} of the in-memory one (a test that holds back or alters what is served). */
  static S3Server start(UnaryOperator<BlobStore> wrap, String... buckets) throws Exception {
    BlobStoreContext ctx = ContextBuilder.newBuilder("transient").credentials("local", "local").build(BlobStoreContext.class);
    for (String b : buckets) ctx.getBlobStore().createContainerInLocation(null, b);
    S3Proxy proxy = S3Proxy.builder().blobStore(wrap.apply(ctx.getBlobStore())).endpoint(URI.create("http://127.0.0.1:0"))
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS, SECRET).build();
    proxy.start();
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (!"STARTED".equals(proxy.getState())) {
      if (System.nanoTime() > deadline) throw new IllegalStateException("S3Proxy did not start in 60 s: " + proxy.getState());
      Thread.sleep(20);
    }
    S3Server s = new S3Server(proxy, ctx, URI.create("http://127.0.0.1:" + proxy.getPort()));
    s.point(s.endpoint.toString(), ACCESS, SECRET);
    return s;
  }

  /** Points the SDK's system properties at {@code endpoint} with these keys (restored by {@link #close}). */
  void point(String endpoint, String access, String secret) {
    String[] values = {endpoint, access, secret, "us-east-1"};
    for (int i = 0; i < PROPS.length; i++) {
      saved.putIfAbsent(PROPS[i], System.getProperty(PROPS[i]));
      System.setProperty(PROPS[i], values[i]);
    }
  }

  /** A client of this server, for a test to look at or damage objects directly. */
  S3Client client() { return S3StorageProvider.client(S3Settings.fromEnvironment()); }

  @Override
  public void close() throws Exception {
    saved.forEach((k, v) -> {
      if (v == null) System.clearProperty(k);
      else System.setProperty(k, v);
    });
    proxy.stop();
    context.close();
  }
}
