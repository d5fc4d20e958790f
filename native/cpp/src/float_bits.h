// Bit-level float conversions for the CPU reference (round to nearest even), written without any
// CUDA header so that they check the kernels' intrinsics independently.
#ifndef WEFT_FLOAT_BITS_H
#define WEFT_FLOAT_BITS_H

#include <stdint.h>
#include <string.h>

inline uint32_t f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
inline float f32_from_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

inline uint16_t f32_to_bf16(float f) {
  uint32_t u = f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x0040u);  // quiet NaN, sign kept
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

inline float bf16_to_f32(uint16_t h) { return f32_from_bits((uint32_t)h << 16); }

inline uint16_t round_shift(uint32_t m, int shift) {
  uint32_t h = m >> shift;
  uint32_t rem = m & ((1u << shift) - 1u);
  uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (h & 1u))) h++;
  return (uint16_t)h;
}

inline uint16_t f32_to_f16(float f) {
  uint32_t x = f32_bits(f);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return sign | 0x7e00u;   // NaN
  if (ax >= 0x47800000u) return sign | 0x7c00u;  // >= 2^16: infinity
  int e = (int)(ax >> 23) - 127;
  uint32_t mant = ax & 0x7fffffu;
  if (e >= -14) {  // normal half; a carry out of the mantissa correctly bumps the exponent (up to inf)
    uint32_t h = ((uint32_t)(e + 15) << 10) | (mant >> 13);
    uint32_t rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++;
    return sign | (uint16_t)h;
  }
  int shift = -(e + 1);  // subnormal: value / 2^-24 = (mant | 2^23) * 2^(e+1)
  if (shift > 24) return sign;
  return sign | round_shift(mant | 0x800000u, shift);
}

inline float f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    float v = (float)mant * (1.0f / 16777216.0f);  // exact: mant * 2^-24
    return f32_from_bits(f32_bits(v) | sign);
  }
  if (exp == 31) return f32_from_bits(sign | 0x7f800000u | (mant << 13));
  return f32_from_bits(sign | ((exp + 112u) << 23) | (mant << 13));
}

#endif
