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
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mk/device.h"

struct tdev_alloc {
  uintptr_t addr; /* the device address: PROT_NONE */
  char *mem;      /* the memory behind it */
  size_t len;
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

static int tdev_alloc(struct gexi_device *d, size_t n, uintptr_t *ptr, const char **why) {
  struct tdev *t = T(d);
  void *addr = mmap(NULL, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  void *mem = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (addr == MAP_FAILED || mem == MAP_FAILED) {
    *why = strerror(errno);
    if (addr != MAP_FAILED) munmap(addr, n);
    if (mem != MAP_FAILED) munmap(mem, n);
    return 1;
  }
  pthread_mutex_lock(&t->lock);
  if (t->n == t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 8;
    struct tdev_alloc *a = realloc(t->a, cap * sizeof *a);
    if (!a) {
      pthread_mutex_unlock(&t->lock);
      munmap(addr, n);
      munmap(mem, n);
      *why = "out of memory";
      return 1;
    }
    t->a = a;
    t->cap = cap;
  }
  t->a[t->n++] = (struct tdev_alloc){(uintptr_t)addr, mem, n};
  pthread_mutex_unlock(&t->lock);
  *ptr = (uintptr_t)addr;
  return 0;
}

static void tdev_free(struct gexi_device *d, uintptr_t ptr) {
  struct tdev *t = T(d);
  pthread_mutex_lock(&t->lock);
  for (size_t i = 0; i < t->n; i++)
    if (t->a[i].addr == ptr) {
      munmap((void *)ptr, t->a[i].len);
      munmap(t->a[i].mem, t->a[i].len);
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

static void tdev_close(struct gexi_device *d) {
  struct tdev *t = T(d);
  for (size_t i = 0; i < t->n; i++) {
    munmap((void *)t->a[i].addr, t->a[i].len);
    munmap(t->a[i].mem, t->a[i].len);
  }
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
