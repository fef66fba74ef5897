//===- Workspace.cpp - The per-thread arena of compiled forwards ----------===//
//
// nn-plan-buffers gives every statically sized intermediate of a forward an
// offset in one arena, and the forward asks for that arena here at entry and
// hands it back at exit. Each thread keeps its block between calls, so a
// model served on a thread allocates once, not per call, and concurrent
// forwards on different threads never share one (the compiled code stays
// re-entrant).
//
// A block lives in a pthread key whose destructor frees it when its thread
// exits. Every block is also on one list, because this archive is linked
// into shared objects that may be dlclose'd while the threads that ran them
// live on: the key's destructor would then point into unmapped code, so
// unloading deletes the key and frees the blocks itself.
//
// Plain pthreads and libc, no libstdc++ (see ThreadPool.cpp).
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Kernels.h"

#include <atomic>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

namespace {

constexpr int64_t kAlignment = 64;

/// One thread's cached block.
struct Block {
  void *data;
  int64_t bytes;
  bool out; // acquired and not yet released
  Block *prev, *next;
};

pthread_once_t keyOnce = PTHREAD_ONCE_INIT;
pthread_key_t key;
bool haveKey = false;
/// Guards `blocks`, the list of every thread's block.
pthread_mutex_t listMutex = PTHREAD_MUTEX_INITIALIZER;
Block *blocks = nullptr;
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

void unlink(Block *block) {
  pthread_mutex_lock(&listMutex);
  if (block->prev)
    block->prev->next = block->next;
  else
    blocks = block->next;
  if (block->next)
    block->next->prev = block->prev;
  pthread_mutex_unlock(&listMutex);
}

/// The key's destructor: the thread exits.
void destroyBlock(void *value) {
  auto *block = static_cast<Block *>(value);
  unlink(block);
  free(block->data);
  free(block);
}

void createKey() { haveKey = pthread_key_create(&key, destroyBlock) == 0; }

/// Runs when this copy of the archive is unloaded (dlclose, or process
/// exit): no thread-exit destructor may run into unmapped code afterwards.
/// A block still out belongs to a forward running right now; it is left to
/// leak rather than freed under it.
__attribute__((destructor)) void releaseAllBlocks() {
  if (!haveKey)
    return;
  pthread_key_delete(key);
  haveKey = false;
  pthread_mutex_lock(&listMutex);
  for (Block *block = blocks, *next; block; block = next) {
    next = block->next;
    if (block->out)
      continue;
    free(block->data);
    free(block);
  }
  blocks = nullptr;
  pthread_mutex_unlock(&listMutex);
}

/// This thread's block, created (empty) on its first call.
Block *threadBlock() {
  pthread_once(&keyOnce, createKey);
  if (!haveKey)
    return nullptr;
  auto *block = static_cast<Block *>(pthread_getspecific(key));
  if (block)
    return block;
  block = static_cast<Block *>(calloc(1, sizeof(Block)));
  if (!block)
    return nullptr;
  if (pthread_setspecific(key, block) != 0) {
    free(block);
    return nullptr;
  }
  pthread_mutex_lock(&listMutex);
  block->next = blocks;
  if (blocks)
    blocks->prev = block;
  blocks = block;
  pthread_mutex_unlock(&listMutex);
  return block;
}

} // namespace

extern "C" void *nn_rt_workspace_acquire(int64_t bytes) {
  Block *block = threadBlock();
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
  auto *block =
      haveKey ? static_cast<Block *>(pthread_getspecific(key)) : nullptr;
  if (block && block->out && block->data == data) {
    block->out = false;
    return;
  }
  free(data);
}

extern "C" int64_t nn_rt_workspace_allocations(void) {
  return allocations.load(std::memory_order_relaxed);
}
