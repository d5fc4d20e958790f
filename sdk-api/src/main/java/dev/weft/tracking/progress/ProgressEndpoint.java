package dev.weft.tracking.progress;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where Kubeflow Trainer's TrainJob status server takes a run's progress (KEP-2779). The Trainer's
 * {@code TrainJobStatus} plugin (kubeflow/trainer, {@code pkg/runtime/framework/plugins/trainjobstatus/trainjobstatus.go})
 * injects these three variables into every trainer container when the controller's {@code TrainJobStatus} feature gate is
 * on: the HTTPS URL of {@code POST /apis/trainer.kubeflow.org/v1alpha1/namespaces/NS/trainjobs/NAME/status}, the path of
 * the CA certificate that signed the server's certificate, and the path of a projected service-account token (an
 * audience of the TrainJob's own, rotated by the kubelet: read it again for every request). Both files are mounted under
 * {@code /var/run/secrets/kubeflow/trainer}.
 */
public record ProgressEndpoint(URI url, Path caCert, Path token) {
  public static final String URL_ENV = "KUBEFLOW_TRAINER_SERVER_URL";
  public static final String CA_CERT_ENV = "KUBEFLOW_TRAINER_SERVER_CA_CERT";
  public static final String TOKEN_ENV = "KUBEFLOW_TRAINER_SERVER_TOKEN";
  /** Set to {@code off} to report nothing although the Trainer injected the endpoint. */
  public static final String OFF_ENV = "WEFT_TRAINJOB_PROGRESS";
  private static final Logger log = LoggerFactory.getLogger(ProgressEndpoint.class);

  /** The endpoint {@code env} names; empty when it names none, when it is switched off, or when it is incomplete. */
  public static Optional<ProgressEndpoint> fromEnv(Map<String, String> env) {
    String url = blankToNull(env.get(URL_ENV));
    if (url == null) return Optional.empty();
    if ("off".equalsIgnoreCase(String.valueOf(env.get(OFF_ENV)).trim())) {
      log.info("TrainJob progress not reported: {}=off", OFF_ENV);
      return Optional.empty();
    }
    String ca = blankToNull(env.get(CA_CERT_ENV));
    String token = blankToNull(env.get(TOKEN_ENV));
    URI uri;
    try {
      uri = URI.create(url.trim());
    } catch (IllegalArgumentException e) {
      uri = null;
    }
    if (ca == null || token == null || uri == null || !"https".equals(uri.getScheme())) {
      log.warn("TrainJob progress not reported: {} is set but {} and {} must name files and the URL must be https; "
          + "check the Trainer's TrainJobStatus feature", URL_ENV, CA_CERT_ENV, TOKEN_ENV);
      return Optional.empty();
    }
    return Optional.of(new ProgressEndpoint(uri, Path.of(ca.trim()), Path.of(token.trim())));
  }

  private static String blankToNull(String s) { return s == null || s.isBlank() ? null : s; }
}
