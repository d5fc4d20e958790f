// NCCL shim: resolves the few NCCL entry points Weft uses from libnccl.so.2 at run time. The types
// below are NCCL's stable C ABI (opaque communicator and stream pointers, a 128-byte unique id, ints
// for results, data types and reduction ops), declared here so that no NCCL header is needed.
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <mutex>
#include "weft_nccl.h"

namespace {

struct UniqueId { char internal[WEFT_NCCL_UNIQUE_ID_BYTES]; };
typedef void* Comm;
typedef void* Stream;

struct Api {
  int (*get_version)(int*);
  int (*get_unique_id)(UniqueId*);
  int (*comm_init_rank)(Comm*, int, UniqueId, int);
  int (*comm_destroy)(Comm);
  int (*comm_abort)(Comm);
  int (*comm_get_async_error)(Comm, int*);
  const char* (*get_error_string)(int);
  const char* (*get_last_error)(Comm);
  int (*all_reduce)(const void*, void*, size_t, int, int, Comm, Stream);
  int (*all_gather)(const void*, void*, size_t, int, Comm, Stream);
  int (*reduce_scatter)(const void*, void*, size_t, int, int, Comm, Stream);
  int (*broadcast)(const void*, void*, size_t, int, int, Comm, Stream);
  int (*send)(const void*, size_t, int, int, Comm, Stream);
  int (*recv)(void*, size_t, int, int, Comm, Stream);
  int (*group_start)();
  int (*group_end)();
};

std::mutex load_mutex;
void* handle = nullptr;
Api api;
char library_path[4096] = "";

template <typename F>
bool resolve(F& fn, const char* symbol, char* error, int error_len) {
  fn = reinterpret_cast<F>(dlsym(handle, symbol));
  if (fn) return true;
  if (error_len > 0) snprintf(error, (size_t)error_len, "%s has no symbol %s (NCCL older than 2.12?)", library_path, symbol);
  return false;
}

// Every NCCL entry point the shim resolves: (field of Api, NCCL's symbol). One list for resolving and for
// weft_nccl_symbols (which the GPU check's symbol listing reads to check a libnccl.so.2 before loading it).
#define WEFT_NCCL_SYMBOLS(X) \
  X(get_version, ncclGetVersion) X(get_unique_id, ncclGetUniqueId) X(comm_init_rank, ncclCommInitRank) \
  X(comm_destroy, ncclCommDestroy) X(comm_abort, ncclCommAbort) X(comm_get_async_error, ncclCommGetAsyncError) \
  X(get_error_string, ncclGetErrorString) X(get_last_error, ncclGetLastError) X(all_reduce, ncclAllReduce) \
  X(all_gather, ncclAllGather) X(reduce_scatter, ncclReduceScatter) X(broadcast, ncclBroadcast) X(send, ncclSend) \
  X(recv, ncclRecv) X(group_start, ncclGroupStart) X(group_end, ncclGroupEnd)

bool resolve_all(char* error, int error_len) {
#define WEFT_RESOLVE(field, symbol) && resolve(api.field, #symbol, error, error_len)
  return true WEFT_NCCL_SYMBOLS(WEFT_RESOLVE);
#undef WEFT_RESOLVE
}

void remember_path() {
  Dl_info info;
  if (api.get_version && dladdr(reinterpret_cast<void*>(api.get_version), &info) && info.dli_fname) {
    snprintf(library_path, sizeof library_path, "%s", info.dli_fname);
  }
}

inline Comm comm_of(uint64_t c) { return reinterpret_cast<Comm>(c); }
inline Stream stream_of(uint64_t s) { return reinterpret_cast<Stream>(s); }
inline void* ptr(uint64_t a) { return reinterpret_cast<void*>(a); }

}  // namespace

#define REQUIRE_LOADED() do { if (!handle) return WEFT_NCCL_NOT_LOADED; } while (0)

extern "C" {

int weft_nccl_load(const char* library, char* error, int error_len) {
  std::lock_guard<std::mutex> lock(load_mutex);
  if (handle) return 0;
  if (error_len > 0) error[0] = 0;
  void* h = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* why = dlerror();
    if (error_len > 0) snprintf(error, (size_t)error_len, "%s", why ? why : library);
    return WEFT_NCCL_NOT_LOADED;
  }
  handle = h;
  snprintf(library_path, sizeof library_path, "%s", library);
  if (!resolve_all(error, error_len)) {
    dlclose(h);
    handle = nullptr;
    memset(&api, 0, sizeof api);
    return WEFT_NCCL_NOT_LOADED;
  }
  remember_path();
  return 0;
}

int weft_nccl_loaded(void) { return handle != nullptr; }

const char* weft_nccl_symbols(void) {
#define WEFT_NAME(field, symbol) #symbol " "
  return WEFT_NCCL_SYMBOLS(WEFT_NAME);
#undef WEFT_NAME
}
const char* weft_nccl_library_path(void) { return handle ? library_path : ""; }

int weft_nccl_version(int* version) { REQUIRE_LOADED(); return api.get_version(version); }

const char* weft_nccl_error_string(int result) {
  if (result == WEFT_NCCL_NOT_LOADED) return "libnccl.so.2 is not loaded";
  return handle ? api.get_error_string(result) : "unknown NCCL result (libnccl.so.2 is not loaded)";
}

const char* weft_nccl_last_error(uint64_t comm) { return handle ? api.get_last_error(comm_of(comm)) : ""; }

int weft_nccl_get_unique_id(signed char* id) {
  REQUIRE_LOADED();
  UniqueId u;
  int rc = api.get_unique_id(&u);
  memcpy(id, u.internal, sizeof u.internal);
  return rc;
}

int weft_nccl_comm_init_rank(uint64_t* comm, int nranks, const signed char* id, int rank) {
  REQUIRE_LOADED();
  UniqueId u;
  memcpy(u.internal, id, sizeof u.internal);
  Comm c = nullptr;
  int rc = api.comm_init_rank(&c, nranks, u, rank);
  *comm = reinterpret_cast<uint64_t>(c);
  return rc;
}

int weft_nccl_comm_destroy(uint64_t comm) { REQUIRE_LOADED(); return api.comm_destroy(comm_of(comm)); }
int weft_nccl_comm_abort(uint64_t comm) { REQUIRE_LOADED(); return api.comm_abort(comm_of(comm)); }
int weft_nccl_comm_get_async_error(uint64_t comm, int* async_error) {
  REQUIRE_LOADED();
  return api.comm_get_async_error(comm_of(comm), async_error);
}

int weft_nccl_all_reduce(uint64_t send, uint64_t recv, uint64_t count, int datatype, int op, uint64_t comm,
                         uint64_t stream) {
  REQUIRE_LOADED();
  return api.all_reduce(ptr(send), ptr(recv), count, datatype, op, comm_of(comm), stream_of(stream));
}

int weft_nccl_all_gather(uint64_t send, uint64_t recv, uint64_t send_count, int datatype, uint64_t comm,
                         uint64_t stream) {
  REQUIRE_LOADED();
  return api.all_gather(ptr(send), ptr(recv), send_count, datatype, comm_of(comm), stream_of(stream));
}

int weft_nccl_reduce_scatter(uint64_t send, uint64_t recv, uint64_t recv_count, int datatype, int op, uint64_t comm,
                             uint64_t stream) {
  REQUIRE_LOADED();
  return api.reduce_scatter(ptr(send), ptr(recv), recv_count, datatype, op, comm_of(comm), stream_of(stream));
}

int weft_nccl_broadcast(uint64_t send, uint64_t recv, uint64_t count, int datatype, int root, uint64_t comm,
                        uint64_t stream) {
  REQUIRE_LOADED();
  return api.broadcast(ptr(send), ptr(recv), count, datatype, root, comm_of(comm), stream_of(stream));
}

int weft_nccl_send(uint64_t buf, uint64_t count, int datatype, int peer, uint64_t comm, uint64_t stream) {
  REQUIRE_LOADED();
  return api.send(ptr(buf), count, datatype, peer, comm_of(comm), stream_of(stream));
}

int weft_nccl_recv(uint64_t buf, uint64_t count, int datatype, int peer, uint64_t comm, uint64_t stream) {
  REQUIRE_LOADED();
  return api.recv(ptr(buf), count, datatype, peer, comm_of(comm), stream_of(stream));
}

int weft_nccl_group_start(void) { REQUIRE_LOADED(); return api.group_start(); }
int weft_nccl_group_end(void) { REQUIRE_LOADED(); return api.group_end(); }

}  // extern "C"
