/* A stand-in for the NVIDIA driver (libcuda.so.1) with the entry points nn
 * resolves, so the runtime's driver layer is tested where no GPU exists.
 * Its "device memory" is host memory: an allocation is malloc'd behind a
 * header that records its size, and copies are memcpy. The addresses it
 * hands out carry a tag in bit 62, which makes them non-canonical: like a
 * real GPU's, they fault when the CPU reads or writes through them, so a
 * test catches code that touches device memory from the host.
 *
 *   NN_FAKE_CUDA_DEVICES  how many GPUs it reports (default 1; 0 makes cuInit
 *                         fail with CUDA_ERROR_NO_DEVICE, as a driver on a
 *                         machine without GPUs does)
 *   NN_FAKE_CUDA_MEMORY   bytes of memory each reports (default 1 GiB);
 *                         cuMemAlloc fails with CUDA_ERROR_OUT_OF_MEMORY
 *                         past it
 *   NN_FAKE_CUDA_CC       the compute capability each reports, as "90"
 *                         (the default) or "80"
 *   NN_FAKE_CUDA_KERNELS  a shared object of nn's emitted kernels compiled
 *                         as host C++ (tests/Unit/Conversion/Inputs/
 *                         CudaEmulation.h): launches run them
 *
 * Modules hold their image: PTX text, where a kernel is found by its entry
 * (".entry <name>("), or a cubin (ELF), where it is found by its name in a
 * string table. Launches are checked as the driver checks their shape and
 * counted (nn_fake_cuda_launches). Without NN_FAKE_CUDA_KERNELS they are
 * not run; with it, a launch calls the kernel's emulation
 * (<name>_emulated) on a copy of its parameters, each device address
 * turned back into the host address behind it, so what a compiled model
 * computes "on the GPU" is checked on the CPU.
 */
#define _GNU_SOURCE /* memmem */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st {
  int device;
} * CUcontext;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_FOUND = 500,
};

#define EXPORT __attribute__((visibility("default")))
enum { kMaxDevices = 8 };

static int initialized;
static struct CUctx_st contexts[kMaxDevices];
static __thread CUcontext current;
static size_t used[kMaxDevices];

static int devices(void) {
  const char *e = getenv("NN_FAKE_CUDA_DEVICES");
  int n = e ? atoi(e) : 1;
  return n < 0 ? 0 : n > kMaxDevices ? kMaxDevices : n;
}

static size_t capacity(void) {
  const char *e = getenv("NN_FAKE_CUDA_MEMORY");
  return e ? (size_t)strtoull(e, NULL, 10) : (size_t)1 << 30;
}

static int compute_capability(void) {
  const char *e = getenv("NN_FAKE_CUDA_CC");
  return e ? atoi(e) : 90;
}

EXPORT CUresult cuInit(unsigned flags) {
  if (flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (devices() == 0)
    return CUDA_ERROR_NO_DEVICE;
  initialized = 1;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDriverGetVersion(int *version) {
  *version = 13000;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuGetErrorName(CUresult error, const char **name) {
  switch (error) {
  case CUDA_ERROR_INVALID_VALUE:
    *name = "CUDA_ERROR_INVALID_VALUE";
    break;
  case CUDA_ERROR_OUT_OF_MEMORY:
    *name = "CUDA_ERROR_OUT_OF_MEMORY";
    break;
  case CUDA_ERROR_NOT_INITIALIZED:
    *name = "CUDA_ERROR_NOT_INITIALIZED";
    break;
  case CUDA_ERROR_NO_DEVICE:
    *name = "CUDA_ERROR_NO_DEVICE";
    break;
  case CUDA_ERROR_INVALID_DEVICE:
    *name = "CUDA_ERROR_INVALID_DEVICE";
    break;
  case CUDA_ERROR_INVALID_CONTEXT:
    *name = "CUDA_ERROR_INVALID_CONTEXT";
    break;
  case CUDA_ERROR_INVALID_IMAGE:
    *name = "CUDA_ERROR_INVALID_IMAGE";
    break;
  case CUDA_ERROR_NOT_FOUND:
    *name = "CUDA_ERROR_NOT_FOUND";
    break;
  default:
    *name = NULL;
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

EXPORT CUresult cuGetErrorString(CUresult error, const char **text) {
  switch (error) {
  case CUDA_ERROR_OUT_OF_MEMORY:
    *text = "out of memory";
    break;
  case CUDA_ERROR_INVALID_DEVICE:
    *text = "invalid device ordinal";
    break;
  case CUDA_ERROR_INVALID_CONTEXT:
    *text = "invalid device context";
    break;
  case CUDA_ERROR_INVALID_VALUE:
    *text = "invalid argument";
    break;
  case CUDA_ERROR_NOT_FOUND:
    *text = "named symbol not found";
    break;
  default:
    *text = NULL;
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetCount(int *count) {
  if (!initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  *count = devices();
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (!initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (ordinal < 0 || ordinal >= devices())
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetName(char *name, int length, CUdevice device) {
  if (device < 0 || device >= devices())
    return CUDA_ERROR_INVALID_DEVICE;
  snprintf(name, (size_t)length, "nn fake GPU %d", device);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetAttribute(int *value, int attribute,
                                     CUdevice device) {
  if (device < 0 || device >= devices())
    return CUDA_ERROR_INVALID_DEVICE;
  switch (attribute) {
  case 16:
    *value = 132;
    return CUDA_SUCCESS; /* multiprocessors */
  case 75:
    *value = compute_capability() / 10;
    return CUDA_SUCCESS; /* compute capability */
  case 76:
    *value = compute_capability() % 10;
    return CUDA_SUCCESS;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
}

EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice device) {
  if (device < 0 || device >= devices())
    return CUDA_ERROR_INVALID_DEVICE;
  *bytes = capacity();
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device) {
  if (device < 0 || device >= devices())
    return CUDA_ERROR_INVALID_DEVICE;
  contexts[device].device = device;
  *context = &contexts[device];
  return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSetCurrent(CUcontext context) {
  current = context;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuMemGetInfo_v2(size_t *free, size_t *total) {
  if (!current)
    return CUDA_ERROR_INVALID_CONTEXT;
  *total = capacity();
  *free = *total - used[current->device];
  return CUDA_SUCCESS;
}

/* Each allocation: a 512-byte header holding its size and device and its
 * links in the list of live allocations, then the bytes, so the pointer
 * handed out is 512-byte aligned, as the driver's are aligned at least.
 * The list keeps every live block reachable through untagged pointers: a
 * caching allocator holds its blocks for the life of the process, as
 * PyTorch's does, and LeakSanitizer does not see the tagged addresses. */
enum { kHeader = 512 };
#define TAG (1ull << 62)

struct block_links {
  char *prev, *next;
};
static char *live;
static pthread_mutex_t live_mutex = PTHREAD_MUTEX_INITIALIZER;

static struct block_links *links(char *block) {
  return (struct block_links *)(block + 2 * sizeof(size_t));
}

static void link_block(char *block) {
  pthread_mutex_lock(&live_mutex);
  links(block)->prev = NULL;
  links(block)->next = live;
  if (live)
    links(live)->prev = block;
  live = block;
  pthread_mutex_unlock(&live_mutex);
}

static void unlink_block(char *block) {
  pthread_mutex_lock(&live_mutex);
  struct block_links *l = links(block);
  if (l->prev)
    links(l->prev)->next = l->next;
  else
    live = l->next;
  if (l->next)
    links(l->next)->prev = l->prev;
  pthread_mutex_unlock(&live_mutex);
}

static char *host(CUdeviceptr p) { return (char *)(uintptr_t)(p - TAG); }

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  if (!current)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  int device = current->device;
  if (bytes > capacity() - used[device])
    return CUDA_ERROR_OUT_OF_MEMORY;
  char *block = aligned_alloc(kHeader, kHeader + ((bytes + 511) / 512) * 512);
  if (!block)
    return CUDA_ERROR_OUT_OF_MEMORY;
  memcpy(block, &bytes, sizeof bytes);
  memcpy(block + sizeof bytes, &device, sizeof device);
  used[device] += bytes;
  link_block(block);
  *pointer = (CUdeviceptr)(uintptr_t)(block + kHeader) + TAG;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr pointer) {
  if (!pointer)
    return CUDA_SUCCESS;
  char *block = host(pointer) - kHeader;
  size_t bytes;
  int device;
  memcpy(&bytes, block, sizeof bytes);
  memcpy(&device, block + sizeof bytes, sizeof device);
  used[device] -= bytes;
  unlink_block(block);
  free(block);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src,
                                size_t bytes) {
  memcpy(host(dst), src, bytes);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes) {
  memcpy(dst, host(src), bytes);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src,
                                size_t bytes) {
  memmove(host(dst), host(src), bytes);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value,
                              size_t count) {
  memset(host(dst), value, count);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSynchronize(void) {
  return current ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

/* A kernel: its emulation, when NN_FAKE_CUDA_KERNELS has one. */
typedef void (*emulated_kernel)(const void *params, unsigned grid,
                                unsigned block);
typedef struct CUfunc_st {
  emulated_kernel run;
  size_t params_bytes;
} * CUfunction;
typedef struct CUstream_st *CUstream;

enum { kMaxFunctions = 4096 };
typedef struct CUmod_st {
  char *image;
  size_t size;
  int elf;
  struct CUfunc_st functions[kMaxFunctions];
  int function_count;
} * CUmodule;

/* The size of a 64-bit ELF file: its section headers come last. */
static size_t elf_size(const unsigned char *image) {
  uint64_t shoff;
  uint16_t shentsize, shnum;
  memcpy(&shoff, image + 0x28, sizeof shoff);
  memcpy(&shentsize, image + 0x3A, sizeof shentsize);
  memcpy(&shnum, image + 0x3C, sizeof shnum);
  return (size_t)shoff + (size_t)shentsize * shnum;
}

static void *emulated_kernels(void) {
  static void *library;
  static int opened;
  if (!opened) {
    opened = 1;
    const char *path = getenv("NN_FAKE_CUDA_KERNELS");
    if (path && !(library = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
      fprintf(stderr, "fake libcuda: %s\n", dlerror());
  }
  return library;
}

EXPORT CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  if (!current)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (!image)
    return CUDA_ERROR_INVALID_IMAGE;
  int elf = memcmp(image, "\177ELF", 4) == 0;
  if (!elf && !strstr((const char *)image, ".entry "))
    return CUDA_ERROR_INVALID_IMAGE;
  CUmodule m = calloc(1, sizeof *m);
  m->elf = elf;
  m->size = elf ? elf_size(image) : strlen((const char *)image);
  m->image = malloc(m->size + 1);
  memcpy(m->image, image, m->size);
  m->image[m->size] = 0;
  *module = m;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuModuleUnload(CUmodule module) {
  free(module->image);
  free(module);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuModuleGetFunction(CUfunction *function, CUmodule module,
                                    const char *name) {
  char entry[256];
  if (module->elf) /* the name in a string table: between two NULs */
    entry[0] = 0, snprintf(entry + 1, sizeof entry - 1, "%s", name);
  else
    snprintf(entry, sizeof entry, ".entry %s(", name);
  size_t length = module->elf ? strlen(name) + 2 : strlen(entry);
  if (!memmem(module->image, module->size + 1, entry, length))
    return CUDA_ERROR_NOT_FOUND;
  if (module->function_count == kMaxFunctions)
    return CUDA_ERROR_OUT_OF_MEMORY;
  CUfunction f = &module->functions[module->function_count++];
  if (emulated_kernels()) {
    char symbol[300];
    snprintf(symbol, sizeof symbol, "%s_emulated", name);
    f->run = (emulated_kernel)dlsym(emulated_kernels(), symbol);
    snprintf(symbol, sizeof symbol, "%s_params_bytes", name);
    const unsigned long *bytes = dlsym(emulated_kernels(), symbol);
    if (!f->run || !bytes) {
      fprintf(stderr, "fake libcuda: no emulation of %s\n", name);
      return CUDA_ERROR_NOT_FOUND;
    }
    f->params_bytes = *bytes;
  }
  *function = f;
  return CUDA_SUCCESS;
}

static int launches;

EXPORT int nn_fake_cuda_launches(void) { return launches; }

EXPORT CUresult cuLaunchKernel(CUfunction function, unsigned gridX,
                               unsigned gridY, unsigned gridZ, unsigned blockX,
                               unsigned blockY, unsigned blockZ,
                               unsigned sharedBytes, CUstream stream,
                               void **parameters, void **extra) {
  (void)stream, (void)extra;
  if (!current)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (!function)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!gridX || !gridY || !gridZ || !blockX || !blockY || !blockZ ||
      (unsigned long long)blockX * blockY * blockZ > 1024 ||
      sharedBytes > 48 * 1024)
    return CUDA_ERROR_INVALID_VALUE;
  ++launches;
  if (function->run) {
    /* nn's kernels take one struct of pointers: untag each. */
    enum { kMaxParams = 256 };
    uint64_t words[kMaxParams];
    size_t count = function->params_bytes / sizeof(uint64_t);
    if (count > kMaxParams || gridY != 1 || gridZ != 1 || blockY != 1 ||
        blockZ != 1)
      return CUDA_ERROR_INVALID_VALUE;
    memcpy(words, parameters[0], count * sizeof(uint64_t));
    for (size_t i = 0; i < count; ++i)
      if (words[i] & TAG)
        words[i] -= TAG;
    function->run(words, gridX, blockX);
  }
  return CUDA_SUCCESS;
}
