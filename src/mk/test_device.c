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
 *
 * Started copies (copy_start) are not done when started: they wait in
 * the device's one queue, in order, and are carried out when copy_done is
 * asked about one a second time (everything queued up to it), or before a
 * synchronous copy.  A host source is read at the start (as a driver
 * stages pageable memory); a host destination is written only at the
 * end, so code that reads it before copy_done said so sees old bytes.
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

/* A started copy. */
struct tdev_op {
  int dir;
  uintptr_t dst, src;
  size_t n;
  char *snap;       /* GEXI_DEV_HTOD: the source, read at the start */
  int asked;        /* copy_done has said "not yet" once */
  int performed;    /* carried out (out of the queue); 'failed': an address was bad */
  int failed;
  struct tdev_op *next;
};

struct tdev {
  pthread_mutex_t lock;
  struct tdev_alloc *a;
  size_t n, cap;
  struct tdev_op *q, **q_end; /* started copies not carried out yet, in order */
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

/* One copy (under lock): 0, or 1 if an address is not this device's. */
static int perform(struct tdev *t, int dir, uintptr_t dst, uintptr_t src, size_t n) {
  char *to = dir == GEXI_DEV_DTOH ? (char *)dst : behind(t, dst, n);
  const char *from = dir == GEXI_DEV_HTOD ? (const char *)src : behind(t, src, n);
  if (to && from) memmove(to, from, n);
  return !(to && from);
}

/* Carry out the queued copies (under lock), up to and including 'last'
 * (NULL: all of them). */
static void drain(struct tdev *t, const struct tdev_op *last) {
  while (t->q) {
    struct tdev_op *o = t->q;
    t->q = o->next;
    if (!t->q) t->q_end = &t->q;
    o->failed = perform(t, o->dir, o->dst, o->snap ? (uintptr_t)o->snap : o->src, o->n);
    o->performed = 1;
    if (o == last) break;
  }
}

static int tdev_copy(struct gexi_device *d, int dir, uintptr_t dst, uintptr_t src, size_t n,
                     const char **why) {
  struct tdev *t = T(d);
  pthread_mutex_lock(&t->lock);
  drain(t, NULL);
  int bad = perform(t, dir, dst, src, n);
  pthread_mutex_unlock(&t->lock);
  if (bad) *why = "an address is not in this device's memory";
  return bad;
}

static int tdev_copy_start(struct gexi_device *d, int dir, uintptr_t dst, uintptr_t src, size_t n,
                           void **op, const char **why) {
  struct tdev *t = T(d);
  struct tdev_op *o = calloc(1, sizeof *o);
  char *snap = dir == GEXI_DEV_HTOD ? malloc(n ? n : 1) : NULL;
  if (!o || (dir == GEXI_DEV_HTOD && !snap)) {
    free(o);
    free(snap);
    *why = "out of memory";
    return 1;
  }
  if (snap) memcpy(snap, (const void *)src, n);
  *o = (struct tdev_op){.dir = dir, .dst = dst, .src = src, .n = n, .snap = snap};
  pthread_mutex_lock(&t->lock);
  int bad = (dir != GEXI_DEV_DTOH && !behind(t, dst, n)) || (dir != GEXI_DEV_HTOD && !behind(t, src, n));
  if (!bad) {
    if (!t->q_end) t->q_end = &t->q;
    *t->q_end = o;
    t->q_end = &o->next;
  }
  pthread_mutex_unlock(&t->lock);
  if (bad) {
    free(o->snap);
    free(o);
    *why = "an address is not in this device's memory";
    return 1;
  }
  *op = o;
  return 0;
}

static int tdev_copy_done(struct gexi_device *d, void *op, const char **why) {
  struct tdev *t = T(d);
  struct tdev_op *o = op;
  pthread_mutex_lock(&t->lock);
  if (!o->performed) {
    if (!o->asked) {
      o->asked = 1;
      pthread_mutex_unlock(&t->lock);
      return 0;
    }
    drain(t, o);
  }
  pthread_mutex_unlock(&t->lock);
  int failed = o->failed;
  free(o->snap);
  free(o);
  if (failed) *why = "an address is not in this device's memory";
  return failed ? -1 : 1;
}

/* Host memory of the test device: plain memory (nothing to lock). */
static int tdev_host_alloc(struct gexi_device *d, size_t n, void **p) {
  (void)d;
  *p = malloc(n);
  return *p == NULL;
}
static void tdev_host_free(struct gexi_device *d, void *p) {
  (void)d;
  free(p);
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
  drain(t, NULL); /* (their ops are the askers' to free) */
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
    .copy_start = tdev_copy_start,
    .copy_done = tdev_copy_done,
    .host_alloc = tdev_host_alloc,
    .host_free = tdev_host_free,
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
  t->q_end = &t->q;
  d->ops = &tdev_ops;
  d->ordinal = ordinal;
  d->impl = t;
  return d;
}
