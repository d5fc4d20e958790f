// Weft CUDA kernels and their CPU references: a C API bound from Java by JavaCPP.
//
// Buffers are passed as addresses (uint64_t): device addresses for the weft_* kernels, host addresses
// for the weft_*_ref references. Every kernel runs on the given stream (0 = legacy default stream) and
// returns a cudaError_t (0 = success); weft_cuda_error_string turns it into text. References return 0.
#ifndef WEFT_KERNELS_H
#define WEFT_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// ---- runtime: versions, devices, memory, streams, events --------------------------------------
int weft_cuda_driver_version(int* version);   // 0 when no driver is installed
// 1 and the path of libcuda.so.1 when the driver library loads; 0 and the loader's reason otherwise.
int weft_cuda_driver_library(char* out, int out_len);
int weft_cuda_runtime_version(int* version);  // the static cudart this library was built with
int weft_cuda_device_count(int* count);
int weft_cuda_device_info(int device, char* name, int name_len, int* major, int* minor,
                          uint64_t* total_bytes, int* sm_count);
const char* weft_cuda_error_string(int error);
const char* weft_cuda_error_name(int error);
int weft_cuda_set_device(int device);
int weft_cuda_malloc(uint64_t* address, uint64_t bytes);
int weft_cuda_free(uint64_t address);
int weft_cuda_memcpy(uint64_t dst, uint64_t src, uint64_t bytes);  // any direction (unified addressing)
int weft_cuda_memcpy_async(uint64_t dst, uint64_t src, uint64_t bytes, uint64_t stream);
int weft_cuda_memset_async(uint64_t dst, int value, uint64_t bytes, uint64_t stream);
int weft_cuda_stream_create(uint64_t* stream);  // blocking: orders with the legacy default stream
int weft_cuda_stream_create_nonblocking(uint64_t* stream);  // no implicit order with the legacy default stream
int weft_cuda_stream_wait_event(uint64_t stream, uint64_t event);  // later work on stream waits for event (host does not)
int weft_cuda_stream_destroy(uint64_t stream);
int weft_cuda_stream_query(uint64_t stream);    // 0 = done, 600 (cudaErrorNotReady) = still running
int weft_cuda_stream_synchronize(uint64_t stream);
int weft_cuda_event_create(uint64_t* event);
int weft_cuda_event_destroy(uint64_t event);
int weft_cuda_event_record(uint64_t event, uint64_t stream);
int weft_cuda_event_query(uint64_t event);
int weft_cuda_event_elapsed_ms(float* ms, uint64_t start, uint64_t end);
int weft_cuda_get_last_error(void);

// ---- fused Adam / AdamW over one flat fp32 shard --------------------------------------------------
// m = b1*m + (1-b1)*g; v = b2*v + (1-b2)*g*g; p -= lr * (m/(1-b1^t)) / (sqrt(v/(1-b2^t)) + eps)
// decoupled != 0: AdamW (p *= 1 - lr*wd first); decoupled == 0: Adam (g += wd*p first).
// bf16_out (may be 0) receives the updated parameters rounded to bfloat16 (nearest even).
int weft_adam_step(uint64_t param, uint64_t grad, uint64_t exp_avg, uint64_t exp_avg_sq, uint64_t bf16_out,
                   int64_t n, float lr, float beta1, float beta2, float eps, float weight_decay,
                   int decoupled, int64_t step, uint64_t stream);
int weft_adam_step_ref(uint64_t param, uint64_t grad, uint64_t exp_avg, uint64_t exp_avg_sq, uint64_t bf16_out,
                       int64_t n, float lr, float beta1, float beta2, float eps, float weight_decay,
                       int decoupled, int64_t step);

// ---- multi-tensor unscale + inf/NaN check (loss scaling) ------------------------------------------
// Every element of every fp32 tensor is multiplied by inv_scale; *found_inf (one fp32) becomes 1.0f
// when any element was inf or NaN before scaling, and is left alone otherwise.
int weft_unscale_check(const uint64_t* tensors, const int64_t* sizes, int count, float inv_scale,
                       uint64_t found_inf, uint64_t stream);
int weft_unscale_check_ref(const uint64_t* tensors, const int64_t* sizes, int count, float inv_scale,
                           uint64_t found_inf);

// ---- casts (round to nearest even; NaN stays NaN) -------------------------------------------------
enum weft_cast { WEFT_F32_TO_BF16 = 0, WEFT_BF16_TO_F32 = 1, WEFT_F32_TO_F16 = 2, WEFT_F16_TO_F32 = 3 };
int weft_cast(int kind, uint64_t src, uint64_t dst, int64_t n, uint64_t stream);
int weft_cast_ref(int kind, uint64_t src, uint64_t dst, int64_t n);

// ---- bucket pack / unpack --------------------------------------------------------------------------
// pack: tensors[i] (sizes[i] elements of elem_size bytes: 1, 2, 4 or 8) are copied back to back into bucket.
// unpack: the reverse.
int weft_bucket_pack(const uint64_t* tensors, const int64_t* sizes, int count, int elem_size,
                     uint64_t bucket, uint64_t stream);
int weft_bucket_unpack(const uint64_t* tensors, const int64_t* sizes, int count, int elem_size,
                       uint64_t bucket, uint64_t stream);
int weft_bucket_pack_ref(const uint64_t* tensors, const int64_t* sizes, int count, int elem_size, uint64_t bucket);
int weft_bucket_unpack_ref(const uint64_t* tensors, const int64_t* sizes, int count, int elem_size, uint64_t bucket);

// ---- dequantization of a frozen base (layouts in src/quant_math.h) ------------------------------------
// NF4: codes uint8[ceil(n/2)] (element 2i high nibble, 2i+1 low), absmax fp32[ceil(n/64)] -> out[n].
// int8: q int8[rows*cols], scale fp32[rows] -> out[rows*cols] = q * scale[row].
// out_bf16 != 0: out is bfloat16 (the fp32 product rounded to nearest even); else fp32.
int weft_dequant_nf4(uint64_t codes, uint64_t absmax, uint64_t out, int64_t n, int out_bf16, uint64_t stream);
int weft_dequant_nf4_ref(uint64_t codes, uint64_t absmax, uint64_t out, int64_t n, int out_bf16);
int weft_dequant_int8(uint64_t q, uint64_t scale, uint64_t out, int64_t rows, int64_t cols, int out_bf16,
                      uint64_t stream);
int weft_dequant_int8_ref(uint64_t q, uint64_t scale, uint64_t out, int64_t rows, int64_t cols, int out_bf16);

#define WEFT_ERR_INVALID_ARGUMENT 1  /* same value as cudaErrorInvalidValue */

#ifdef __cplusplus
}
#endif
#endif
