package dev.weft.bench;

import static org.bytedeco.pytorch.global.torch.cross_entropy_loss;
import static org.bytedeco.pytorch.global.torch.scaled_dot_product_attention;

import dev.weft.data.Batches;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.DoubleOptional;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptional;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

/**
 * The step benchmark's reference: a GPT or a Llama written directly on libtorch, as a user would write one by hand,
 * without any of Weft's model classes. q, k and v (and SwiGLU's gate and up) are one fused weight, one matmul and a
 * split; LoRA adds each adapter to its own projection's output over frozen base weights. It shares with Weft only the
 * sizes, so it also sees what Weft's layer composition costs.
 */
final class PlainModel {
  /** The sizes of a benchmark shape; {@code llama} false is the reference GPT (LayerNorm, GELU, learned positions). */
  record Shape(String name, boolean llama, int layers, int hidden, int heads, int kvHeads, int ffn, int vocab, int seqLen,
               int batch, int loraRank) {
    int headDim() { return hidden / heads; }
  }

  private static final long MEAN = 1; // at::Reduction::Mean
  private final Shape s;
  private final List<Tensor> trainable = new ArrayList<>();
  private final Tensor tok, pos, finalW, finalB, head, cos, sin;
  private final List<Block> blocks = new ArrayList<>();
  private final double loraScale;

  PlainModel(Shape s, long seed) {
    this.s = s;
    torch.manual_seed(seed);
    boolean frozen = s.loraRank() > 0;
    this.loraScale = frozen ? 2.0 : 0; // alpha 2r, as the Weft side's lora(r, 2r)
    long h = s.hidden();
    tok = param(frozen, s.vocab(), h);
    pos = s.llama() ? null : param(frozen, s.seqLen(), h);
    for (int i = 0; i < s.layers(); i++) blocks.add(new Block(frozen));
    finalW = ones(frozen, h);
    finalB = s.llama() ? null : zeros(frozen, h);
    head = param(frozen, s.vocab(), h);
    if (s.llama()) {
      long half = s.headDim() / 2;
      Tensor inv = torch.arange(new Scalar(0), new Scalar(half)).to(torch.ScalarType.Float).mul(new Scalar(-2.0 / s.headDim()))
          .mul(new Scalar(Math.log(10000.0))).exp();
      Tensor angles = torch.arange(new Scalar(0), new Scalar(s.seqLen())).to(torch.ScalarType.Float).unsqueeze(1).mul(inv.unsqueeze(0));
      Tensor both = torch.cat(new TensorVector(angles, angles), -1);
      cos = both.cos();
      sin = both.sin();
    } else {
      cos = sin = null;
    }
  }

  /** The parameters the optimizer updates (the adapters only, under LoRA). */
  TensorVector trainable() { return new TensorVector(trainable.toArray(new Tensor[0])); }

  /** Mean cross-entropy of {@code tokens} [B, T] predicting {@code targets}. */
  Tensor loss(Tensor tokens, Tensor targets) {
    Tensor x = torch.embedding(tok, tokens);
    if (pos != null) x = x.add(torch.embedding(pos, torch.arange(new Scalar(0), new Scalar(tokens.size(1)))));
    for (Block b : blocks) x = b.forward(x);
    Tensor logits = torch.linear(norm(x, finalW, finalB), head, new TensorOptional());
    return cross_entropy_loss(logits.view(-1, s.vocab()), targets.reshape(-1), new TensorOptional(), MEAN, Batches.IGNORE, 0.0);
  }

  private final class Block {
    final Tensor n1, n1b, qkv, qkvB, o, oB, n2, n2b, up, upB, down, downB;
    final Adapter[] qkvA, upA;
    final Adapter oA, downA;
    final long[] qkvSizes, upSizes;

    Block(boolean frozen) {
      long h = s.hidden(), q = h, kv = (long) s.kvHeads() * s.headDim(), f = s.ffn();
      boolean gpt = !s.llama();
      n1 = ones(frozen, h);
      n1b = gpt ? zeros(frozen, h) : null;
      qkvSizes = new long[] {q, kv, kv};
      qkv = param(frozen, q + 2 * kv, h);
      qkvB = gpt ? zeros(frozen, q + 2 * kv) : null;
      o = param(frozen, h, q);
      oB = gpt ? zeros(frozen, h) : null;
      n2 = ones(frozen, h);
      n2b = gpt ? zeros(frozen, h) : null;
      upSizes = gpt ? new long[] {f} : new long[] {f, f};
      up = param(frozen, gpt ? f : 2 * f, h);
      upB = gpt ? zeros(frozen, f) : null;
      down = param(frozen, h, f);
      downB = gpt ? zeros(frozen, h) : null;
      qkvA = frozen ? new Adapter[] {new Adapter(h, q), new Adapter(h, kv), new Adapter(h, kv)} : null;
      upA = frozen ? new Adapter[] {new Adapter(h, f), new Adapter(h, f)} : null;
      oA = frozen ? new Adapter(q, h) : null;
      downA = frozen ? new Adapter(f, h) : null;
    }

    Tensor forward(Tensor x) {
      long b = x.size(0), t = x.size(1), d = s.headDim();
      Tensor[] qkvs = project(norm(x, n1, n1b), qkv, qkvB, qkvSizes, qkvA);
      Tensor q = qkvs[0].view(b, t, s.heads(), d).transpose(1, 2);
      Tensor k = qkvs[1].view(b, t, s.kvHeads(), d).transpose(1, 2);
      Tensor v = qkvs[2].view(b, t, s.kvHeads(), d).transpose(1, 2);
      if (s.llama()) {
        q = rotate(q);
        k = rotate(k);
      }
      Tensor att = scaled_dot_product_attention(q, k, v, new TensorOptional(), 0.0, true, new DoubleOptional(), s.kvHeads() != s.heads());
      x = x.add(adapted(torch.linear(att.transpose(1, 2).reshape(b, t, -1), o, opt(oB)), oA, att.transpose(1, 2).reshape(b, t, -1)));
      Tensor hn = norm(x, n2, n2b);
      Tensor[] ups = project(hn, up, upB, upSizes, upA);
      Tensor mid = s.llama() ? torch.silu(ups[0]).mul(ups[1]) : torch.gelu(ups[0]);
      return x.add(adapted(torch.linear(mid, down, opt(downB)), downA, mid));
    }

    /** One matmul over the fused weight, split into the projections; each adapter added to its own output. */
    private Tensor[] project(Tensor x, Tensor w, Tensor bias, long[] sizes, Adapter[] adapters) {
      Tensor y = torch.linear(x, w, opt(bias));
      Tensor[] parts = new Tensor[sizes.length];
      if (sizes.length == 1) parts[0] = y;
      else {
        TensorVector split = y.split(sizes, -1);
        for (int i = 0; i < parts.length; i++) parts[i] = split.get(i);
      }
      if (adapters != null) for (int i = 0; i < parts.length; i++) parts[i] = adapted(parts[i], adapters[i], x);
      return parts;
    }

    private Tensor adapted(Tensor y, Adapter a, Tensor x) { return a == null ? y : y.add(a.forward(x), new Scalar(loraScale)); }
  }

  /** B·A, A [r, in] drawn small, B [out, r] zero: as PEFT starts it. */
  private final class Adapter {
    final Tensor a, b;

    Adapter(long in, long out) {
      a = param(false, s.loraRank(), in);
      b = zeros(false, out, s.loraRank());
    }

    Tensor forward(Tensor x) { return torch.linear(torch.linear(x, a, new TensorOptional()), b, new TensorOptional()); }
  }

  private Tensor norm(Tensor x, Tensor w, Tensor b) {
    long[] shape = {s.hidden()};
    return s.llama() ? torch.rms_norm(x, shape, new TensorOptional(w), new DoubleOptional(1e-5))
        : torch.layer_norm(x, shape, new TensorOptional(w), opt(b), 1e-5, false);
  }

  /** Rotary positions on [B, heads, T, d]: x·cos + rotate_half(x)·sin. */
  private Tensor rotate(Tensor x) {
    long half = s.headDim() / 2;
    Tensor rotated = torch.cat(new TensorVector(x.narrow(3, half, half).neg(), x.narrow(3, 0, half)), 3);
    return x.mul(cos).add(rotated.mul(sin));
  }

  private static TensorOptional opt(Tensor t) { return t == null ? new TensorOptional() : new TensorOptional(t); }

  private Tensor param(boolean frozen, long... shape) { return register(frozen, torch.randn(shape).mul_(new Scalar(0.02))); }

  private Tensor ones(boolean frozen, long n) { return register(frozen, torch.ones(n)); }

  private Tensor zeros(boolean frozen, long... shape) { return register(frozen, torch.zeros(shape)); }

  private Tensor register(boolean frozen, Tensor t) {
    t.retainReference(); // the model lives as long as the process; no scope may free it
    if (frozen) return t;
    t.requires_grad_(true);
    trainable.add(t);
    return t;
  }
}
