//===- Workspace.cpp - What each thread keeps between kernel calls --------===//
//
// Two kinds of per-thread memory live here, in one block per thread:
//
// - The arena of compiled forwards. nn-plan-buffers gives every statically
//   sized intermediate of a forward an offset in one arena, and the forward
//   asks for that arena here at entry and hands it back at exit. Each thread
//   keeps its arena between calls, so a model served on a thread allocates
//   once, not per call, and concurrent forwards on different threads never
//   share one (the compiled code stays re-entrant).
// - The kernels' kept buffers (Kept in KernelsInternal.h: packing blocks,
//   per-call packed weights, convolution and attention scratch), each grown
//   to its largest use.
//
// A block lives in a pthread key whose destructor frees it when its thread
// exits (thread_local would need libstdc++'s __cxa_thread_atexit to free
// anything, and this archive links without it). Every block is also on one
// list, because this archive is linked into shared objects that may be
// dlclose'd while the threads that ran them live on: the key's destructor
// would then point into unmapped code, so unloading deletes the key and
// frees the blocks itself. A pool worker's block is made by the thread that
// starts the worker, so that loops can presize it (ThreadPool.cpp).
//
// Plain pthreads and libc, no libstdc++ (see ThreadPool.cpp).
//
//===----------------------------------------------------------------------===//

#include "KernelsInternal.h"

#include <atomic>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

namespace nn_rt {

/// One thread's cached memory.
struct ThreadBuffers {
  void *data; // the arena
  int64_t bytes;
  bool out; // the arena is acquired and not yet released
  KeptBuffer kept[int(Kept::count)];
  ThreadBuffers *prev, *next;
};

} // namespace nn_rt

namespace {

using nn_rt::ThreadBuffers;

constexpr int64_t kAlignment = 64;

pthread_once_t keyOnce = PTHREAD_ONCE_INIT;
pthread_key_t key;
bool haveKey = false;
/// Guards `blocks`, the list of every thread's block.
pthread_mutex_t listMutex = PTHREAD_MUTEX_INITIALIZER;
ThreadBuffers *blocks = nullptr;
std::atomic<int64_t> allocations{0};

/// `bytes` (at least one) rounded up to whole alignment units, aligned;
/// aborts with a message when memory is exhausted (the generated code has no
/// error path for it, and a null arena would only fault later).
void *allocate(int64_t bytes) {
  if (bytes < 1)
    bytes = 1;
  bytes = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void *data = aligned_alloc(kAlignment, static_cast<size_t>(bytes));
  if (!data) {
    static const char message[] =
        "nn: out of memory allocating a forward's workspace\n";
    ssize_t ignored = write(2, message, sizeof(message) - 1);
    (void)ignored;
    abort();
  }
  allocations.fetch_add(1, std::memory_order_relaxed);
  return data;
}

void unlink(ThreadBuffers *block) {
  pthread_mutex_lock(&listMutex);
  if (block->prev)
    block->prev->next = block->next;
  else
    blocks = block->next;
  if (block->next)
    block->next->prev = block->prev;
  pthread_mutex_unlock(&listMutex);
}

/// Frees everything `block` holds, and the block.
void freeBlock(ThreadBuffers *block) {
  nn_rt::releaseKept(block);
  free(block->data);
  free(block);
}

/// The key's destructor: the thread exits.
void destroyBlock(void *value) {
  auto *block = static_cast<ThreadBuffers *>(value);
  unlink(block);
  freeBlock(block);
}

void createKey() { haveKey = pthread_key_create(&key, destroyBlock) == 0; }

/// Runs when this copy of the archive is unloaded (dlclose, or process
/// exit): no thread-exit destructor may run into unmapped code afterwards.
/// Memory that a forward or a parallel loop running right now may be using
/// (another thread's, at exit) is left to leak rather than freed under it:
/// a block whose arena is out, and everything while a loop runs.
__attribute__((destructor)) void releaseAllBlocks() {
  if (!haveKey)
    return;
  pthread_key_delete(key);
  haveKey = false;
  if (!nn_rt::retirePool())
    return;
  pthread_mutex_lock(&listMutex);
  for (ThreadBuffers *block = blocks, *next; block; block = next) {
    next = block->next;
    if (!block->out)
      freeBlock(block);
  }
  blocks = nullptr;
  pthread_mutex_unlock(&listMutex);
}

/// This thread's block if it has one already (never creates it).
ThreadBuffers *existingBlock() {
  return haveKey ? static_cast<ThreadBuffers *>(pthread_getspecific(key))
                 : nullptr;
}

/// This thread's block, or null (no key, or out of memory).
ThreadBuffers *threadBlock() {
  pthread_once(&keyOnce, createKey);
  if (ThreadBuffers *block = existingBlock())
    return block;
  ThreadBuffers *block = nn_rt::createThreadBuffers(); // null without a key
  if (block && !nn_rt::adoptThreadBuffers(block)) {
    nn_rt::destroyThreadBuffers(block);
    block = nullptr;
  }
  return block;
}

/// The kept buffers of a thread without a block (see keptBuffer).
thread_local nn_rt::KeptBuffer blocklessKept[int(nn_rt::Kept::count)];

} // namespace

namespace nn_rt {

ThreadBuffers *createThreadBuffers() {
  pthread_once(&keyOnce, createKey);
  if (!haveKey)
    return nullptr;
  auto *block = static_cast<ThreadBuffers *>(calloc(1, sizeof(ThreadBuffers)));
  if (!block)
    return nullptr;
  pthread_mutex_lock(&listMutex);
  block->next = blocks;
  if (blocks)
    blocks->prev = block;
  blocks = block;
  pthread_mutex_unlock(&listMutex);
  return block;
}

bool adoptThreadBuffers(ThreadBuffers *block) {
  return block && haveKey && pthread_setspecific(key, block) == 0;
}

void destroyThreadBuffers(ThreadBuffers *block) {
  if (!block)
    return;
  unlink(block);
  freeBlock(block);
}

bool reserveScratch(ThreadBuffers *block, const LoopScratch &scratch) {
  if (!block)
    return false;
  bool ok = true;
  for (int kind = 0; kind < int(Kept::count); ++kind)
    if (scratch.floats[kind] > 0 &&
        !reserve(block->kept[kind], scratch.floats[kind]))
      ok = false;
  return ok;
}

void releaseKept(ThreadBuffers *block) {
  for (KeptBuffer &buffer : block->kept) {
    free(buffer.data);
    buffer = {};
  }
}

/// The calling thread's kept buffer of `kind`.
KeptBuffer &keptOf(Kept kind) {
  ThreadBuffers *block = threadBlock();
  return block ? block->kept[int(kind)] : blocklessKept[int(kind)];
}

float *keptBuffer(Kept kind, int64_t floats) {
  return reserve(keptOf(kind), floats);
}

int64_t keptFloats(Kept kind) { return keptOf(kind).floats; }

} // namespace nn_rt

extern "C" void *nn_rt_workspace_acquire(int64_t bytes) {
  ThreadBuffers *block = threadBlock();
  // Nested (or no key): a block of its own, freed by its release.
  if (!block || block->out)
    return allocate(bytes);
  if (block->bytes < bytes || !block->data) {
    free(block->data);
    block->data = nullptr;
    block->bytes = 0;
    block->data = allocate(bytes);
    block->bytes = bytes;
  }
  block->out = true;
  return block->data;
}

extern "C" void nn_rt_workspace_release(void *data) {
  if (!data)
    return;
  ThreadBuffers *block = existingBlock();
  if (block && block->out && block->data == data) {
    block->out = false;
    return;
  }
  free(data);
}

extern "C" int64_t nn_rt_workspace_allocations(void) {
  return allocations.load(std::memory_order_relaxed);
}

extern "C" void nn_rt_release_cached_memory(void) {
  if (ThreadBuffers *block = existingBlock()) {
    nn_rt::releaseKept(block);
    if (!block->out) {
      free(block->data);
      block->data = nullptr;
      block->bytes = 0;
    }
  }
  nn_rt::releaseWorkerBuffers();
}
