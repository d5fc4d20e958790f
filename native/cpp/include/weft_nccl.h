// A shim over NCCL that loads libnccl.so.2 at run time (dlopen), so nothing NCCL is needed to build
// or to load Weft. Handles (communicators, streams, device buffers) are passed as uint64_t addresses.
// Every call returns an ncclResult_t (0 = success) or WEFT_NCCL_NOT_LOADED before a successful load.
#ifndef WEFT_NCCL_H
#define WEFT_NCCL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WEFT_NCCL_UNIQUE_ID_BYTES 128
#define WEFT_NCCL_NOT_LOADED 1000

// Loads `library` (e.g. "libnccl.so.2" or a full path). On failure returns WEFT_NCCL_NOT_LOADED and
// writes the loader's reason (dlerror) into `error`. Loading again after a success is a no-op.
int weft_nccl_load(const char* library, char* error, int error_len);
int weft_nccl_loaded(void);
// The NCCL symbols the shim resolves, space-separated (callable without NCCL: for checking a library first).
const char* weft_nccl_symbols(void);
// Where the loaded library lives (from dladdr), or "" when none is loaded.
const char* weft_nccl_library_path(void);
int weft_nccl_version(int* version);
const char* weft_nccl_error_string(int result);
const char* weft_nccl_last_error(uint64_t comm);

int weft_nccl_get_unique_id(signed char* id /* WEFT_NCCL_UNIQUE_ID_BYTES */);
int weft_nccl_comm_init_rank(uint64_t* comm, int nranks, const signed char* id, int rank);
int weft_nccl_comm_destroy(uint64_t comm);
int weft_nccl_comm_abort(uint64_t comm);
int weft_nccl_comm_get_async_error(uint64_t comm, int* async_error);

int weft_nccl_all_reduce(uint64_t send, uint64_t recv, uint64_t count, int datatype, int op,
                         uint64_t comm, uint64_t stream);
int weft_nccl_all_gather(uint64_t send, uint64_t recv, uint64_t send_count, int datatype,
                         uint64_t comm, uint64_t stream);
int weft_nccl_reduce_scatter(uint64_t send, uint64_t recv, uint64_t recv_count, int datatype, int op,
                             uint64_t comm, uint64_t stream);
int weft_nccl_broadcast(uint64_t send, uint64_t recv, uint64_t count, int datatype, int root,
                        uint64_t comm, uint64_t stream);
int weft_nccl_send(uint64_t buf, uint64_t count, int datatype, int peer, uint64_t comm, uint64_t stream);
int weft_nccl_recv(uint64_t buf, uint64_t count, int datatype, int peer, uint64_t comm, uint64_t stream);
int weft_nccl_group_start(void);
int weft_nccl_group_end(void);

#ifdef __cplusplus
}
#endif
#endif
