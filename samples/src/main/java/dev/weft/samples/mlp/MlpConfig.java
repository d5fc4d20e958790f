package dev.weft.samples.mlp;

/** Sizes of the sample model. A record: the typed form of {@code model.config}. */
public record MlpConfig(int vocab, int hidden, int layers, int expansion) {
  public static MlpConfig tiny() { return new MlpConfig(256, 32, 4, 4); }
}
