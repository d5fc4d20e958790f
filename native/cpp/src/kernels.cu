// Weft's CUDA kernels: fused Adam/AdamW, multi-tensor unscale + inf/NaN check, casts, bucket pack/unpack,
// NF4/int8 dequantization.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include "adam_math.h"
#include "quant_math.h"
#include "tensor_list.h"
#include "weft_kernels.h"

namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 8192;  // grid-stride loops cover the rest

inline unsigned blocks_for(int64_t work) {
  int64_t b = (work + kThreads - 1) / kThreads;
  return (unsigned)(b < 1 ? 1 : (b > kMaxBlocks ? kMaxBlocks : b));
}

inline cudaStream_t as_stream(uint64_t s) { return reinterpret_cast<cudaStream_t>(s); }
template <typename T> __host__ __device__ inline T* as_ptr(uint64_t a) { return reinterpret_cast<T*>(a); }

inline bool aligned16(uint64_t a) { return (a & 15u) == 0; }

// ---- Adam ---------------------------------------------------------------------------------------

__device__ __forceinline__ void adam_store_bf16(__nv_bfloat16* out, int64_t i, float p) {
  if (out) out[i] = __float2bfloat16_rn(p);
}

__global__ void adam_scalar_kernel(AdamScalars s, float* p, const float* g, float* m, float* v,
                                   __nv_bfloat16* out, int64_t begin, int64_t n) {
  for (int64_t i = begin + blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    float pi = p[i], mi = m[i], vi = v[i];
    adam_element(s, pi, g[i], mi, vi);
    p[i] = pi; m[i] = mi; v[i] = vi;
    adam_store_bf16(out, i, pi);
  }
}

// Four elements per thread with 16-byte loads and stores; needs 16-byte aligned buffers.
__global__ void adam_vector_kernel(AdamScalars s, float4* p, const float4* g, float4* m, float4* v,
                                   __nv_bfloat162* out, int64_t nvec) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < nvec; i += (int64_t)gridDim.x * blockDim.x) {
    float4 pp = p[i], gg = g[i], mm = m[i], vv = v[i];
    adam_element(s, pp.x, gg.x, mm.x, vv.x);
    adam_element(s, pp.y, gg.y, mm.y, vv.y);
    adam_element(s, pp.z, gg.z, mm.z, vv.z);
    adam_element(s, pp.w, gg.w, mm.w, vv.w);
    p[i] = pp; m[i] = mm; v[i] = vv;
    if (out) {
      out[2 * i] = __floats2bfloat162_rn(pp.x, pp.y);
      out[2 * i + 1] = __floats2bfloat162_rn(pp.z, pp.w);
    }
  }
}

// ---- unscale + check ----------------------------------------------------------------------------

__global__ void unscale_kernel(TensorChunk chunk, float inv_scale, float* found_inf) {
  const int t = blockIdx.y;
  float* x = as_ptr<float>(chunk.address[t]);
  const int64_t n = chunk.size[t];
  bool bad = false;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    float val = x[i];
    if (!isfinite(val)) bad = true;
    x[i] = val * inv_scale;
  }
  if (bad) *found_inf = 1.0f;
}

// ---- casts --------------------------------------------------------------------------------------

template <int Kind>
__global__ void cast_kernel(const void* src, void* dst, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    if (Kind == WEFT_F32_TO_BF16) static_cast<__nv_bfloat16*>(dst)[i] = __float2bfloat16_rn(static_cast<const float*>(src)[i]);
    if (Kind == WEFT_BF16_TO_F32) static_cast<float*>(dst)[i] = __bfloat162float(static_cast<const __nv_bfloat16*>(src)[i]);
    if (Kind == WEFT_F32_TO_F16) static_cast<__half*>(dst)[i] = __float2half_rn(static_cast<const float*>(src)[i]);
    if (Kind == WEFT_F16_TO_F32) static_cast<float*>(dst)[i] = __half2float(static_cast<const __half*>(src)[i]);
  }
}

// ---- dequantization --------------------------------------------------------------------------------

__device__ __forceinline__ void store(float* out, int64_t i, float x) { out[i] = x; }
__device__ __forceinline__ void store(__nv_bfloat16* out, int64_t i, float x) { out[i] = __float2bfloat16_rn(x); }

// One thread per byte: both nibbles of a byte are read once.
template <typename T>
__global__ void nf4_kernel(const uint8_t* codes, const float* absmax, T* out, int64_t n) {
  int64_t bytes = (n + 1) / 2;
  for (int64_t b = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; b < bytes; b += (int64_t)gridDim.x * blockDim.x) {
    int64_t i = 2 * b;
    store(out, i, nf4_element(codes, absmax, i));
    if (i + 1 < n) store(out, i + 1, nf4_element(codes, absmax, i + 1));
  }
}

template <typename T>
__global__ void int8_kernel(const int8_t* q, const float* scale, T* out, int64_t n, int64_t cols) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    store(out, i, int8_element(q, scale, i, cols));
  }
}

// ---- bucket pack / unpack -----------------------------------------------------------------------

template <typename T, bool Pack>
__global__ void bucket_kernel(TensorChunk chunk, T* bucket) {
  const int t = blockIdx.y;
  T* x = as_ptr<T>(chunk.address[t]);
  T* b = bucket + chunk.offset[t];
  const int64_t n = chunk.size[t];
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    if (Pack) b[i] = x[i]; else x[i] = b[i];
  }
}

template <typename T>
int bucket_launch(bool pack, const uint64_t* tensors, const int64_t* sizes, int count, uint64_t bucket,
                  cudaStream_t stream) {
  TensorChunk chunk;
  int64_t offset = 0;
  for (int first = 0; first < count;) {
    int taken = fill_chunk(chunk, tensors, sizes, count, first, offset);
    for (int i = 0; i < taken; i++) offset += chunk.size[i];
    first += taken;
    if (chunk.largest == 0) continue;
    dim3 grid(blocks_for(chunk.largest), (unsigned)chunk.count);
    if (pack) bucket_kernel<T, true><<<grid, kThreads, 0, stream>>>(chunk, as_ptr<T>(bucket));
    else bucket_kernel<T, false><<<grid, kThreads, 0, stream>>>(chunk, as_ptr<T>(bucket));
    cudaError_t rc = cudaGetLastError();
    if (rc != cudaSuccess) return rc;
  }
  return cudaSuccess;
}

int bucket(bool pack, const uint64_t* tensors, const int64_t* sizes, int count, int elem_size, uint64_t bucket_address,
           uint64_t stream) {
  if (!sizes_valid(sizes, count)) return cudaErrorInvalidValue;
  cudaStream_t s = as_stream(stream);
  switch (elem_size) {
    case 1: return bucket_launch<uint8_t>(pack, tensors, sizes, count, bucket_address, s);
    case 2: return bucket_launch<uint16_t>(pack, tensors, sizes, count, bucket_address, s);
    case 4: return bucket_launch<uint32_t>(pack, tensors, sizes, count, bucket_address, s);
    case 8: return bucket_launch<uint64_t>(pack, tensors, sizes, count, bucket_address, s);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace

extern "C" {

int weft_adam_step(uint64_t param, uint64_t grad, uint64_t exp_avg, uint64_t exp_avg_sq, uint64_t bf16_out,
                   int64_t n, float lr, float beta1, float beta2, float eps, float weight_decay, int decoupled,
                   int64_t step, uint64_t stream) {
  if (!adam_arguments_valid(n, step)) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  AdamScalars s = adam_scalars(lr, beta1, beta2, eps, weight_decay, decoupled, step);
  cudaStream_t st = as_stream(stream);
  int64_t vector_end = 0;
  bool vectorizable = aligned16(param) && aligned16(grad) && aligned16(exp_avg) && aligned16(exp_avg_sq)
      && (bf16_out == 0 || (bf16_out & 7u) == 0);
  if (vectorizable && n >= 4) {
    int64_t nvec = n / 4;
    adam_vector_kernel<<<blocks_for(nvec), kThreads, 0, st>>>(s, as_ptr<float4>(param), as_ptr<const float4>(grad),
        as_ptr<float4>(exp_avg), as_ptr<float4>(exp_avg_sq), as_ptr<__nv_bfloat162>(bf16_out), nvec);
    vector_end = nvec * 4;
  }
  if (vector_end < n) {
    adam_scalar_kernel<<<blocks_for(n - vector_end), kThreads, 0, st>>>(s, as_ptr<float>(param), as_ptr<const float>(grad),
        as_ptr<float>(exp_avg), as_ptr<float>(exp_avg_sq), as_ptr<__nv_bfloat16>(bf16_out), vector_end, n);
  }
  return cudaGetLastError();
}

int weft_unscale_check(const uint64_t* tensors, const int64_t* sizes, int count, float inv_scale, uint64_t found_inf,
                       uint64_t stream) {
  if (!sizes_valid(sizes, count)) return cudaErrorInvalidValue;
  TensorChunk chunk;
  for (int first = 0; first < count;) {
    first += fill_chunk(chunk, tensors, sizes, count, first, 0);
    if (chunk.largest == 0) continue;
    dim3 grid(blocks_for(chunk.largest), (unsigned)chunk.count);
    unscale_kernel<<<grid, kThreads, 0, as_stream(stream)>>>(chunk, inv_scale, as_ptr<float>(found_inf));
    cudaError_t rc = cudaGetLastError();
    if (rc != cudaSuccess) return rc;
  }
  return cudaSuccess;
}

int weft_cast(int kind, uint64_t src, uint64_t dst, int64_t n, uint64_t stream) {
  if (n < 0) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  const void* in = as_ptr<const void>(src);
  void* out = as_ptr<void>(dst);
  cudaStream_t s = as_stream(stream);
  switch (kind) {
    case WEFT_F32_TO_BF16: cast_kernel<WEFT_F32_TO_BF16><<<blocks_for(n), kThreads, 0, s>>>(in, out, n); break;
    case WEFT_BF16_TO_F32: cast_kernel<WEFT_BF16_TO_F32><<<blocks_for(n), kThreads, 0, s>>>(in, out, n); break;
    case WEFT_F32_TO_F16: cast_kernel<WEFT_F32_TO_F16><<<blocks_for(n), kThreads, 0, s>>>(in, out, n); break;
    case WEFT_F16_TO_F32: cast_kernel<WEFT_F16_TO_F32><<<blocks_for(n), kThreads, 0, s>>>(in, out, n); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

int weft_dequant_nf4(uint64_t codes, uint64_t absmax, uint64_t out, int64_t n, int out_bf16, uint64_t stream) {
  if (n < 0) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  const uint8_t* c = as_ptr<const uint8_t>(codes);
  const float* a = as_ptr<const float>(absmax);
  unsigned blocks = blocks_for((n + 1) / 2);
  if (out_bf16) nf4_kernel<<<blocks, kThreads, 0, as_stream(stream)>>>(c, a, as_ptr<__nv_bfloat16>(out), n);
  else nf4_kernel<<<blocks, kThreads, 0, as_stream(stream)>>>(c, a, as_ptr<float>(out), n);
  return cudaGetLastError();
}

int weft_dequant_int8(uint64_t q, uint64_t scale, uint64_t out, int64_t rows, int64_t cols, int out_bf16,
                      uint64_t stream) {
  if (rows < 0 || cols < 0) return cudaErrorInvalidValue;
  int64_t n = rows * cols;
  if (n == 0) return cudaSuccess;
  const int8_t* x = as_ptr<const int8_t>(q);
  const float* s = as_ptr<const float>(scale);
  if (out_bf16) int8_kernel<<<blocks_for(n), kThreads, 0, as_stream(stream)>>>(x, s, as_ptr<__nv_bfloat16>(out), n, cols);
  else int8_kernel<<<blocks_for(n), kThreads, 0, as_stream(stream)>>>(x, s, as_ptr<float>(out), n, cols);
  return cudaGetLastError();
}

int weft_bucket_pack(const uint64_t* tensors, const int64_t* sizes, int count, int elem_size, uint64_t bucket_address,
                     uint64_t stream) {
  return bucket(true, tensors, sizes, count, elem_size, bucket_address, stream);
}

int weft_bucket_unpack(const uint64_t* tensors, const int64_t* sizes, int count, int elem_size, uint64_t bucket_address,
                       uint64_t stream) {
  return bucket(false, tensors, sizes, count, elem_size, bucket_address, stream);
}

}  // extern "C"
