// Tensor lists for multi-tensor kernels: host arrays of addresses and sizes, cut into chunks small
// enough to pass by value as a kernel argument.
#ifndef WEFT_TENSOR_LIST_H
#define WEFT_TENSOR_LIST_H

#include <stdint.h>

#define WEFT_LIST_CHUNK 64

struct TensorChunk {
  uint64_t address[WEFT_LIST_CHUNK];
  int64_t size[WEFT_LIST_CHUNK];
  int64_t offset[WEFT_LIST_CHUNK];  // element offset inside a bucket (pack/unpack only)
  int count;
  int64_t largest;
};

// Fills `chunk` with tensors [first, first + WEFT_LIST_CHUNK) and returns how many it took.
inline int fill_chunk(TensorChunk& chunk, const uint64_t* tensors, const int64_t* sizes, int count, int first,
                      int64_t first_offset) {
  int taken = 0;
  int64_t offset = first_offset;
  chunk.largest = 0;
  for (int i = first; i < count && taken < WEFT_LIST_CHUNK; i++, taken++) {
    chunk.address[taken] = tensors[i];
    chunk.size[taken] = sizes[i];
    chunk.offset[taken] = offset;
    offset += sizes[i];
    if (sizes[i] > chunk.largest) chunk.largest = sizes[i];
  }
  chunk.count = taken;
  return taken;
}

inline bool sizes_valid(const int64_t* sizes, int count) {
  if (count < 0) return false;
  for (int i = 0; i < count; i++) if (sizes[i] < 0) return false;
  return true;
}

#endif
