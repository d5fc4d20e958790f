// The per-element Adam/AdamW update, shared by the CUDA kernel and the CPU reference so that both
// compute the same formula (the reference is checked against libtorch; the kernel against the reference).
#ifndef WEFT_ADAM_MATH_H
#define WEFT_ADAM_MATH_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define WEFT_HD __host__ __device__ __forceinline__
#else
#define WEFT_HD inline
#endif

struct AdamScalars {
  float lr, beta1, beta2, eps, weight_decay;
  float step_size;              // lr / (1 - beta1^step)
  float bias_correction2_sqrt;  // sqrt(1 - beta2^step)
  int decoupled;
};

inline AdamScalars adam_scalars(float lr, float beta1, float beta2, float eps, float wd, int decoupled, int64_t step) {
  AdamScalars s;
  s.lr = lr; s.beta1 = beta1; s.beta2 = beta2; s.eps = eps; s.weight_decay = wd; s.decoupled = decoupled;
  double t = (double)step;
  s.step_size = (float)(lr / (1.0 - pow((double)beta1, t)));
  s.bias_correction2_sqrt = (float)sqrt(1.0 - pow((double)beta2, t));
  return s;
}

// Updates p, m, v in place for one element.
WEFT_HD void adam_element(const AdamScalars& s, float& p, float g, float& m, float& v) {
  if (s.decoupled) {
    p = p * (1.0f - s.lr * s.weight_decay);
  } else {
    g = g + s.weight_decay * p;
  }
  m = m + (1.0f - s.beta1) * (g - m);
  v = s.beta2 * v + (1.0f - s.beta2) * g * g;
  float denom = sqrtf(v) / s.bias_correction2_sqrt + s.eps;
  p = p - s.step_size * (m / denom);
}

// Valid arguments for an Adam step, shared by kernel and reference.
inline bool adam_arguments_valid(int64_t n, int64_t step) { return n >= 0 && step >= 1; }

#endif
