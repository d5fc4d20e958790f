package dev.weft.k8s.trainer;

import dev.weft.k8s.render.WorkerPod;
import dev.weft.k8s.spec.K8sSpec;
import java.util.List;

/**
 * The shell lines a Weft runtime's containers run ({@code /bin/sh -c SCRIPT NAME ARGS...}): a runtime is installed
 * once and serves TrainJobs of any {@code numNodes}, so what depends on the TrainJob is worked out in the pod.
 * The scripts contain no {@code $(NAME)} that Kubernetes would expand: only the shell reads the variables.
 */
public final class RuntimeScripts {
  /** Where the spec and the run directory go: $TMPDIR, else the scratch volume (the root file system is read-only). */
  static final String SCRATCH = "\"${TMPDIR:-" + WorkerPod.SCRATCH_PATH + "}\"";
  /** The variable that carries the spec into the pod (a ClusterTrainingRuntime cannot reference a ConfigMap). */
  public static final String SPEC_ENV = "WEFT_SPEC";

  private RuntimeScripts() {}

  /** {@code /bin/sh -c SCRIPT NAME}: a TrainJob's {@code trainer.args} become the script's {@code "$@"}. */
  public static List<String> command(String script, String name) { return List.of("/bin/sh", "-c", script, name); }

  /**
   * The trainer node: writes the spec, takes processes per node from PET_NPROC_PER_NODE when it is a number (Trainer
   * sends "auto" when the TrainJob sets neither numProcPerNode nor resourcesPerNode) and data parallelism from
   * PET_NNODES × that / (tp × pp), then runs {@code weft worker} (with {@code --set} of each of {@code overrides}) with the
   * TrainJob's args appended.
   */
  public static String node(K8sSpec ks, List<String> overrides) {
    int group = ks.spec().parallel().tp() * ks.spec().parallel().pp();
    return String.join("\n",
        "set -eu",
        "printf '%s\\n' \"$" + SPEC_ENV + "\" > " + SCRATCH + "/spec.yaml",
        "n=\"${PET_NPROC_PER_NODE:-}\"",
        "case \"$n\" in ''|*[!0-9]*) n=" + ks.procsPerNode() + " ;; esac",
        "export WEFT_NPROC_PER_NODE=\"$n\"",
        "dp=`expr \"${PET_NNODES:-1}\" \\* \"$n\" / " + group + "`",
        "exec weft worker --spec " + SCRATCH + "/spec.yaml --run-dir " + SCRATCH + "/run --set parallel.dp=\"$dp\""
            + overrides.stream().map(o -> " --set " + o).collect(java.util.stream.Collectors.joining()) + " \"$@\"",
        "");
  }

  /** An initializer: fetches STORAGE_URI (set by Trainer from the TrainJob) into {@code dir}. */
  public static String fetch(String what, String dir) {
    return String.join("\n",
        "set -eu",
        "if [ -z \"${STORAGE_URI:-}\" ]; then",
        "  echo \"error: spec.initializer." + what + ".storageUri: not set; give the TrainJob the " + what
            + " (s3://BUCKET/PREFIX or a path on the workspace volume)\" >&2",
        "  exit 2",
        "fi",
        "exec weft fetch \"$STORAGE_URI\" " + dir,
        "");
  }

  /**
   * The dataset initializer of a fine-tuning runtime: fetches the chat data, then tokenizes every .jsonl, .json and
   * .parquet file under it with the model's tokenizer and chat template into {@code tokens} (a fresh directory).
   */
  public static String fetchAndPrepareChat(String datasetDir, String modelDir, String tokens) {
    String fetch = fetch("dataset", datasetDir).replace("exec weft fetch", "weft fetch");
    return fetch + String.join("\n",
        "set -- `find " + datasetDir + " -type f \\( -name '*.jsonl' -o -name '*.json' -o -name '*.parquet' \\) | sort`",
        "if [ \"$#\" -eq 0 ]; then",
        "  echo \"error: spec.initializer.dataset.storageUri: no .jsonl, .json or .parquet file arrived in " + datasetDir
            + "; point it at chat data\" >&2",
        "  exit 2",
        "fi",
        "rm -rf " + tokens,
        "exec weft data prepare --format chat --tokenizer " + modelDir + " --input \"$@\" --out " + tokens,
        "");
  }
}
