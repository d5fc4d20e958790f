// Thin wrappers over the CUDA runtime (linked statically) so that Java can query devices and own
// device memory, streams and events without any other CUDA binding.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "weft_kernels.h"

#define STREAM(s) reinterpret_cast<cudaStream_t>(s)
#define EVENT(e) reinterpret_cast<cudaEvent_t>(e)
#define PTR(a) reinterpret_cast<void*>(a)

extern "C" {

int weft_cuda_driver_version(int* version) { return cudaDriverGetVersion(version); }
int weft_cuda_driver_library(char* out, int out_len) {
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* why = dlerror();
    if (out_len > 0) snprintf(out, (size_t)out_len, "%s", why ? why : "libcuda.so.1 not found");
    return 0;
  }
  Dl_info info;
  void* sym = dlsym(h, "cuDriverGetVersion");
  const char* path = (sym && dladdr(sym, &info) && info.dli_fname) ? info.dli_fname : "libcuda.so.1";
  if (out_len > 0) snprintf(out, (size_t)out_len, "%s", path);
  return 1;  // the handle stays open: the runtime uses the same library
}

int weft_cuda_runtime_version(int* version) { return cudaRuntimeGetVersion(version); }
int weft_cuda_device_count(int* count) { return cudaGetDeviceCount(count); }

int weft_cuda_device_info(int device, char* name, int name_len, int* major, int* minor, uint64_t* total_bytes,
                          int* sm_count) {
  cudaDeviceProp p;
  cudaError_t rc = cudaGetDeviceProperties(&p, device);
  if (rc != cudaSuccess) return rc;
  if (name_len > 0) {
    strncpy(name, p.name, (size_t)name_len - 1);
    name[name_len - 1] = 0;
  }
  *major = p.major;
  *minor = p.minor;
  *total_bytes = (uint64_t)p.totalGlobalMem;
  *sm_count = p.multiProcessorCount;
  return cudaSuccess;
}

const char* weft_cuda_error_string(int error) { return cudaGetErrorString((cudaError_t)error); }
const char* weft_cuda_error_name(int error) { return cudaGetErrorName((cudaError_t)error); }
int weft_cuda_set_device(int device) { return cudaSetDevice(device); }

int weft_cuda_malloc(uint64_t* address, uint64_t bytes) {
  void* p = nullptr;
  cudaError_t rc = cudaMalloc(&p, bytes == 0 ? 1 : bytes);
  *address = reinterpret_cast<uint64_t>(p);
  return rc;
}

int weft_cuda_free(uint64_t address) { return cudaFree(PTR(address)); }

int weft_cuda_memcpy(uint64_t dst, uint64_t src, uint64_t bytes) {
  return bytes == 0 ? cudaSuccess : cudaMemcpy(PTR(dst), PTR(src), bytes, cudaMemcpyDefault);
}

int weft_cuda_memcpy_async(uint64_t dst, uint64_t src, uint64_t bytes, uint64_t stream) {
  return bytes == 0 ? cudaSuccess : cudaMemcpyAsync(PTR(dst), PTR(src), bytes, cudaMemcpyDefault, STREAM(stream));
}

int weft_cuda_memset_async(uint64_t dst, int value, uint64_t bytes, uint64_t stream) {
  return bytes == 0 ? cudaSuccess : cudaMemsetAsync(PTR(dst), value, bytes, STREAM(stream));
}

int weft_cuda_stream_create(uint64_t* stream) {
  cudaStream_t s = nullptr;
  cudaError_t rc = cudaStreamCreateWithFlags(&s, cudaStreamDefault);
  *stream = reinterpret_cast<uint64_t>(s);
  return rc;
}

int weft_cuda_stream_create_nonblocking(uint64_t* stream) {
  cudaStream_t s = nullptr;
  cudaError_t rc = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  *stream = reinterpret_cast<uint64_t>(s);
  return rc;
}

int weft_cuda_stream_wait_event(uint64_t stream, uint64_t event) {
  return cudaStreamWaitEvent(STREAM(stream), EVENT(event), 0);
}

int weft_cuda_stream_destroy(uint64_t stream) { return cudaStreamDestroy(STREAM(stream)); }
int weft_cuda_stream_query(uint64_t stream) { return cudaStreamQuery(STREAM(stream)); }
int weft_cuda_stream_synchronize(uint64_t stream) { return cudaStreamSynchronize(STREAM(stream)); }

int weft_cuda_event_create(uint64_t* event) {
  cudaEvent_t e = nullptr;
  cudaError_t rc = cudaEventCreate(&e);
  *event = reinterpret_cast<uint64_t>(e);
  return rc;
}

int weft_cuda_event_destroy(uint64_t event) { return cudaEventDestroy(EVENT(event)); }
int weft_cuda_event_record(uint64_t event, uint64_t stream) { return cudaEventRecord(EVENT(event), STREAM(stream)); }
int weft_cuda_event_query(uint64_t event) { return cudaEventQuery(EVENT(event)); }
int weft_cuda_event_elapsed_ms(float* ms, uint64_t start, uint64_t end) {
  return cudaEventElapsedTime(ms, EVENT(start), EVENT(end));
}
int weft_cuda_get_last_error(void) { return cudaGetLastError(); }

}  // extern "C"
