// A stand-in libnccl.so.2 for tests on a machine without GPUs: the ranks of a communicator are threads of one process,
// buffers are host memory, streams are ignored, and sends/receives exist only inside ncclGroupStart/End, where they
// are matched per (source, destination) in issue order, as NCCL matches them. It defines exactly the symbols Weft's
// shim resolves; the collectives other than send/recv answer ncclInvalidUsage (5). What it proves: the Java side's
// grouped calls reach NCCL's C ABI through the shim with the right addresses, counts, types and peers.
#include <string.h>
#include <stdio.h>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace {

struct Id { char bytes[128]; };
struct Comm { std::string world; int rank; int size; };
struct Op { Comm* comm; bool send; char* buf; size_t bytes; int peer; };

std::mutex mu;
std::condition_variable arrived;
std::map<std::tuple<std::string, int, int>, std::deque<std::vector<char>>> queues;  // (world, from, to)
int ids = 0;
thread_local int depth = 0;
thread_local std::vector<Op> pending;

size_t type_bytes(int t) {
  switch (t) {
    case 0: case 1: return 1;
    case 6: case 9: return 2;
    case 2: case 3: case 7: return 4;
    case 4: case 5: case 8: return 8;
    default: return 0;
  }
}

int queue(Comm* c, bool send, const void* buf, size_t count, int type, int peer) {
  if (depth == 0) return 5;                                      // only grouped here
  if (type_bytes(type) == 0 || peer < 0 || peer >= c->size) return 4;
  pending.push_back(Op{c, send, (char*)buf, count * type_bytes(type), peer});
  return 0;
}

int deliver(const Op& op) {
  std::unique_lock<std::mutex> lock(mu);
  if (op.send) {
    queues[std::make_tuple(op.comm->world, op.comm->rank, op.peer)].emplace_back(op.buf, op.buf + op.bytes);
    arrived.notify_all();
    return 0;
  }
  auto& q = queues[std::make_tuple(op.comm->world, op.peer, op.comm->rank)];
  if (!arrived.wait_for(lock, std::chrono::seconds(30), [&] { return !q.empty(); })) return 8;  // ncclTimeout
  std::vector<char> m = std::move(q.front());
  q.pop_front();
  if (m.size() != op.bytes) return 4;                            // a send and its receive disagree on the size
  memcpy(op.buf, m.data(), m.size());
  return 0;
}

}  // namespace

extern "C" {
int ncclGetVersion(int* v) { *v = 22800; return 0; }
int ncclGetUniqueId(Id* id) {
  std::lock_guard<std::mutex> lock(mu);
  memset(id, 0, sizeof *id);
  snprintf(id->bytes, sizeof id->bytes, "fake-%d", ++ids);
  return 0;
}
int ncclCommInitRank(Comm** c, int n, Id id, int rank) {
  if (rank < 0 || rank >= n) return 4;
  *c = new Comm{std::string(id.bytes, strnlen(id.bytes, sizeof id.bytes)), rank, n};
  return 0;
}
int ncclCommDestroy(Comm* c) { delete c; return 0; }
int ncclCommAbort(Comm* c) { delete c; return 0; }
int ncclCommGetAsyncError(Comm*, int* e) { *e = 0; return 0; }
const char* ncclGetErrorString(int r) { return r == 0 ? "no error" : r == 5 ? "invalid usage (fake NCCL)" : "error (fake NCCL)"; }
const char* ncclGetLastError(Comm*) { return ""; }
int ncclAllReduce(const void*, void*, size_t, int, int, Comm*, void*) { return 5; }
int ncclAllGather(const void*, void*, size_t, int, Comm*, void*) { return 5; }
int ncclReduceScatter(const void*, void*, size_t, int, int, Comm*, void*) { return 5; }
int ncclBroadcast(const void*, void*, size_t, int, int, Comm*, void*) { return 5; }
int ncclSend(const void* b, size_t n, int t, int peer, Comm* c, void*) { return queue(c, true, b, n, t, peer); }
int ncclRecv(void* b, size_t n, int t, int peer, Comm* c, void*) { return queue(c, false, b, n, t, peer); }
int ncclGroupStart() { ++depth; return 0; }
int ncclGroupEnd() {
  if (depth == 0) return 5;
  if (--depth > 0) return 0;
  int rc = 0;
  // every send of the group is posted before any receive waits: no rank waits on one that has not sent yet
  for (const Op& op : pending) if (op.send && rc == 0) rc = deliver(op);
  for (const Op& op : pending) if (!op.send && rc == 0) rc = deliver(op);
  pending.clear();
  return rc;
}
}
