// Dequantization of a frozen 4-bit (NF4) or 8-bit (int8) base, shared by the CUDA kernels and the CPU
// references so that both compute one formula (the reference is checked against libtorch ops and an
// independent Java implementation; the kernel against the reference, bit for bit).
//
// NF4 (QLoRA, Dettmers et al. 2023; bitsandbytes): n elements as 4-bit codes, two per byte, element 2i in
// the HIGH nibble of byte i and 2i+1 in the LOW nibble; one fp32 absmax per block of 64 elements;
// out[i] = NF4_TABLE[code_i] * absmax[i / 64]. int8 (absmax per row): out[r][c] = q[r][c] * scale[r].
#ifndef WEFT_QUANT_MATH_H
#define WEFT_QUANT_MATH_H

#include <stdint.h>

#ifdef __CUDACC__
#define WEFT_QHD __host__ __device__ __forceinline__
#else
#define WEFT_QHD inline
#endif

#define WEFT_NF4_BLOCK 64

// The 16 NormalFloat values of QLoRA's Appendix E (bitsandbytes' NF4 code), as fp32 literals.
WEFT_QHD float nf4_value(unsigned code) {
  switch (code & 15u) {
    case 0: return -1.0f;
    case 1: return -0.6961928009986877f;
    case 2: return -0.5250730514526367f;
    case 3: return -0.39491748809814453f;
    case 4: return -0.28444138169288635f;
    case 5: return -0.18477343022823334f;
    case 6: return -0.09105003625154495f;
    case 7: return 0.0f;
    case 8: return 0.07958029955625534f;
    case 9: return 0.16093020141124725f;
    case 10: return 0.24611230194568634f;
    case 11: return 0.33791524171829224f;
    case 12: return 0.44070982933044434f;
    case 13: return 0.5626170039176941f;
    case 14: return 0.7229568362236023f;
    default: return 1.0f;
  }
}

// Element i of an NF4 tensor: its nibble of codes[i / 2] (high for even i), times its block's absmax.
WEFT_QHD float nf4_element(const uint8_t* codes, const float* absmax, int64_t i) {
  unsigned byte = codes[i >> 1];
  unsigned code = (i & 1) ? (byte & 15u) : (byte >> 4);
  return nf4_value(code) * absmax[i / WEFT_NF4_BLOCK];
}

WEFT_QHD float int8_element(const int8_t* q, const float* scale, int64_t i, int64_t cols) {
  return (float)q[i] * scale[i / cols];
}

#endif
