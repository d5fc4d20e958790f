package dev.weft.cuda.check;

import dev.weft.Trainer;
import dev.weft.comm.Communicator;
import dev.weft.comm.SoloCommunicator;
import dev.weft.cuda.CudaMemory;
import dev.weft.cuda.nccl.Nccl;
import dev.weft.cuda.nccl.NcclComm;
import dev.weft.cuda.nccl.NcclCommunicator;
import dev.weft.data.PreferenceShards;
import dev.weft.data.ShardWriter;
import dev.weft.eval.Generation;
import dev.weft.metrics.DeviceMemory;
import dev.weft.models.CausalLm;
import dev.weft.models.LanguageModel;
import dev.weft.plan.MemoryPlan;
import dev.weft.train.ModelBuilder;
import dev.weft.train.Placement;
import dev.weft.train.RunResult;
import dev.weft.util.Tensors;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * The fine-tuning paths on the device, each against the same run on the CPU where a CPU run is affordable: a
 * Llama-3.2-1B-shaped decoder (GQA, RoPE with llama3 scaling, SwiGLU, tied embeddings) in bf16 (agreement on a small
 * shape; step time and MFU at seq 2048), LoRA under bf16 autocast and on a base held in bf16 and in nf4
 * ({@code train.lora.quantize}: agreement on the small shape, step time and peak memory against {@code weft plan} on the
 * 1B shape), chunked cross-entropy ({@code train.lossChunk}) at vocab 128,256, a chat-masked SFT step, a DPO step, a
 * one-rank NCCL all-to-all through the {@code Communicator}, and KV-cache generation's tokens/s. {@link Target#tiny()}
 * walks every step on the CPU with tiny shapes (the suite runs it), so a broken step is found before a device is lent.
 */
final class FineTuneCheck {
  /** fp32 on both sides: only reduction order differs. */
  static final double FP32_TOLERANCE = 2e-3;
  /** bf16 autocast on the device against fp32 on the CPU. */
  static final double BF16_TOLERANCE = 3e-2;
  static final String QUANTIZE = "train.lora.quantize";
  static final String LOSS_CHUNK = "train.lossChunk";
  private static final Duration WAIT = Duration.ofSeconds(120);

  private final Target target;
  private final TrainingRunCheck runs;
  private final Path work;

  FineTuneCheck(Target target, TrainingRunCheck runs) {
    this.target = target;
    this.runs = runs;
    this.work = runs.work();
  }

  /** The steps in the order they run, each with its planned seconds on one H100/H200. */
  List<Step> steps() {
    return List.of(
        new Step("llama-3.2-1b-shaped decoder: " + target.device() + " vs cpu on a small shape", 25, this::decoderAgreement),
        new Step("all-to-all through the communicator, one rank", 10, this::allToAll),
        new Step("chat-masked sft and dpo", 25, this::chatAndDpo),
        new Step("lora on the small shape: bf16 autocast, a bf16 base, an nf4 base", 30, this::loraAgreement),
        new Step("chunked cross-entropy at vocab " + bigVocab(), 25, () -> List.of(chunkedLoss())),
        new Step("llama-3.2-1b shape, bf16, seq " + bigSeq() + ": step time and MFU", 40, () -> List.of(decoderSpeed())),
        new Step("lora r16 on a bf16 llama-3.2-1b-shaped base, seq " + bigSeq(), 35,
            () -> List.of(speed("lora r16, bf16 base (" + QUANTIZE + ": bf16), 1b shape, bf16 autocast, seq " + bigSeq(), "lora-bf16-1b",
                quantizedOneB("bf16")))),
        new Step("lora r16 on an nf4 llama-3.2-1b-shaped base, seq " + bigSeq(), 60,
            () -> List.of(speed("lora r16, nf4 base (" + QUANTIZE + ": nf4), 1b shape, bf16 autocast, seq " + bigSeq(), "lora-nf4-1b",
                quantizedOneB("nf4")))),
        new Step("kv-cache generation", 40, () -> List.of(generation())));
  }

  // ---- shapes: the Llama-3.2-1B architecture, small or tiny for the comparisons -------------------------------------

  private int bigSeq() { return target.dry() ? 32 : 2048; }

  private int bigVocab() { return target.dry() ? 1024 : 128_256; }

  /** Llama 3.2's architecture at the given sizes: GQA, RoPE θ=500000 with llama3 scaling (factor 32), SwiGLU, tied. */
  static Trainer llama(int hidden, int intermediate, int layers, int heads, int kvHeads, int vocab) {
    return Trainer.model("llama").set("model.config.hidden_size", hidden).set("model.config.intermediate_size", intermediate)
        .set("model.config.num_hidden_layers", layers).set("model.config.num_attention_heads", heads)
        .set("model.config.num_key_value_heads", kvHeads).set("model.config.head_dim", hidden / heads)
        .set("model.config.vocab_size", vocab).set("model.config.tie_word_embeddings", true)
        .set("model.config.rope_theta", 500000.0).set("model.config.max_position_embeddings", 131072)
        .set("model.config.rope_scaling", Map.of("rope_type", "llama3", "factor", 32.0, "low_freq_factor", 1.0,
            "high_freq_factor", 4.0, "original_max_position_embeddings", 8192))
        .set("model.config.hidden_act", "silu");
  }

  /** The small shape every CPU comparison runs (a CPU run of it takes seconds). */
  private Trainer small() {
    Trainer t = target.dry() ? llama(64, 176, 2, 4, 2, 256).seqLen(16).globalBatch(4).steps(2)
        : llama(256, 704, 4, 8, 2, 2048).seqLen(128).globalBatch(8).steps(4);
    return t.warmup(1).lr(1e-3).seed(5);
  }

  /** Llama-3.2-1B's sizes (1.24 B parameters): hidden 2048, 16 layers, 32 query and 8 key/value heads, vocab 128,256. */
  private Trainer oneB() {
    Trainer t = target.dry() ? llama(64, 176, 2, 4, 2, bigVocab()).globalBatch(2).steps(2)
        : llama(2048, 8192, 16, 32, 8, 128_256).globalBatch(4).steps(6).warmup(2);
    return t.seqLen(bigSeq()).lr(1e-4).seed(1).precision("bf16").device(target.device());
  }

  // ---- steps -------------------------------------------------------------------------------------------------------

  private List<CheckResult> decoderAgreement() {
    RunResult cpu = runs.run("llama-cpu", small().device("cpu").toSpec());
    return List.of(
        compare("llama small fp32: " + target.device() + " vs cpu losses", "llama-fp32", small(), cpu, FP32_TOLERANCE),
        compare("llama small bf16 autocast on " + target.device() + " vs fp32 cpu", "llama-bf16", small().precision("bf16"), cpu,
            BF16_TOLERANCE));
  }

  private CheckResult decoderSpeed() {
    return speed("llama-1b-shaped bf16 seq " + bigSeq(), "llama-1b", oneB());
  }

  /**
   * LoRA r16 on the small shape against the CPU: under bf16 autocast (an fp32 base), and on a base held in bf16 and in
   * nf4 ({@code train.lora.quantize}; the same rounded base on both sides, so fp32 agreement).
   */
  private List<CheckResult> loraAgreement() {
    List<CheckResult> out = new ArrayList<>();
    RunResult cpu = runs.run("lora-cpu", lora(small()).device("cpu").toSpec());
    out.add(compare("lora r16, bf16 autocast: " + target.device() + " vs fp32 cpu", "lora-autocast",
        lora(small()).precision("bf16"), cpu, BF16_TOLERANCE));
    for (String base : List.of("bf16", "nf4")) {
      Supplier<Trainer> t = () -> lora(small()).set(QUANTIZE, base);
      RunResult baseCpu = runs.run("lora-" + base + "-cpu", t.get().device("cpu").toSpec());
      out.add(compare("lora r16 on " + ("nf4".equals(base) ? "an " : "a ") + base + " base: " + target.device() + " vs cpu", "lora-" + base, t.get(), baseCpu, FP32_TOLERANCE));
    }
    return out;
  }

  private static Trainer lora(Trainer t) { return t.lora(16, 32); }

  /** LoRA r16 on the 1B shape with its base held as {@code base}, bf16 autocast; 3 steps (the base is made again per call). */
  private Trainer quantizedOneB(String base) {
    return lora(oneB()).set(QUANTIZE, base).steps(target.dry() ? 2 : 3).warmup(1);
  }

  /** The head and loss in chunks at Llama 3's vocabulary against the plain loss: same losses, less peak memory. */
  private CheckResult chunkedLoss() {
    int chunk = target.dry() ? 8 : 1024;
    Supplier<Trainer> plain = () -> (target.dry() ? llama(64, 176, 2, 4, 2, bigVocab()).seqLen(32).globalBatch(2).steps(2)
        : llama(512, 1408, 2, 8, 2, bigVocab()).seqLen(1024).globalBatch(4).steps(3)).warmup(1).lr(1e-3).seed(9)
        .device(target.device());
    Supplier<Trainer> chunked = () -> plain.get().set(LOSS_CHUNK, chunk);
    String name = "chunked cross-entropy, vocab " + bigVocab() + ", chunk " + chunk + " tokens, vs the whole logits";
    CudaMemory.resetPeak(target.rankDevice());
    RunResult whole = runs.run("loss-whole", plain.get().toSpec());
    CheckResult same = compare(name, "loss-chunked", chunked.get(), whole, FP32_TOLERANCE);
    return CheckResult.of(same.name(), same.passed(), same.detail() + "; peak without chunks " + peak(whole));
  }

  private List<CheckResult> chatAndDpo() {
    Path chat = work.resolve("chat-shards"), pairs = work.resolve("pair-shards");
    int vocab = target.dry() ? 256 : 2048, seq = target.dry() ? 16 : 128;
    writeChat(chat, vocab, seq);
    writePairs(pairs, vocab, seq);
    Supplier<Trainer> sft = () -> small().data(chat.toString());
    RunResult sftCpu = runs.run("sft-cpu", sft.get().device("cpu").toSpec());
    Supplier<Trainer> dpo = () -> small().data("preference:" + pairs).dpo(0.1).lora(8, 16);
    RunResult dpoCpu = runs.run("dpo-cpu", dpo.get().device("cpu").toSpec());
    CheckResult dpoRun = compare("dpo (beta 0.1, lora r8): " + target.device() + " vs cpu", "dpo", dpo.get(), dpoCpu, FP32_TOLERANCE);
    double first = dpoCpu.losses().get(0);
    return List.of(
        compare("chat-masked sft (assistant tokens only): " + target.device() + " vs cpu", "sft", sft.get(), sftCpu, FP32_TOLERANCE),
        CheckResult.of(dpoRun.name(), dpoRun.passed() && Math.abs(first - Math.log(2)) < 1e-5,
            dpoRun.detail() + String.format("; step 1 loss %.6f (log 2 = %.6f: the policy starts as the reference)", first, Math.log(2))));
  }

  /** A one-rank round trip (bf16, one split) and an equal-split exchange of known fp32 values. */
  private List<CheckResult> allToAll() {
    List<CheckResult> out = new ArrayList<>();
    try (Communicator c = oneRank(); PointerScope scope = new PointerScope()) {
      Tensor in = torch.randn(37, 64).to(ScalarType.BFloat16), got = torch.zeros(37, 64).to(ScalarType.BFloat16);
      Tensor din = target.rankDevice().place(in), dout = target.rankDevice().place(got);
      c.allToAll(dout, din, new long[] {37}, new long[] {37});
      double diff = Tensors.onHost(dout).to(ScalarType.Float).sub(in.to(ScalarType.Float)).abs().max().item_double();
      out.add(CheckResult.of("allToAll round trip on " + c.name() + ", bf16 [37, 64]", diff == 0, "max difference " + diff));
      Tensor known = torch.arange(new Scalar(4 * 16)).to(ScalarType.Float).reshape(4, 16);
      Tensor back = target.rankDevice().place(torch.full(new long[] {4, 16}, new Scalar(-1f)));
      c.allToAll(back, target.rankDevice().place(known), new long[] {4}, new long[] {4});
      double bad = Tensors.onHost(back).sub(known).abs().max().item_double();
      out.add(CheckResult.of("allToAll equal splits of known values (0..63 in [4, 16])", bad == 0, "max difference " + bad));
    } catch (RuntimeException e) {
      out.add(CheckResult.threw("allToAll on one rank", e));
    }
    return out;
  }

  /** NCCL's communicator on the device (Weft's NCCL shim); on a dry run the one-rank stand-in the CPU backend uses. */
  private Communicator oneRank() {
    if (target.dry()) return new SoloCommunicator("solo");
    NcclComm comm = NcclComm.init("gpu-check-a2a", Nccl.uniqueId(), 0, 1, WAIT);
    return new NcclCommunicator("nccl[0]", 0, 1, WAIT, comm, target.rankDevice());
  }

  /** Greedy tokens/s over a KV cache, the 1B shape's weights on the device (fp32: as a trained model comes back). */
  private CheckResult generation() {
    int prompt = target.dry() ? 8 : 128, fresh = target.dry() ? 8 : 128;
    try (PointerScope scope = new PointerScope()) {
      LanguageModel m = ModelBuilder.whole(oneB().toSpec());
      Placement.moveParameters(m.parameters().list(), target.rankDevice());
      long[] ids = new SplittableRandom(3).longs(prompt, 0, bigVocab()).toArray();
      Generation.generate((CausalLm) m, ids, 4, Generation.Sampling.GREEDY, new long[0]); // warm-up
      long t0 = System.nanoTime();
      long[] out = Generation.generate((CausalLm) m, ids, fresh, Generation.Sampling.GREEDY, new long[0]);
      double s = (System.nanoTime() - t0) / 1e9;
      return CheckResult.of("kv-cache generation, llama-1b shape fp32, prompt " + prompt + ", greedy", out.length == fresh,
          String.format("%d new tokens in %.2f s = %.1f tokens/s (prompt included in the time)", out.length, s, out.length / s));
    } catch (RuntimeException e) {
      return CheckResult.threw("kv-cache generation", e);
    }
  }

  // ---- parts -------------------------------------------------------------------------------------------------------

  /** {@code t} on the target against {@code cpu}'s losses, step by step; on CUDA also the device memory figures. */
  private CheckResult compare(String name, String dir, Trainer t, RunResult cpu, double tolerance) {
    try {
      CudaMemory.resetPeak(target.rankDevice());
      RunResult r = runs.run(dir, t.device(target.device()).toSpec());
      double worst = 0;
      for (int i = 0; i < cpu.losses().size(); i++) {
        worst = Math.max(worst, Math.abs(r.losses().get(i) - cpu.losses().get(i)) / Math.abs(cpu.losses().get(i)));
      }
      DeviceMemory m = r.summary().memory().device();
      boolean memory = target.dry() || m != null && m.peakAllocated() > 0;
      return CheckResult.of(name, worst <= tolerance && memory && r.losses().size() == cpu.losses().size(), String.format(
          "max relative difference %.2e over %d steps (tolerance %.0e); step %.1f ms vs %.1f ms on the cpu; peak %s",
          worst, cpu.losses().size(), tolerance, r.summary().stepMsMedian(), cpu.summary().stepMsMedian(), peak(r)));
    } catch (RuntimeException e) {
      return CheckResult.threw(name, e);
    }
  }

  /** Step time, tokens/s, MFU against the measured bf16 peak, and peak device memory against {@code weft plan}. */
  private CheckResult speed(String name, String dir, Trainer t) {
    try {
      CudaMemory.resetPeak(target.rankDevice());
      RunResult r = runs.run(dir, t.toSpec());
      double flops = r.summary().modelFlopsPerS(), mfu = flops / (TorchCudaCheck.PEAK_BF16_TFLOPS * 1e12);
      boolean finite = r.losses().stream().allMatch(Double::isFinite);
      return CheckResult.of(name, finite, String.format(
          "%,d parameters, median step %.1f ms, %.0f tokens/s, %.1f TFLOP/s = MFU %.1f%% of %.0f; peak %s vs weft plan %s",
          r.summary().parameters(), r.summary().stepMsMedian(), r.summary().tokensPerS(), flops / 1e12, 100 * mfu,
          TorchCudaCheck.PEAK_BF16_TFLOPS, peak(r), planned(t)));
    } catch (RuntimeException e) {
      return CheckResult.threw(name, e);
    }
  }

  private String peak(RunResult r) {
    DeviceMemory m = r.summary().memory().device();
    if (m != null) return gib(m.peakAllocated()) + " device";
    return target.dry() ? gib(r.summary().memory().peakRss()) + " rss" : "MISSING from summary.json";
  }

  private static String planned(Trainer t) {
    try {
      return MemoryPlan.ranks(t.toSpec()).map(l -> gib(l.get(0).total())).orElse("(no plan for this spec)");
    } catch (RuntimeException e) {
      return "(plan failed: " + e.getMessage() + ")";
    }
  }

  private static String gib(double bytes) { return String.format("%.2f GiB", bytes / (1L << 30)); }

  /** Chat-like documents: a prompt (not a target) then an answer (targets), a few per shard. */
  private static void writeChat(Path dir, int vocab, int seq) {
    SplittableRandom r = new SplittableRandom(17);
    try (ShardWriter w = new ShardWriter(dir, vocab, "gpu-check", -1, 1 << 16, true)) {
      for (int d = 0; d < 64; d++) {
        int promptLen = 2 + r.nextInt(seq / 2), answerLen = 2 + r.nextInt(seq / 2);
        int[] ids = r.ints(promptLen + answerLen, 1, vocab).toArray();
        boolean[] flags = new boolean[ids.length];
        for (int i = promptLen; i < ids.length; i++) flags[i] = true;
        w.append(ids, flags);
        w.endDocument();
      }
      w.finish();
    }
  }

  /** Preference pairs sharing a prompt, each answer's tokens its targets. */
  private static void writePairs(Path dir, int vocab, int seq) {
    SplittableRandom r = new SplittableRandom(23);
    try (PreferenceShards.Writer w = new PreferenceShards.Writer(dir, vocab, "gpu-check", 1 << 16)) {
      for (int p = 0; p < 32; p++) {
        int[] prompt = r.ints(2 + r.nextInt(seq / 3), 1, vocab).toArray();
        w.pair(answer(r, prompt, vocab, seq), targets(prompt.length, seq), answer(r, prompt, vocab, seq), targets(prompt.length, seq));
      }
      w.finish();
    }
  }

  private static int[] answer(SplittableRandom r, int[] prompt, int vocab, int seq) {
    int[] ids = r.ints(seq / 2, 1, vocab).toArray();
    System.arraycopy(prompt, 0, ids, 0, prompt.length);
    return ids;
  }

  private static boolean[] targets(int promptLen, int seq) {
    boolean[] f = new boolean[seq / 2];
    for (int i = promptLen; i < f.length; i++) f[i] = true;
    return f;
  }
}
