package dev.weft.spec;

/**
 * Training data. {@code source} is {@code arithmetic} (a learnable synthetic corpus that ships with
 * Weft) or a path to a UTF-8 text file ({@code file:PATH} or a plain path). Tokens are bytes.
 */
public record DataSpec(String source, int seqLen) {}
