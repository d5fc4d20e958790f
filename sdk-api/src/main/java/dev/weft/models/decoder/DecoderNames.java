package dev.weft.models.decoder;

/**
 * A family's tensor names, which are also the decoder's parameter names (so loading and exporting
 * a Hugging Face checkpoint is a copy). Layer names are {@code layerPrefix + i + "." + part}.
 */
public record DecoderNames(String embed, String positions, String layerPrefix, String inNorm, String q, String k, String v,
                           String o, String qNorm, String kNorm, String postNorm, String gate, String up, String down,
                           String finalNorm, String head) {
  /** Llama's names, which Qwen 2/3, Mistral, SmolLM2 and TinyLlama share. */
  public static final DecoderNames LLAMA = new DecoderNames("model.embed_tokens", "model.embed_positions", "model.layers.",
      "input_layernorm", "self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj", "self_attn.q_norm",
      "self_attn.k_norm", "post_attention_layernorm", "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj", "model.norm", "lm_head");

  public String layer(int i, String part) { return layerPrefix + i + "." + part; }
}
