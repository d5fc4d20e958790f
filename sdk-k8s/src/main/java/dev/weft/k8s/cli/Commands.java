package dev.weft.k8s.cli;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;

/** Exit codes shared by the subcommands: 0 ok, 1 cluster error, 2 bad spec or arguments. */
final class Commands {
  static final int OK = 0;
  static final int CLUSTER_ERROR = 1;
  static final int BAD_SPEC = 2;

  private Commands() {}

  /** Prints the render's warnings, one line each. */
  static void warn(PrintWriter err, dev.weft.k8s.render.Rendered r) {
    for (String w : r.warnings()) err.println("warning: " + w);
    err.flush();
  }

  /** Runs {@code body}; a bad spec or a refusal by the cluster becomes one line on {@code err}. */
  static int run(PrintWriter err, Callable<Integer> body) {
    try {
      return body.call();
    } catch (dev.weft.error.BadInputException e) { // a spec field, or any other input the user gave (SpecException is one)
      err.println("error: " + e.getMessage().replace('\n', ' '));
      return BAD_SPEC;
    } catch (KubernetesClientException e) {
      err.println("error: " + e.getMessage().replace('\n', ' '));
      return CLUSTER_ERROR;
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    } finally {
      err.flush();
    }
  }
}
