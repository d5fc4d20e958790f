package dev.weft.tracking.progress;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.attribute.FileTime;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Posts a {@link TrainerStatus} to the TrainJob status server over HTTPS, trusting exactly the injected CA (not the
 * JVM's defaults) and sending the projected token as a bearer token, read from its file for every request because
 * the kubelet rotates it. A CA file that changes (the Trainer syncs a rotated CA into its ConfigMap) is loaded again.
 * Every call ends within {@code deadline}: connect, TLS handshake and response together.
 */
final class ProgressClient implements ProgressReporter.Poster {
  private final ProgressEndpoint endpoint;
  private final Duration deadline;
  private HttpClient client;
  private FileTime caLoaded;

  ProgressClient(ProgressEndpoint endpoint, Duration deadline) {
    this.endpoint = endpoint;
    this.deadline = deadline;
  }

  @Override
  public void post(TrainerStatus status) throws IOException {
    String token = Files.readString(endpoint.token()).strip();
    HttpRequest req = HttpRequest.newBuilder(endpoint.url()).timeout(deadline)
        .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(status.requestBody())).build();
    var pending = client().sendAsync(req, HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> resp;
    try {
      resp = pending.get(deadline.toMillis(), TimeUnit.MILLISECONDS); // also bounds a handshake that never ends
    } catch (TimeoutException e) {
      pending.cancel(true);
      throw new IOException("no answer within " + deadline.toSeconds() + " s");
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      throw c instanceof IOException io ? io : new IOException(String.valueOf(c), c);
    } catch (InterruptedException e) {
      pending.cancel(true);
      Thread.currentThread().interrupt();
      throw new IOException("interrupted");
    }
    if (resp.statusCode() / 100 != 2) {
      String body = resp.body() == null ? "" : resp.body().strip();
      throw new IOException("HTTP " + resp.statusCode() + (body.isEmpty() ? "" : ": " + body.substring(0, Math.min(200, body.length()))));
    }
  }

  @Override
  public void prepare() throws IOException { client(); }

  private HttpClient client() throws IOException {
    FileTime modified = Files.getLastModifiedTime(endpoint.caCert());
    if (client == null || !modified.equals(caLoaded)) {
      client = HttpClient.newBuilder().connectTimeout(deadline).sslContext(trusting()).build();
      caLoaded = modified;
    }
    return client;
  }

  /** A TLS context whose only trust anchors are the certificates of the CA file. */
  private SSLContext trusting() throws IOException {
    try (InputStream in = Files.newInputStream(endpoint.caCert())) {
      KeyStore anchors = KeyStore.getInstance(KeyStore.getDefaultType());
      anchors.load(null, null);
      int i = 0;
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) anchors.setCertificateEntry("ca" + i++, c);
      if (i == 0) throw new IOException("no certificate in " + endpoint.caCert());
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(anchors);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx;
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot read the CA certificate " + endpoint.caCert() + ": " + e.getMessage(), e);
    }
  }
}
