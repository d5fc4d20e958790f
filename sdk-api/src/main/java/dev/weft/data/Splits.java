package dev.weft.data;

/**
 * What one data source gives training: samples to train on and held-out samples to evaluate on
 * ({@code validation} is null when {@code data.validation} is 0).
 */
public record Splits(TokenSource train, TokenSource validation) {}
