/* mk/cuda.c -- the CUDA driver as a device backend (mk/device.h).
 *
 * libgex does not link the CUDA driver: the same library runs where there
 * is no GPU.  The driver (libcuda.so.1, or the file GEX_CUDA_DRIVER names)
 * is loaded when a CUDA_UVA kind is first made; where it cannot be loaded,
 * initialised or has no such device, gex_MK_Create says why in one line
 * and returns GASNET_ERR_RESOURCE.
 *
 * The few driver entry points used are declared here, by their ABI names
 * (the _v2 ones where the driver has both).  Where the build found the
 * CUDA headers (GEXI_HAVE_CUDA_H), each declaration is checked against
 * them at compile time.
 *
 * Memory libgex allocates lives in the device's primary context, which
 * each call makes current on the calling thread for its duration (push,
 * then pop), so any thread may call and the client's own current context
 * is left as it was.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "mk/device.h"

/* (CUresult and CUpointer_attribute are enumerations, which the compiler
 * represents as unsigned int; a context is a pointer to an opaque struct
 * of the driver's tag.) */
typedef unsigned int gexi_CUresult;
typedef int gexi_CUdevice;
typedef struct CUctx_st *gexi_CUcontext;
typedef unsigned long long gexi_CUdeviceptr;
typedef struct CUstream_st *gexi_CUstream;
typedef struct CUevent_st *gexi_CUevent;
#define GEXI_CU_POINTER_ATTRIBUTE_MEMORY_TYPE 2
#define GEXI_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL 9
#define GEXI_CU_EVENT_DISABLE_TIMING 2
#define GEXI_CUDA_ERROR_NOT_READY 600
/* The calling thread's default stream, in any context. */
#define GEXI_CU_STREAM_PER_THREAD ((gexi_CUstream)0x2)

/* name, return and parameter types: one line per entry point used. */
#define GEXI_CU_ENTRIES(X)                                                              \
  X(cuInit, "cuInit", (unsigned int))                                                   \
  X(cuDeviceGetCount, "cuDeviceGetCount", (int *))                                      \
  X(cuDeviceGet, "cuDeviceGet", (gexi_CUdevice *, int))                                 \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (gexi_CUcontext *, gexi_CUdevice)) \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", (gexi_CUdevice))         \
  X(cuCtxPushCurrent, "cuCtxPushCurrent_v2", (gexi_CUcontext))                          \
  X(cuCtxPopCurrent, "cuCtxPopCurrent_v2", (gexi_CUcontext *))                          \
  X(cuMemAlloc, "cuMemAlloc_v2", (gexi_CUdeviceptr *, size_t))                          \
  X(cuMemFree, "cuMemFree_v2", (gexi_CUdeviceptr))                                      \
  X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2",                                          \
    (gexi_CUdeviceptr, const void *, size_t, gexi_CUstream))                            \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2",                                          \
    (void *, gexi_CUdeviceptr, size_t, gexi_CUstream))                                  \
  X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2",                                          \
    (gexi_CUdeviceptr, gexi_CUdeviceptr, size_t, gexi_CUstream))                        \
  X(cuStreamSynchronize, "cuStreamSynchronize", (gexi_CUstream))                        \
  X(cuEventCreate, "cuEventCreate", (gexi_CUevent *, unsigned int))                     \
  X(cuEventRecord, "cuEventRecord", (gexi_CUevent, gexi_CUstream))                      \
  X(cuEventQuery, "cuEventQuery", (gexi_CUevent))                                       \
  X(cuEventDestroy, "cuEventDestroy_v2", (gexi_CUevent))                                \
  X(cuMemAllocHost, "cuMemAllocHost_v2", (void **, size_t))                             \
  X(cuMemFreeHost, "cuMemFreeHost", (void *))                                           \
  X(cuMemGetAddressRange, "cuMemGetAddressRange_v2",                                    \
    (gexi_CUdeviceptr *, size_t *, gexi_CUdeviceptr))                                   \
  X(cuPointerGetAttribute, "cuPointerGetAttribute", (void *, unsigned int, gexi_CUdeviceptr))    \
  X(cuGetErrorString, "cuGetErrorString", (gexi_CUresult, const char **))

/* The IPC entry points take the driver's 64-byte handle structure (by
 * value, to open one); their declarations are checked by size only, as
 * that structure's tag is the driver's. */
typedef struct {
  char reserved[64];
} gexi_CUipcMemHandle;
#define GEXI_CU_IPC_ENTRIES(X)                                                          \
  X(cuIpcGetMemHandle, "cuIpcGetMemHandle", (gexi_CUipcMemHandle *, gexi_CUdeviceptr))  \
  X(cuIpcOpenMemHandle, "cuIpcOpenMemHandle_v2",                                        \
    (gexi_CUdeviceptr *, gexi_CUipcMemHandle, unsigned int))
#define GEXI_CU_IPC_LAZY_ENABLE_PEER_ACCESS 1

struct cu {
  void *lib;
#define X(f, sym, args) gexi_CUresult(*fn_##f) args;
  GEXI_CU_ENTRIES(X)
  GEXI_CU_IPC_ENTRIES(X)
#undef X
  gexi_CUdevice dev;
  gexi_CUcontext ctx;
  /* Events of finished copies, kept for the next started ones: creating
   * and destroying one per copy costs more than the copy's own start. */
  pthread_mutex_t pool_lock;
  unsigned npool;
  gexi_CUevent pool[64];
};

#if GEXI_HAVE_CUDA_H
#include <cuda.h>
/* Our declarations are the driver's (cuda.h maps each name to the ABI
 * symbol loaded above). */
#define X(f, sym, args)                                                                    \
  _Static_assert(__builtin_types_compatible_p(__typeof__(&f), __typeof__(((struct cu *)0)->fn_##f)), \
                 "libgex's declaration of " #f " is not cuda.h's");
GEXI_CU_ENTRIES(X)
#undef X
_Static_assert(sizeof(CUdeviceptr) == sizeof(gexi_CUdeviceptr), "CUdeviceptr");
_Static_assert(sizeof(CUdevice) == sizeof(gexi_CUdevice), "CUdevice");
_Static_assert(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL == GEXI_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
               "CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL");
_Static_assert(CU_POINTER_ATTRIBUTE_MEMORY_TYPE == GEXI_CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
               "CU_POINTER_ATTRIBUTE_MEMORY_TYPE");
_Static_assert(CU_EVENT_DISABLE_TIMING == GEXI_CU_EVENT_DISABLE_TIMING, "CU_EVENT_DISABLE_TIMING");
_Static_assert(CUDA_ERROR_NOT_READY == GEXI_CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY");
_Static_assert(CUDA_SUCCESS == 0, "CUDA_SUCCESS");
_Static_assert(sizeof(CUipcMemHandle) == sizeof(gexi_CUipcMemHandle), "CUipcMemHandle");
_Static_assert(CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS == GEXI_CU_IPC_LAZY_ENABLE_PEER_ACCESS,
               "CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS");
#endif

static struct cu *C(struct gexi_device *d) { return d->impl; }

static const char *cu_error(struct cu *c, gexi_CUresult r) {
  const char *s = NULL;
  if (c->fn_cuGetErrorString && c->fn_cuGetErrorString(r, &s) == 0 && s) return s;
  return "an error the driver does not name";
}

/* Run 'call' with the primary context current on this thread. */
#define IN_CTX(c, res, call)                                      \
  do {                                                            \
    gexi_CUcontext old_;                                          \
    (res) = (c)->fn_cuCtxPushCurrent((c)->ctx);                      \
    if ((res) == 0) {                                             \
      (res) = (call);                                             \
      (void)(c)->fn_cuCtxPopCurrent(&old_);                          \
    }                                                             \
  } while (0)

static int cu_alloc(struct gexi_device *d, size_t n, uintptr_t *ptr, const char **why) {
  struct cu *c = C(d);
  gexi_CUdeviceptr p = 0;
  gexi_CUresult r;
  IN_CTX(c, r, c->fn_cuMemAlloc(&p, n));
  if (r) {
    *why = cu_error(c, r);
    return 1;
  }
  *ptr = (uintptr_t)p;
  return 0;
}

static void cu_free(struct gexi_device *d, uintptr_t ptr) {
  struct cu *c = C(d);
  gexi_CUresult r;
  IN_CTX(c, r, c->fn_cuMemFree((gexi_CUdeviceptr)ptr));
  (void)r;
}

static int cu_owns(struct gexi_device *d, uintptr_t ptr, size_t n) {
  struct cu *c = C(d);
  gexi_CUdeviceptr base = 0;
  size_t size = 0;
  int ordinal = -1;
  gexi_CUresult r;
  IN_CTX(c, r, c->fn_cuMemGetAddressRange(&base, &size, (gexi_CUdeviceptr)ptr));
  if (r) return 0;
  IN_CTX(c, r, c->fn_cuPointerGetAttribute(&ordinal, GEXI_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                        (gexi_CUdeviceptr)ptr));
  if (r || ordinal != d->ordinal) return 0;
  return ptr - (uintptr_t)base <= size && n <= size - (ptr - (uintptr_t)base);
}

/* A copy on the calling thread's stream, waited for: on return it has
 * landed, where any process's copies and kernels see it.  The driver's
 * synchronous copies (cuMemcpyHtoD, ...) do not promise that: one out of
 * pageable host memory returns once the source is staged, one between
 * device addresses at once, before the data is there. */
static int cu_copy(struct gexi_device *d, int dir, uintptr_t dst, uintptr_t src, size_t n,
                   const char **why) {
  struct cu *c = C(d);
  gexi_CUresult r;
  const gexi_CUstream st = GEXI_CU_STREAM_PER_THREAD;
  if (dir == GEXI_DEV_HTOD)
    IN_CTX(c, r, c->fn_cuMemcpyHtoDAsync((gexi_CUdeviceptr)dst, (const void *)src, n, st));
  else if (dir == GEXI_DEV_DTOH)
    IN_CTX(c, r, c->fn_cuMemcpyDtoHAsync((void *)dst, (gexi_CUdeviceptr)src, n, st));
  else
    IN_CTX(c, r, c->fn_cuMemcpyDtoDAsync((gexi_CUdeviceptr)dst, (gexi_CUdeviceptr)src, n, st));
  if (!r) IN_CTX(c, r, c->fn_cuStreamSynchronize(st));
  if (r) *why = cu_error(c, r);
  return r != 0;
}

/* A started copy is one on the calling thread's default stream, followed
 * by an event that copy_done queries (one push of the context for all of
 * it).  The driver returns from a copy out of pageable host memory once it
 * has staged the source, and from a copy into pageable memory once it is
 * done; a copy out of page-locked host memory would read it later, so that
 * one is made synchronously (the host source must be the caller's again on
 * return, mk/device.h). */
static gexi_CUevent event_take(struct cu *c) {
  gexi_CUevent ev = NULL;
  pthread_mutex_lock(&c->pool_lock);
  if (c->npool) ev = c->pool[--c->npool];
  pthread_mutex_unlock(&c->pool_lock);
  return ev;
}
static void event_give(struct cu *c, gexi_CUevent ev) {
  pthread_mutex_lock(&c->pool_lock);
  int kept = c->npool < sizeof c->pool / sizeof c->pool[0];
  if (kept) c->pool[c->npool++] = ev;
  pthread_mutex_unlock(&c->pool_lock);
  if (!kept) {
    gexi_CUresult r;
    IN_CTX(c, r, c->fn_cuEventDestroy(ev));
    (void)r;
  }
}

static int cu_copy_start(struct gexi_device *d, int dir, uintptr_t dst, uintptr_t src, size_t n,
                         void **op, const char **why) {
  struct cu *c = C(d);
  const gexi_CUstream st = GEXI_CU_STREAM_PER_THREAD;
  gexi_CUevent ev = event_take(c);
  gexi_CUcontext old;
  gexi_CUresult r = c->fn_cuCtxPushCurrent(c->ctx);
  *op = NULL;
  if (!r) {
    unsigned int type = 0;
    if (dir == GEXI_DEV_HTOD &&
        c->fn_cuPointerGetAttribute(&type, GEXI_CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                    (gexi_CUdeviceptr)src) == 0) {
      (void)c->fn_cuCtxPopCurrent(&old); /* known to the driver: page-locked */
      if (ev) event_give(c, ev);
      return cu_copy(d, dir, dst, src, n, why);
    }
    if (dir == GEXI_DEV_HTOD)
      r = c->fn_cuMemcpyHtoDAsync((gexi_CUdeviceptr)dst, (const void *)src, n, st);
    else if (dir == GEXI_DEV_DTOH)
      r = c->fn_cuMemcpyDtoHAsync((void *)dst, (gexi_CUdeviceptr)src, n, st);
    else
      r = c->fn_cuMemcpyDtoDAsync((gexi_CUdeviceptr)dst, (gexi_CUdeviceptr)src, n, st);
    if (!r && !ev) r = c->fn_cuEventCreate(&ev, GEXI_CU_EVENT_DISABLE_TIMING);
    if (!r) r = c->fn_cuEventRecord(ev, st);
    (void)c->fn_cuCtxPopCurrent(&old);
  }
  if (r) {
    if (ev) event_give(c, ev);
    *why = cu_error(c, r);
    return 1;
  }
  *op = ev;
  return 0;
}

static int cu_copy_done(struct gexi_device *d, void *op, const char **why) {
  struct cu *c = C(d);
  gexi_CUresult q;
  IN_CTX(c, q, c->fn_cuEventQuery((gexi_CUevent)op));
  if (q == GEXI_CUDA_ERROR_NOT_READY) return 0;
  event_give(c, (gexi_CUevent)op);
  if (q) *why = cu_error(c, q);
  return q ? -1 : 1;
}

/* Page-locked host memory, in the primary context (reached directly by
 * every device's copies: it is portable under unified addressing). */
static int cu_host_alloc(struct gexi_device *d, size_t n, void **p) {
  struct cu *c = C(d);
  gexi_CUresult r;
  IN_CTX(c, r, c->fn_cuMemAllocHost(p, n));
  return r != 0;
}
static void cu_host_free(struct gexi_device *d, void *p) {
  struct cu *c = C(d);
  gexi_CUresult r;
  IN_CTX(c, r, c->fn_cuMemFreeHost(p));
  (void)r;
}

_Static_assert(sizeof(gexi_CUipcMemHandle) <= GEXI_DEV_IPC_BYTES, "an IPC handle fits");

static int cu_ipc_export(struct gexi_device *d, uintptr_t ptr, struct gexi_dev_ipc *h,
                         const char **why) {
  struct cu *c = C(d);
  gexi_CUdeviceptr base = 0;
  size_t size = 0;
  gexi_CUipcMemHandle ih;
  gexi_CUresult r;
  IN_CTX(c, r, c->fn_cuMemGetAddressRange(&base, &size, (gexi_CUdeviceptr)ptr));
  if (!r) IN_CTX(c, r, c->fn_cuIpcGetMemHandle(&ih, base));
  if (r) {
    *why = cu_error(c, r);
    return 1;
  }
  memset(h, 0, sizeof *h);
  memcpy(h->bytes, &ih, sizeof ih);
  h->offset = ptr - (uintptr_t)base;
  return 0;
}

static int cu_ipc_open(struct gexi_device *d, const struct gexi_dev_ipc *h, size_t n,
                       uintptr_t *ptr, const char **why) {
  struct cu *c = C(d);
  gexi_CUipcMemHandle ih;
  gexi_CUdeviceptr p = 0;
  gexi_CUresult r;
  (void)n;
  memcpy(&ih, h->bytes, sizeof ih);
  IN_CTX(c, r, c->fn_cuIpcOpenMemHandle(&p, ih, GEXI_CU_IPC_LAZY_ENABLE_PEER_ACCESS));
  if (r) {
    *why = cu_error(c, r);
    return 1;
  }
  *ptr = (uintptr_t)p + h->offset; /* open while the process lives (its owner never frees it) */
  return 0;
}

static void cu_close(struct gexi_device *d) {
  struct cu *c = C(d);
  gexi_CUresult r;
  for (unsigned i = 0; i < c->npool; i++) IN_CTX(c, r, c->fn_cuEventDestroy(c->pool[i]));
  (void)r;
  pthread_mutex_destroy(&c->pool_lock);
  (void)c->fn_cuDevicePrimaryCtxRelease(c->dev);
  /* The driver stays loaded: the client may hold its own handles to it. */
  free(c);
  free(d);
}

static const struct gexi_device_ops cu_ops = {
    .name = "CUDA",
    .alloc = cu_alloc,
    .free = cu_free,
    .owns = cu_owns,
    .copy = cu_copy,
    .copy_start = cu_copy_start,
    .copy_done = cu_copy_done,
    .host_alloc = cu_host_alloc,
    .host_free = cu_host_free,
    .ipc_export = cu_ipc_export,
    .ipc_open = cu_ipc_open,
    .close = cu_close,
};

struct gexi_device *gexi_cuda_open(int ordinal, char *why, size_t len) {
  const char *file = gexi_ctx.env.cuda_driver ? gexi_ctx.env.cuda_driver : "libcuda.so.1";
  void *lib = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    snprintf(why, len, "the CUDA driver cannot be loaded: %s", dlerror());
    return NULL;
  }
  struct cu *c = calloc(1, sizeof *c);
  struct gexi_device *d = calloc(1, sizeof *d);
  if (!c || !d) {
    snprintf(why, len, "out of memory");
    goto fail;
  }
  c->lib = lib;
  pthread_mutex_init(&c->pool_lock, NULL);
#define X(f, sym, args)                                                                 \
  *(void **)&c->fn_##f = dlsym(lib, sym);                                                    \
  if (!c->fn_##f) {                                                                          \
    snprintf(why, len, "the CUDA driver %s has no %s (too old a driver?)", file, sym);  \
    goto fail;                                                                          \
  }
  GEXI_CU_ENTRIES(X)
  GEXI_CU_IPC_ENTRIES(X)
#undef X
  gexi_CUresult r = c->fn_cuInit(0);
  int count = 0;
  if (!r) r = c->fn_cuDeviceGetCount(&count);
  if (r) {
    snprintf(why, len, "the CUDA driver (%s) cannot start: %s (CUDA error %u)", file,
             cu_error(c, r), r);
    goto fail;
  }
  if (ordinal >= count) {
    snprintf(why, len, "there is no CUDA device %d (this process sees %d)", ordinal, count);
    goto fail;
  }
  if ((r = c->fn_cuDeviceGet(&c->dev, ordinal)) || (r = c->fn_cuDevicePrimaryCtxRetain(&c->ctx, c->dev))) {
    snprintf(why, len, "CUDA device %d cannot be used: %s (CUDA error %u)", ordinal,
             cu_error(c, r), r);
    goto fail;
  }
  d->ops = &cu_ops;
  d->ordinal = ordinal;
  d->impl = c;
  return d;
fail:
  free(c);
  free(d);
  return NULL; /* (the library stays loaded, as a failed dlclose could leave it anyway) */
}
