/* mk/test_device.c -- a device backend made of host memory
 * (GEX_MK_TEST_DEVICE=host; mk/device.h).
 *
 * It lets every path of a device kind run on a machine without a GPU, and
 * it keeps device memory out of the CPU's reach as a GPU's is: an
 * allocation is two mappings of the same size, a reserved range with no
 * access (its "device address", what the client and libgex see) and a
 * private read-write one behind it (the "device's memory"), reached only
 * through this table's copies.  A load or store by libgex through a
 * device address faults at once instead of passing unnoticed.
 *
 * The memory behind an allocation is a memory file (memfd), so that a
 * neighbour can open it as a GPU's IPC handle is opened: the handle names
 * the owner's process and descriptor (/proc/<pid>/fd/<fd>, as libgex maps
 * its neighbours' segments), and the opener gets an allocation of its own
 * over the same memory -- a new inaccessible device address, a shared
 * mapping behind it -- which its copies reach like any other.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mk/device.h"

struct tdev_alloc {
  uintptr_t addr; /* the device address: PROT_NONE */
  char *mem;      /* the memory behind it */
  size_t len;
  int fd;         /* our allocation's memory file; -1: a neighbour's, opened */
};

#define TDEV_IPC_MAGIC 0x7665647473657467ull /* "gtestdev" */
struct tdev_ipc {
  uint64_t magic;
  int64_t pid, fd;
  uint64_t len;
};

struct tdev {
  pthread_mutex_t lock;
  struct tdev_alloc *a;
  size_t n, cap;
};

static struct tdev *T(struct gexi_device *d) { return d->impl; }

/* The allocation holding [p, p + n) (under lock), or NULL. */
static struct tdev_alloc *find(struct tdev *t, uintptr_t p, size_t n) {
  for (size_t i = 0; i < t->n; i++)
    if (p >= t->a[i].addr && p - t->a[i].addr <= t->a[i].len && n <= t->a[i].len - (p - t->a[i].addr))
      return &t->a[i];
  return NULL;
}

/* Record an allocation: a fresh device address over 'mem'. */
static int add(struct tdev *t, char *mem, size_t n, int fd, uintptr_t *ptr, const char **why) {
  void *addr = mmap(NULL, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (addr == MAP_FAILED) {
    *why = strerror(errno);
    return 1;
  }
  pthread_mutex_lock(&t->lock);
  if (t->n == t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 8;
    struct tdev_alloc *a = realloc(t->a, cap * sizeof *a);
    if (!a) {
      pthread_mutex_unlock(&t->lock);
      munmap(addr, n);
      *why = "out of memory";
      return 1;
    }
    t->a = a;
    t->cap = cap;
  }
  t->a[t->n++] = (struct tdev_alloc){(uintptr_t)addr, mem, n, fd};
  pthread_mutex_unlock(&t->lock);
  *ptr = (uintptr_t)addr;
  return 0;
}

static void drop(struct tdev_alloc *a) {
  munmap((void *)a->addr, a->len);
  munmap(a->mem, a->len);
  if (a->fd >= 0) close(a->fd);
}

static int tdev_alloc(struct gexi_device *d, size_t n, uintptr_t *ptr, const char **why) {
  int fd = memfd_create("gex-test-device", MFD_CLOEXEC);
  void *mem = MAP_FAILED;
  if (fd >= 0 && ftruncate(fd, (off_t)n) == 0)
    mem = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (mem == MAP_FAILED) {
    *why = strerror(errno);
    if (fd >= 0) close(fd);
    return 1;
  }
  if (add(T(d), mem, n, fd, ptr, why)) {
    munmap(mem, n);
    close(fd);
    return 1;
  }
  return 0;
}

static void tdev_free(struct gexi_device *d, uintptr_t ptr) {
  struct tdev *t = T(d);
  pthread_mutex_lock(&t->lock);
  for (size_t i = 0; i < t->n; i++)
    if (t->a[i].addr == ptr && t->a[i].fd >= 0) {
      drop(&t->a[i]);
      t->a[i] = t->a[--t->n];
      break;
    }
  pthread_mutex_unlock(&t->lock);
}

static int tdev_owns(struct gexi_device *d, uintptr_t ptr, size_t n) {
  struct tdev *t = T(d);
  pthread_mutex_lock(&t->lock);
  int yes = find(t, ptr, n) != NULL;
  pthread_mutex_unlock(&t->lock);
  return yes;
}

/* The memory behind device range [p, p + n) (under lock), or NULL. */
static char *behind(struct tdev *t, uintptr_t p, size_t n) {
  struct tdev_alloc *a = find(t, p, n);
  return a ? a->mem + (p - a->addr) : NULL;
}

static int tdev_copy(struct gexi_device *d, int dir, uintptr_t dst, uintptr_t src, size_t n,
                     const char **why) {
  struct tdev *t = T(d);
  pthread_mutex_lock(&t->lock);
  char *to = dir == GEXI_DEV_DTOH ? (char *)dst : behind(t, dst, n);
  const char *from = dir == GEXI_DEV_HTOD ? (const char *)src : behind(t, src, n);
  if (to && from) memmove(to, from, n);
  pthread_mutex_unlock(&t->lock);
  if (to && from) return 0;
  *why = "an address is not in this device's memory";
  return 1;
}

static int tdev_ipc_export(struct gexi_device *d, uintptr_t ptr, struct gexi_dev_ipc *h,
                           const char **why) {
  struct tdev *t = T(d);
  pthread_mutex_lock(&t->lock);
  struct tdev_alloc *a = find(t, ptr, 0);
  struct tdev_ipc ti = {TDEV_IPC_MAGIC, (int64_t)getpid(), a ? a->fd : -1, a ? a->len : 0};
  uintptr_t base = a ? a->addr : 0;
  pthread_mutex_unlock(&t->lock);
  if (!a || ti.fd < 0) {
    *why = "not an allocation of this process on this device";
    return 1;
  }
  memset(h, 0, sizeof *h);
  memcpy(h->bytes, &ti, sizeof ti);
  h->offset = ptr - base;
  return 0;
}

static int tdev_ipc_open(struct gexi_device *d, const struct gexi_dev_ipc *h, size_t n,
                         uintptr_t *ptr, const char **why) {
  struct tdev_ipc ti;
  memcpy(&ti, h->bytes, sizeof ti);
  if (ti.magic != TDEV_IPC_MAGIC || h->offset > ti.len || n > ti.len - h->offset) {
    *why = "not a test device's handle";
    return 1;
  }
  char path[64];
  snprintf(path, sizeof path, "/proc/%lld/fd/%lld", (long long)ti.pid, (long long)ti.fd);
  int fd = open(path, O_RDWR | O_CLOEXEC);
  void *mem = fd < 0 ? MAP_FAILED : mmap(NULL, ti.len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (fd >= 0) close(fd);
  uintptr_t base;
  if (mem == MAP_FAILED || add(T(d), mem, ti.len, -1, &base, why)) {
    if (mem == MAP_FAILED) *why = strerror(errno);
    else munmap(mem, ti.len);
    return 1;
  }
  *ptr = base + h->offset;
  return 0;
}

static void tdev_close(struct gexi_device *d) {
  struct tdev *t = T(d);
  for (size_t i = 0; i < t->n; i++) drop(&t->a[i]);
  free(t->a);
  pthread_mutex_destroy(&t->lock);
  free(t);
  free(d);
}

static const struct gexi_device_ops tdev_ops = {
    .name = "test device (host memory, GEX_MK_TEST_DEVICE=host)",
    .alloc = tdev_alloc,
    .free = tdev_free,
    .owns = tdev_owns,
    .copy = tdev_copy,
    .ipc_export = tdev_ipc_export,
    .ipc_open = tdev_ipc_open,
    .close = tdev_close,
};

struct gexi_device *gexi_test_device_open(int ordinal, char *why, size_t len) {
  struct gexi_device *d = calloc(1, sizeof *d);
  struct tdev *t = calloc(1, sizeof *t);
  if (!d || !t) {
    free(d);
    free(t);
    snprintf(why, len, "out of memory");
    return NULL;
  }
  pthread_mutex_init(&t->lock, NULL);
  d->ops = &tdev_ops;
  d->ordinal = ordinal;
  d->impl = t;
  return d;
}
