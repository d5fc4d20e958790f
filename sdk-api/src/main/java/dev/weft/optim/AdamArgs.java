package dev.weft.optim;

/**
 * The scalars of one Adam step. {@code step} counts from 1 (bias correction); {@code decoupled}: AdamW (weight decay
 * shrinks the parameters, scaled by lr), else classic Adam (weight decay added to the gradient).
 */
public record AdamArgs(long step, double lr, double beta1, double beta2, double eps, double weightDecay, boolean decoupled) {}
