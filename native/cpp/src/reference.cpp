// CPU references for every kernel: the tests compare them with libtorch, the GPU check compares the
// kernels with them.
#include <math.h>
#include <string.h>
#include "adam_math.h"
#include "float_bits.h"
#include "quant_math.h"
#include "tensor_list.h"
#include "weft_kernels.h"

namespace {
template <typename T> inline T* host(uint64_t a) { return reinterpret_cast<T*>(a); }

int bucket_ref(bool pack, const uint64_t* tensors, const int64_t* sizes, int count, int elem_size, uint64_t bucket) {
  if (!sizes_valid(sizes, count)) return WEFT_ERR_INVALID_ARGUMENT;
  if (elem_size != 1 && elem_size != 2 && elem_size != 4 && elem_size != 8) return WEFT_ERR_INVALID_ARGUMENT;
  char* b = host<char>(bucket);
  for (int i = 0; i < count; i++) {
    size_t bytes = (size_t)sizes[i] * (size_t)elem_size;
    if (bytes == 0) continue;
    if (pack) memcpy(b, host<char>(tensors[i]), bytes); else memcpy(host<char>(tensors[i]), b, bytes);
    b += bytes;
  }
  return 0;
}
}  // namespace

extern "C" {

int weft_adam_step_ref(uint64_t param, uint64_t grad, uint64_t exp_avg, uint64_t exp_avg_sq, uint64_t bf16_out,
                       int64_t n, float lr, float beta1, float beta2, float eps, float weight_decay, int decoupled,
                       int64_t step) {
  if (!adam_arguments_valid(n, step)) return WEFT_ERR_INVALID_ARGUMENT;
  AdamScalars s = adam_scalars(lr, beta1, beta2, eps, weight_decay, decoupled, step);
  float* p = host<float>(param);
  const float* g = host<const float>(grad);
  float* m = host<float>(exp_avg);
  float* v = host<float>(exp_avg_sq);
  uint16_t* out = host<uint16_t>(bf16_out);
  for (int64_t i = 0; i < n; i++) {
    adam_element(s, p[i], g[i], m[i], v[i]);
    if (out) out[i] = f32_to_bf16(p[i]);
  }
  return 0;
}

int weft_unscale_check_ref(const uint64_t* tensors, const int64_t* sizes, int count, float inv_scale,
                           uint64_t found_inf) {
  if (!sizes_valid(sizes, count)) return WEFT_ERR_INVALID_ARGUMENT;
  for (int t = 0; t < count; t++) {
    float* x = host<float>(tensors[t]);
    for (int64_t i = 0; i < sizes[t]; i++) {
      if (!isfinite(x[i])) *host<float>(found_inf) = 1.0f;
      x[i] = x[i] * inv_scale;
    }
  }
  return 0;
}

int weft_cast_ref(int kind, uint64_t src, uint64_t dst, int64_t n) {
  if (n < 0 || kind < WEFT_F32_TO_BF16 || kind > WEFT_F16_TO_F32) return WEFT_ERR_INVALID_ARGUMENT;
  for (int64_t i = 0; i < n; i++) {
    switch (kind) {
      case WEFT_F32_TO_BF16: host<uint16_t>(dst)[i] = f32_to_bf16(host<const float>(src)[i]); break;
      case WEFT_BF16_TO_F32: host<float>(dst)[i] = bf16_to_f32(host<const uint16_t>(src)[i]); break;
      case WEFT_F32_TO_F16: host<uint16_t>(dst)[i] = f32_to_f16(host<const float>(src)[i]); break;
      case WEFT_F16_TO_F32: host<float>(dst)[i] = f16_to_f32(host<const uint16_t>(src)[i]); break;
      default: return WEFT_ERR_INVALID_ARGUMENT;
    }
  }
  return 0;
}

int weft_bucket_pack_ref(const uint64_t* tensors, const int64_t* sizes, int count, int elem_size, uint64_t bucket) {
  return bucket_ref(true, tensors, sizes, count, elem_size, bucket);
}

int weft_bucket_unpack_ref(const uint64_t* tensors, const int64_t* sizes, int count, int elem_size, uint64_t bucket) {
  return bucket_ref(false, tensors, sizes, count, elem_size, bucket);
}

int weft_dequant_nf4_ref(uint64_t codes, uint64_t absmax, uint64_t out, int64_t n, int out_bf16) {
  if (n < 0) return WEFT_ERR_INVALID_ARGUMENT;
  const uint8_t* c = host<const uint8_t>(codes);
  const float* a = host<const float>(absmax);
  for (int64_t i = 0; i < n; i++) {
    float x = nf4_element(c, a, i);
    if (out_bf16) host<uint16_t>(out)[i] = f32_to_bf16(x); else host<float>(out)[i] = x;
  }
  return 0;
}

int weft_dequant_int8_ref(uint64_t q, uint64_t scale, uint64_t out, int64_t rows, int64_t cols, int out_bf16) {
  if (rows < 0 || cols < 0) return WEFT_ERR_INVALID_ARGUMENT;
  const int8_t* x = host<const int8_t>(q);
  const float* s = host<const float>(scale);
  for (int64_t i = 0; i < rows * cols; i++) {
    float v = int8_element(x, s, i, cols);
    if (out_bf16) host<uint16_t>(out)[i] = f32_to_bf16(v); else host<float>(out)[i] = v;
  }
  return 0;
}

}  // extern "C"
