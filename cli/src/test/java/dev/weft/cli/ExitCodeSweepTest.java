package dev.weft.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import dev.weft.testing.WeftCli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 41 item 5, the exit codes of docs/guide.md's table: every subcommand given a missing file, a directory where a
 * file goes (or a file where a directory goes), and an out-of-range number ends in one {@code weft:} line, exit 2, no
 * stack trace. Every subcommand {@code weft --help} lists must have its cases here (a new one fails the first test);
 * the extension commands have theirs in their modules (sdk-s3: FetchLinksTest, FetchTest; sdk-k8s: K8sExitCodesTest).
 */
class ExitCodeSweepTest {
  @TempDir static Path dir;
  private static String spec, ckpt, folder, tokens, badNpy, missing;

  @BeforeAll
  static void fixtures() throws Exception {
    Path s = dir.resolve("s.yaml");
    Files.writeString(s, "name: t\nmodel:\n  config: {layers: 1, hidden: 32, heads: 2}\ndata: {seqLen: 16}\n"
        + "train: {steps: 2, globalBatch: 4, warmup: 1}\ncheckpoint: {every: 2}\n");
    spec = s.toString();
    Path ck = dir.resolve("ck");
    Trainer.model("gpt").set("model.config.layers", 1).set("model.config.hidden", 32).set("model.config.heads", 2)
        .seqLen(16).globalBatch(4).steps(2).warmup(1).checkpointEvery(2).checkpointDir(ck).runDir(dir.resolve("run")).fit();
    ckpt = ck.resolve("step-000002").toString();
    folder = Files.createDirectories(dir.resolve("a-directory")).toString();
    Path npy = dir.resolve("tokens.npy");
    dev.weft.data.Npy.write(npy, dev.weft.data.TokenWidth.UINT16, new int[200]);
    tokens = npy.toString();
    Path bad = dir.resolve("bad.npy");
    Files.write(bad, "\u0093NUMPY\u0001\u0000\u0010\u0000{garbage     }\n".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
    badNpy = bad.toString();
    missing = dir.resolve("no-such-file").toString();
  }

  private static String out(String name) { return dir.resolve("out-" + name).toString(); }

  /** Each subcommand's cases: a missing file, a directory for a file (or the reverse), an out-of-range number. */
  private static Map<String, List<String[]>> cases() {
    Map<String, List<String[]>> c = new LinkedHashMap<>();
    c.put("train", List.of(a("train", missing), a("train", folder), a("train", spec, "--nproc", "-1"),
        a("train", spec, "--set", "data.source=" + badNpy, "--run-dir", out("bad-npy")), a("train", spec, "--set", "train.steps=0"),
        a("train", spec, "--run-dir", spec), a("train", spec, "--resume", spec, "--run-dir", out("resume-file"))));
    c.put("plan", List.of(a("plan", missing), a("plan", folder), a("plan", spec, "--set", "train.steps=-5")));
    c.put("worker", List.of(a("worker", "--spec", missing), a("worker", "--spec", folder), a("worker", "--spec", spec, "--timeout", "-5")));
    // standby: started by an agent, which it waits for on stdin (EOF halts its JVM: not in this one); not a user's command
    c.put("standby", List.of());
    c.put("doctor", List.<String[]>of(a("doctor", "--no-such-option"))); // takes no file and no number
    c.put("report", List.of(a("report", missing), a("report", spec), a("report", dir.resolve("run").toString(), "--out", spec)));
    c.put("checkpoint inspect", List.of(a("checkpoint", "inspect", missing), a("checkpoint", "inspect", spec)));
    c.put("checkpoint consolidate", List.of(a("checkpoint", "consolidate", "-o", out("c.safetensors"), missing),
        a("checkpoint", "consolidate", "-o", folder, ckpt), a("checkpoint", "consolidate", "-o", out("c2.safetensors"), spec)));
    c.put("checkpoint export", List.of(a("checkpoint", "export", "--format", "hf", "-o", out("e1"), missing),
        a("checkpoint", "export", "--format", "hf", "-o", out("e2"), spec),
        a("checkpoint", "export", "--format", "hf", "--max-shard-size", "-5", "-o", out("e3"), ckpt),
        a("checkpoint", "export", "--format", "hf", "-o", spec, ckpt)));
    c.put("model init", List.of(a("model", "init", "--like", missing, "--out", out("m1")), a("model", "init", "--like", folder, "--out", out("m2")),
        a("model", "init", "--like", "gpt2", "--max-shard-size", "0", "--out", out("m3"))));
    c.put("bench", List.of(a("bench", "--out", folder, "comm", "--quick"), a("bench", "no-such-bench")));
    c.put("data prepare", List.of(a("data", "prepare", "--input", missing, "--tokenizer", "bytes", "--out", out("d1")),
        a("data", "prepare", "--input", folder, "--tokenizer", "bytes", "--out", out("d2")),
        a("data", "prepare", "--input", spec, "--tokenizer", "bytes", "--shard-tokens", "0", "--out", out("d3")),
        a("data", "prepare", "--input", spec, "--tokenizer", "bytes", "--out", spec)));
    c.put("eval", List.of(a("eval", ckpt, "--data", missing + ".npy", "--seq-len", "8"), a("eval", folder, "--data", tokens, "--seq-len", "8"),
        a("eval", ckpt, "--data", tokens, "--seq-len", "100000"), a("eval", ckpt, "--data", tokens, "--seq-len", "64"),
        a("eval", ckpt, "--data", badNpy, "--seq-len", "8"), a("eval", missing, "--data", tokens, "--seq-len", "8")));
    c.put("generate", List.of(a("generate", missing, "--prompt-ids", "1", "--max-new-tokens", "2"),
        a("generate", folder, "--prompt-ids", "1", "--max-new-tokens", "2"),
        a("generate", ckpt, "--prompt-ids", "1", "--max-new-tokens", "-1")));
    c.put("lineage", List.of(a("lineage", missing), a("lineage", spec), a("lineage", "--diff", folder)));
    return c;
  }

  private static String[] a(String... args) { return args; }

  /** Every leaf subcommand of {@code weft}, as "checkpoint inspect" (help aside). */
  private static void leaves(CommandLine cl, String prefix, TreeSet<String> out) {
    for (Map.Entry<String, CommandLine> e : cl.getSubcommands().entrySet()) {
      if (e.getKey().equals("help") || !e.getValue().getCommandName().equals(e.getKey())) continue; // aliases once
      String name = prefix.isEmpty() ? e.getKey() : prefix + " " + e.getKey();
      if (e.getValue().getSubcommands().isEmpty()) out.add(name);
      else leaves(e.getValue(), name, out);
    }
  }

  @Test
  void everySubcommandHasItsCases() {
    TreeSet<String> all = new TreeSet<>();
    leaves(WeftMain.commandLine(), "", all);
    assertThat(cases().keySet()).containsExactlyInAnyOrderElementsOf(all);
  }

  @Test
  void everyMistakeIsOneLineAndExitTwo() {
    List<String> wrong = new ArrayList<>();
    for (Map.Entry<String, List<String[]>> e : cases().entrySet()) {
      for (String[] args : e.getValue()) {
        WeftCli.Run r = WeftCli.run(args);
        boolean ok = r.code() == 2 && r.err().lines().count() == 1 && r.err().startsWith("weft: ") && !r.err().contains("Exception")
            && !r.err().contains("\tat ");
        if (!ok) wrong.add(String.join(" ", args) + " -> exit " + r.code() + ": " + r.err());
      }
    }
    assertThat(wrong).as(String.join("\n", wrong)).isEmpty();
  }
}
