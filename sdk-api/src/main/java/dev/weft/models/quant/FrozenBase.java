package dev.weft.models.quant;

import dev.weft.models.Layers;
import dev.weft.models.Parameters.Param;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * A LoRA run's frozen weights held compressed ({@code train.lora.quantize}): the projections in NF4, int8 or 16 bits,
 * the token embedding and head in 16 bits ({@link #table}). Each weight is compressed from the file's tensor as the
 * load reads it ({@link #compressFrom}: no fp32 copy of it ever exists; {@link #compressAll} for what was drawn, not
 * loaded) and its fp32 parameter released (it keeps its name and shape, holding no elements). A projection then
 * multiplies by its weight made again per call in the product's dtype (fp32, or under a 16-bit autocast that dtype,
 * never whole in fp32), in the forward and in the backward ({@link RecomputedLinear}); a table's rows are gathered or
 * made a block at a time.
 */
public final class FrozenBase {
  /** How the frozen weights are held. */
  public enum Format {
    NONE, NF4, NF4_DQ, INT8, BF16, FP16;

    /** {@code spelling} of {@code train.lora.quantize} ("" or "none": fp32; {@code nf4-dq}: NF4 with nested scales). */
    public static Format of(String spelling) {
      return spelling == null || spelling.isBlank() ? NONE : valueOf(spelling.toUpperCase(java.util.Locale.ROOT).replace('-', '_'));
    }
  }

  private final Format format;
  private final Map<String, Slot> slots = new LinkedHashMap<>();

  public FrozenBase(Format format) { this.format = format; }

  public Format format() { return format; }

  /** One frozen weight: its parameter until compressed, then its compressed form ({@code held}). */
  private final class Slot {
    final Param param;
    final Format held;
    Nf4.Quantized nf4;
    Int8.Quantized int8;
    Tensor half;
    long[] shape;

    Slot(Param param, Format held) {
      this.param = param;
      this.held = held;
    }

    boolean compressed() { return nf4 != null || int8 != null || half != null; }

    void compress() { compress(param.tensor()); }

    /** Compresses {@code w} (this weight's value: the parameter's own, or the file's tensor as read) and releases the fp32 parameter. */
    void compress(Tensor w) {
      if (compressed() || held == Format.NONE) return;
      try (NoGradGuard ng = new NoGradGuard()) {
        shape = w.sizes().vec().get();
        // kept out of the PointerScope around the load's read: they outlive it
        switch (held) {
          case NF4, NF4_DQ -> {
            Nf4.Quantized q = Nf4.quantize(w, param.name());
            nf4 = (held == Format.NF4_DQ ? Nf4.nest(q) : q).retained();
          }
          case INT8 -> {
            Int8.Quantized q = Int8.quantize(w, param.name());
            int8 = new Int8.Quantized(kept(q.q()), kept(q.scale()), q.shape());
          }
          default -> half = kept(converted(w, held == Format.FP16 ? ScalarType.Half : ScalarType.BFloat16));
        }
        param.tensor().set_(); // the fp32 storage released (never written when loaded): the parameter stays registered, with no elements
        org.bytedeco.javacpp.Pointer.trimMemory(); // and its pages handed back, not kept in malloc's free lists
      }
    }

    /** {@code w} in {@code type}, a copy of its own (a file's tensor of that type is its memory map: copied, not kept). */
    private Tensor converted(Tensor w, ScalarType type) {
      return w.scalar_type().value == type.value ? w.contiguous().clone() : w.to(type).contiguous();
    }

    /**
     * {@code t} outliving the PointerScope it was made in (the load's, around each copy): a reference of our own, held
     * for the model's life.
     */
    private Tensor kept(Tensor t) {
      if (t.referenceCount() > 0) t.retainReference();
      return t;
    }

    /** Elements {@link #weightInto} may write (NF4 writes whole blocks). */
    long room() { return nf4 != null ? Nf4.paddedLength(nf4) : numel(); }

    long numel() { return compressed() ? product(shape) : param.tensor().numel(); }

    /** The weight's shape (kept when compressed, the parameter's own before). */
    long[] shape() { return compressed() ? shape : param.tensor().sizes().vec().get(); }

    /** The weight in fp32, flat, written into the start of {@code out} (at least {@link #room} elements). */
    Tensor weightInto(Tensor out) {
      if (nf4 != null) return Nf4.dequantizeInto(nf4, out);
      if (int8 != null) return Int8.dequantizeInto(int8, out);
      Tensor mine = out.narrow(0, 0, numel());
      mine.copy_((half != null ? half : param.tensor()).reshape(-1));
      return mine;
    }

    /**
     * The weight, flat, written into {@code out} (exactly its elements, a 16-bit dtype): an NF4 or int8 weight made in
     * fp32 a piece at a time in {@code scratch} and rounded from there, as a whole fp32 weight would be, element by
     * element; a 16-bit one copied (another 16-bit dtype: through fp32, as every conversion is).
     */
    void halfInto(Tensor out, Tensor scratch) {
      try (org.bytedeco.javacpp.PointerScope scope = new org.bytedeco.javacpp.PointerScope()) {
        if (nf4 != null) {
          long n = numel();
          Nf4.inPieces(nf4, (from, count) -> {
            long len = Math.min(count * Nf4.BLOCK, n - from * Nf4.BLOCK);
            Nf4.dequantizeBlocksInto(nf4, from, count, scratch);
            out.narrow(0, from * Nf4.BLOCK, len).copy_(scratch.narrow(0, 0, len));
          });
        } else if (int8 != null) {
          long rows = int8.q().size(0), cols = int8.q().size(1), step = Math.max(1, scratch.numel() / cols);
          for (long r = 0; r < rows; r += step) {
            long count = Math.min(step, rows - r);
            Int8.dequantizeRowsInto(int8, r, count, scratch);
            out.narrow(0, r * cols, count * cols).copy_(scratch.narrow(0, 0, count * cols));
          }
        } else {
          out.copy_((half != null ? half : param.tensor()).reshape(-1));
        }
      }
    }

    /** fp32 elements {@link #halfInto} needs in its scratch: a piece of NF4 blocks, at least one int8 row. */
    long scratchRoom() { return int8 != null ? Math.max(PIECE, int8.q().size(1)) : PIECE; }

    long bytes() {
      if (nf4 != null) return nf4.bytes();
      if (int8 != null) return int8.bytes();
      if (half != null) return 2 * half.numel();
      return 4 * param.tensor().numel();
    }
  }

  /** The projection over the frozen weights {@code ws} (outputs side by side) and biases {@code bs} (none, or one each). */
  public Layers.Linear linear(List<Param> ws, List<Tensor> bs) {
    List<Slot> mine = ws.stream().map(p -> slots.computeIfAbsent(p.name(), n -> new Slot(p, format))).toList();
    // biases stay fp32 parameters (loaded in place after this is built): concatenated per call
    java.util.function.Supplier<Tensor> bias = bs.isEmpty() ? null : bs.size() == 1 ? () -> bs.get(0)
        : () -> torch.cat(new TensorVector(bs.toArray(new Tensor[0])));
    return new RecomputedLinear(type -> made(mine, type), bias);
  }

  /**
   * The weight of {@code mine} (outputs side by side: their rows one after the other) in {@code type}, made in this
   * base's one buffer of that dtype. Every call of every projection writes there, so the made weights cost no allocation per call: a new fp32
   * weight per forward and per backward, each freed at once, left glibc's heap fragmented and the step's peak as high
   * as an fp32 base's. A projection uses its weight only within its call (forward, or the backward's dX) and calls
   * never overlap on one rank, so one buffer serves them all; the rows of each slot follow the previous one's, which
   * an NF4 slot's block padding may overwrite before that next slot is written.
   */
  private Tensor made(List<Slot> mine, ScalarType type) {
    if (mine.size() == 1 && !mine.get(0).compressed()) return mine.get(0).param.tensor();
    long room = 0, rows = 0, numel = 0;
    for (Slot s : mine) {
      room = Math.max(room, numel + s.room());
      numel += s.numel();
      rows += s.shape()[0];
    }
    long[] shape = mine.get(0).shape().clone();
    shape[0] = rows;
    boolean half = type.value == ScalarType.BFloat16.value || type.value == ScalarType.Half.value;
    if (half) {
      // a 16-bit product: the held weight itself where it is one slot held in that very dtype; else made in that dtype
      // in a buffer of its own, never whole in fp32 (an fp32 weight of the largest fused projection beside the 16-bit
      // one was 35 MB at Qwen2.5-0.5B, 470 MB at Llama-3.1-8B)
      Slot only = mine.size() == 1 ? mine.get(0) : null;
      if (only != null && only.half != null && only.half.scalar_type().value == type.value) return only.half;
      Tensor out = buffer16(type, numel);
      long at = 0;
      for (Slot s : mine) {
        s.halfInto(out.narrow(0, at, s.numel()), scratch(s.scratchRoom()));
        at += s.numel();
      }
      return out.narrow(0, 0, numel).view(shape);
    }
    Tensor out = buffer(room);
    long at = 0;
    for (Slot s : mine) {
      s.weightInto(out.narrow(0, at, out.numel() - at));
      at += s.numel();
    }
    return out.narrow(0, 0, numel).view(shape);
  }

  private static long product(long[] shape) {
    long n = 1;
    for (long d : shape) n *= d;
    return n;
  }

  /** fp32 elements a 16-bit product's weight is made in at a time (4 MB): NF4's piece of blocks. */
  static final long PIECE = Nf4.PIECE_BLOCKS * Nf4.BLOCK;

  private Tensor scratch; // a piece of a 16-bit product's weight in fp32

  private Tensor scratch(long room) {
    if (scratch == null || scratch.numel() < room) {
      if (scratch != null) scratch.releaseReference();
      scratch = dev.weft.util.Tensors.empty(ScalarType.Float, room);
      scratch.retainReference(); // held for the model's life, as the buffers
    }
    return scratch;
  }

  private Tensor buffer; // the made weights' room, grown to the largest projection's
  private Tensor buffer16; // the same in the 16-bit dtype products run in under autocast

  private Tensor buffer16(ScalarType type, long room) {
    if (buffer16 == null || buffer16.numel() < room || buffer16.scalar_type().value != type.value) {
      if (buffer16 != null) buffer16.releaseReference();
      buffer16 = dev.weft.util.Tensors.empty(type, room);
      buffer16.retainReference(); // held for the model's life, as the fp32 buffer
    }
    return buffer16;
  }

  private Tensor buffer(long room) {
    if (buffer == null || buffer.numel() < room) {
      if (buffer != null) buffer.releaseReference();
      buffer = dev.weft.util.Tensors.empty(ScalarType.Float, room);
      buffer.retainReference(); // held for the model's life, past whatever PointerScope the first call runs in
    }
    return buffer;
  }

  /**
   * The frozen table {@code p} [rows, dim] (the token embedding, an untied head, or both when tied): held in 16 bits
   * under every compressed base (fp16 under {@code fp16}, else bf16, as QLoRA keeps them), its rows gathered or made in
   * fp32 a block at a time, never the whole fp32 table. At Llama-3.1-8B's vocabulary an fp32 table is 2.1 GB, more than
   * half its NF4 projections.
   */
  public Table table(Param p) {
    if (format == Format.NONE) throw new IllegalStateException("an fp32 base holds its tables as parameters");
    return new Table(slots.computeIfAbsent(p.name(), n -> new Slot(p, format == Format.FP16 ? Format.FP16 : Format.BF16)));
  }

  /**
   * Rows of a table made in fp32 per call: at most this many elements (8 MiB; a 16-bit product needs no fp32 buffer
   * otherwise), within the projections' buffer under fp32 compute.
   */
  static final long TABLE_BLOCK_ELEMENTS = 1L << 21;

  /** A frozen table: the embedding's row gather and the head's weight, made a block of rows at a time. */
  public final class Table implements dev.weft.models.ChunkedCrossEntropy.MadeRows {
    private final Slot slot;

    private Table(Slot slot) { this.slot = slot; }

    private Tensor held() { return slot.compressed() ? slot.half : slot.param.tensor(); }

    @Override public long rows() { return slot.shape()[0]; }

    private long dim() { return slot.shape()[1]; }

    @Override public long blockRows() { return Math.max(1, Math.min(rows(), TABLE_BLOCK_ELEMENTS / dim())); }

    /** The rows of {@code ids} in fp32: the embedding's lookup (each row converted, exactly, from its 16 bits). */
    public Tensor gather(Tensor ids) {
      Tensor rows = torch.embedding(held(), ids);
      return rows.scalar_type() == ScalarType.Float ? rows : rows.to(ScalarType.Float);
    }

    @Override
    public Tensor rows(long from, long n, ScalarType type) {
      // held in the product's dtype: the rows themselves, not made in fp32 and rounded back
      if (slot.compressed() && slot.half.scalar_type().value == type.value) return slot.half.narrow(0, from, n);
      return dev.weft.models.ChunkedCrossEntropy.MadeRows.super.rows(from, n, type);
    }

    @Override
    public Tensor rows(long from, long n) {
      if (!slot.compressed()) return slot.param.tensor().narrow(0, from, n);
      Tensor out = buffer(n * dim()).narrow(0, 0, n * dim()).view(n, dim());
      return out.copy_(slot.half.narrow(0, from, n));
    }

    /**
     * Full logits of {@code h} [..., dim]: made a block at a time without a gradient; with one (GRPO's policy
     * log-probabilities) over the whole table made in fp32 for this call (correct; as large as an fp32 head).
     */
    public Tensor logits(Tensor h) {
      long[] shape = h.sizes().vec().get();
      shape[shape.length - 1] = rows();
      if (org.bytedeco.pytorch.GradMode.is_enabled() && h.requires_grad()) {
        return torch.linear(h, held().to(ScalarType.Float), new org.bytedeco.pytorch.TensorOptional());
      }
      return dev.weft.models.ChunkedCrossEntropy.logits(h.reshape(-1, dim()), this).view(shape);
    }
  }

  /** Whether {@code name} is one of the weights held here. */
  public boolean holds(String name) { return slots.containsKey(name); }

  /** Compresses {@code p} if it is one of these weights (after it holds its value). */
  public void compress(Param p) {
    Slot s = slots.get(p.name());
    if (s != null) s.compress();
  }

  /** {@link dev.weft.models.hf.PretrainedWeights.Taker}: compresses {@code p} from {@code value} (the file's tensor as read) if it is held here. */
  public boolean compressFrom(Param p, Tensor value) {
    Slot s = slots.get(p.name());
    if (s == null || s.held == Format.NONE) return false;
    s.compress(value);
    return true;
  }

  /** Compresses every weight not yet compressed. */
  public void compressAll() { slots.values().forEach(Slot::compress); }

  /** Bytes the frozen projection weights hold now. */
  public long bytes() { return slots.values().stream().mapToLong(Slot::bytes).sum(); }
}
