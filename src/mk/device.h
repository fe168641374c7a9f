/* mk/device.h -- what the device classes of memory kinds need of a device's
 * driver: a small ops table, one per backend (docs/memory-kinds.md).
 *
 *   - mk/cuda.c: the CUDA driver (libcuda.so.1, loaded when a CUDA_UVA
 *     kind is first made; GEX_CUDA_DRIVER names another file), in the
 *     device's primary context;
 *   - mk/test_device.c: a stand-in that serves the same class from host
 *     memory (GEX_MK_TEST_DEVICE=host), so that every path a device kind
 *     takes runs where there is no GPU.  Its "device addresses" are
 *     reserved and inaccessible, like a GPU's to the CPU: code that
 *     touches device memory other than through this table faults.
 *
 * Device memory is named by its address in the process (unified virtual
 * addressing); libgex never dereferences one.  Every call may be made by
 * any thread.
 */
#ifndef GEXI_MK_DEVICE_H
#define GEXI_MK_DEVICE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* The direction of a copy. */
enum { GEXI_DEV_HTOD = 0, GEXI_DEV_DTOH = 1, GEXI_DEV_DTOD = 2 };

/* What another process of the node needs to open an allocation
 * (ipc_export / ipc_open): opaque bytes, the backend's own. */
#define GEXI_DEV_IPC_BYTES 64
struct gexi_dev_ipc {
  unsigned char bytes[GEXI_DEV_IPC_BYTES];
  uint64_t offset; /* of the exported address in its allocation */
};

struct gexi_device;

struct gexi_device_ops {
  const char *name; /* for messages: "CUDA", "test device (host memory)" */
  /* n bytes of device memory at *ptr: 0, or non-zero with *why set. */
  int (*alloc)(struct gexi_device *d, size_t n, uintptr_t *ptr, const char **why);
  void (*free)(struct gexi_device *d, uintptr_t ptr);
  /* Whether [ptr, ptr + n) lies in one allocation of this device's memory. */
  int (*owns)(struct gexi_device *d, uintptr_t ptr, size_t n);
  /* n bytes from src to dst (GEXI_DEV_*), complete on return (after the
   * calling thread's started copies): the data is at dst, where every
   * process's copies see it.  0, or non-zero with *why set. */
  int (*copy)(struct gexi_device *d, int dir, uintptr_t dst, uintptr_t src, size_t n,
              const char **why);
  /* The same copy started on the calling thread's stream and finished
   * later, in the order this thread started its copies: 0 with *op set
   * (NULL: complete already), or non-zero with *why set.  Host memory it
   * reads is the caller's again when it returns; host or device memory it
   * writes holds the data once copy_done said so. */
  int (*copy_start)(struct gexi_device *d, int dir, uintptr_t dst, uintptr_t src, size_t n,
                    void **op, const char **why);
  /* Whether a started copy is complete: 1 (op is released), 0 not yet, -1
   * failed (*why set; op is released).  Any thread may ask. */
  int (*copy_done)(struct gexi_device *d, void *op, const char **why);
  /* n bytes of page-locked host memory at *p, which the device's copies
   * reach directly: 0, or non-zero (the caller uses plain memory); and
   * its release. */
  int (*host_alloc)(struct gexi_device *d, size_t n, void **p);
  void (*host_free)(struct gexi_device *d, void *p);
  /* Neighbours: describe the allocation holding ptr for another process
   * of this node (0, or non-zero with *why set); open one so described
   * (n bytes from the exported address), giving its address here, through
   * which this device's copies reach it -- or non-zero with *why set (the
   * caller then takes another way). */
  int (*ipc_export)(struct gexi_device *d, uintptr_t ptr, struct gexi_dev_ipc *h,
                    const char **why);
  int (*ipc_open)(struct gexi_device *d, const struct gexi_dev_ipc *h, size_t n, uintptr_t *ptr,
                  const char **why);
  void (*close)(struct gexi_device *d);
};

struct gexi_device {
  const struct gexi_device_ops *ops;
  int ordinal;
  void *impl; /* the backend's */
  /* Bounce buffers not in use (mk/bounce.c), under bounce_lock. */
  pthread_mutex_t bounce_lock;
  struct bounce_head *bounce_free;
};

/* Bounce buffers (mk/bounce.c): GEXI_BOUNCE_BYTES of host memory each,
 * page-locked where the device can give it.  take: one (NULL: out of
 * memory); give: back to d's list.  init and fini bracket a device's
 * life (mk/mk.c). */
#define GEXI_BOUNCE_BYTES ((size_t)64 << 10)
void gexi_bounce_init(struct gexi_device *d);
char *gexi_bounce_take(struct gexi_device *d);
void gexi_bounce_give(struct gexi_device *d, char *b);
void gexi_bounce_fini(struct gexi_device *d);

/* Open device 'ordinal' of a backend: the device, or NULL with a one-line
 * reason in why[len]. */
struct gexi_device *gexi_cuda_open(int ordinal, char *why, size_t len);
struct gexi_device *gexi_test_device_open(int ordinal, char *why, size_t len);

#endif
