/* src/shmem/shmem_heap.c -- the symmetric heap: the attached segment, and
 * an allocator that gives every PE the same offsets.
 *
 * The allocator is first fit over a sorted array of blocks kept in private
 * memory.  Every PE makes the same calls in the same order (the calls are
 * collective), so every PE's array is the same and an object has one
 * offset on all PEs.  The segment holds the heap and, after it, the
 * private team scratch (GEXS_SCRATCH_SLOTS slots of GEXS_SCRATCH_BYTES),
 * which is not symmetric: only members of a team use a slot.
 *
 * Each PE's heap starts at the first GEXS_HEAP_BASE_ALIGN boundary of its
 * segment, so an offset aligned to that much or less is an address
 * aligned alike on every PE (shmem_align).
 */
#include "shmem/shmem_internal.h"

#include <stdlib.h>

#define GEXS_ALIGN 64
#define GEXS_SCRATCH_BYTES 4096
#define GEXS_SCRATCH_SLOTS 64
#define GEXS_HEAP_DEFAULT ((size_t)64 << 20)
#define GEXS_HEAP_BASE_ALIGN ((uintptr_t)16 << 20) /* (address space only: pages unused are not touched) */

static size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

/* The public face of the heap's fields (shmem/shmem_inline.h): written
 * here, at the end of the heap's set-up, and at its end; clients only read
 * it. */
struct gexsi_view gexsi_view;

static void view_init(void) {
  gexs.view_put = calloc((size_t)gexs.npes, sizeof *gexs.view_put);
  gexs.view_get = calloc((size_t)gexs.npes, sizeof *gexs.view_get);
  if (!gexs.view_put || !gexs.view_get) gexs_fatal("shmem_init", "out of memory");
  int far = 0;
  for (int pe = 0; pe < gexs.npes; pe++) far |= gexs.heap_local[pe] == NULL;
  for (int pe = 0; pe < gexs.npes; pe++) {
    if (!gexs.heap_local[pe]) continue; /* limit 0: the library's path */
    const struct gexsi_pe_view e = {gexs.heap_local[pe] - gexs.heap, gexs.heap_size};
    gexs.view_put[pe] = e;
    /* (a get from this PE itself polls where puts from other hosts land) */
    if (pe != gexs.me || !far) gexs.view_get[pe] = e;
  }
  gexsi_view.heap = (uintptr_t)gexs.heap;
  gexsi_view.put = gexs.view_put;
  gexsi_view.get = gexs.view_get;
  gexsi_view.npes = gexs.npes;
}

void gexs_heap_init(void) {
  const char *var = gexs_env_pick("SHMEM_SYMMETRIC_SIZE", "SMA_SYMMETRIC_SIZE");
  size_t want = gexs_env_size(var, GEXS_HEAP_DEFAULT);
  size_t heap = round_up(want, GEXS_ALIGN);
  size_t total = round_up(heap + (size_t)GEXS_SCRATCH_BYTES * GEXS_SCRATCH_SLOTS +
                              GEXS_HEAP_BASE_ALIGN,
                          GASNET_PAGESIZE);
  if (heap < want || total > gasnet_getMaxLocalSegmentSize())
    gexs_fatal("shmem_init",
               "%s=%zu: the heap and the library's %d KiB exceed the "
               "largest segment this host gives a PE (%zu bytes)",
               var, want, GEXS_SCRATCH_BYTES * GEXS_SCRATCH_SLOTS / 1024,
               (size_t)gasnet_getMaxLocalSegmentSize());
  gex_Segment_t seg;
  if (gex_Segment_Attach(&seg, gexs.world, total) != GASNET_OK)
    gexs_fatal("shmem_init", "cannot attach a symmetric heap of %zu bytes", total);
  gexs.heap = (char *)round_up((uintptr_t)gex_Segment_QueryAddr(seg), GEXS_HEAP_BASE_ALIGN);
  gexs.heap_size = heap;
  gexs.scratch = gexs.heap + heap;
  gexs.heap_local = calloc((size_t)gexs.npes, sizeof *gexs.heap_local);
  gexs.heap_owner = calloc((size_t)gexs.npes, sizeof *gexs.heap_owner);
  gexs.cap_blocks = 64;
  gexs.blocks = malloc(gexs.cap_blocks * sizeof *gexs.blocks);
  if (!gexs.heap_local || !gexs.heap_owner || !gexs.blocks)
    gexs_fatal("shmem_init", "out of memory");
  for (int pe = 0; pe < gexs.npes; pe++) {
    void *owner = NULL, *local = NULL;
    uintptr_t size = 0;
    gex_Segment_QueryBound(gexs.world, (gex_Rank_t)pe, &owner, &local, &size);
    if (size < total)
      gexs_fatal("shmem_init", "PE %d's symmetric heap is %zu bytes, this PE's %zu: every "
                 "PE must have the same SHMEM_SYMMETRIC_SIZE", pe, (size_t)size, total);
    /* its heap: at the first boundary of its own segment */
    size_t skip = (size_t)(round_up((uintptr_t)owner, GEXS_HEAP_BASE_ALIGN) - (uintptr_t)owner);
    gexs.heap_owner[pe] = (char *)owner + skip;
    gexs.heap_local[pe] = local ? (char *)local + skip : NULL;
  }
  gexs.blocks[0] = (struct gexs_block){0, heap, 0};
  gexs.nblocks = 1;
  view_init();
}

void gexs_heap_fini(void) {
  gexsi_view.npes = 0;
  gexsi_view.put = gexsi_view.get = NULL;
  free(gexs.view_put);
  free(gexs.view_get);
  gexs.view_put = gexs.view_get = NULL;
  free(gexs.heap_local);
  free(gexs.heap_owner);
  free(gexs.blocks);
  gexs.heap_local = gexs.heap_owner = NULL;
  gexs.blocks = NULL;
  gexs.nblocks = 0;
}

void *gexs_scratch_take(void) {
  for (int i = 0; i < GEXS_SCRATCH_SLOTS; i++)
    if (!(gexs.scratch_used >> i & 1)) {
      gexs.scratch_used |= (uint64_t)1 << i;
      return gexs.scratch + (size_t)i * GEXS_SCRATCH_BYTES;
    }
  return NULL;
}

void gexs_scratch_give(void *p) {
  if (!p) return;
  size_t i = (size_t)((char *)p - gexs.scratch) / GEXS_SCRATCH_BYTES;
  gexs.scratch_used &= ~((uint64_t)1 << i);
}

size_t gexs_scratch_size(void) { return GEXS_SCRATCH_BYTES; }

/* Insert a block record at index i. */
static void insert_block(size_t i, struct gexs_block b) {
  if (gexs.nblocks == gexs.cap_blocks) {
    size_t cap = gexs.cap_blocks * 2;
    struct gexs_block *nb = realloc(gexs.blocks, cap * sizeof *nb);
    if (!nb) gexs_fatal("shmem_malloc", "out of memory for the heap's records");
    gexs.blocks = nb;
    gexs.cap_blocks = cap;
  }
  memmove(&gexs.blocks[i + 1], &gexs.blocks[i], (gexs.nblocks - i) * sizeof *gexs.blocks);
  gexs.blocks[i] = b;
  gexs.nblocks++;
}

static void remove_block(size_t i) {
  memmove(&gexs.blocks[i], &gexs.blocks[i + 1], (gexs.nblocks - i - 1) * sizeof *gexs.blocks);
  gexs.nblocks--;
}

/* First fit: a free block that holds 'size' bytes at an offset that is a
 * multiple of 'align'; splits off what is left before and after. */
static void *heap_alloc(size_t align, size_t size) {
  size = round_up(size ? size : 1, GEXS_ALIGN);
  for (size_t i = 0; i < gexs.nblocks; i++) {
    struct gexs_block *b = &gexs.blocks[i];
    if (b->used) continue;
    size_t start = round_up(b->off, align);
    if (start < b->off || start - b->off > b->size || b->size - (start - b->off) < size)
      continue;
    size_t end = b->off + b->size;
    if (start > b->off) { /* the gap before stays free */
      b->size = start - b->off;
      insert_block(++i, (struct gexs_block){start, end - start, 0});
      b = &gexs.blocks[i];
    }
    if (b->size > size) insert_block(i + 1, (struct gexs_block){start + size, b->size - size, 0});
    b = &gexs.blocks[i];
    b->size = size;
    b->used = 1;
    return gexs.heap + start;
  }
  return NULL;
}

static size_t find_block(const char *call, const void *ptr) {
  if (!gexs_in_heap(ptr, 1))
    gexs_fatal(call, "%p is not in the symmetric heap", ptr);
  size_t off = (size_t)((const char *)ptr - gexs.heap);
  size_t lo = 0, hi = gexs.nblocks;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (gexs.blocks[mid].off < off) lo = mid + 1;
    else hi = mid;
  }
  if (lo >= gexs.nblocks || gexs.blocks[lo].off != off || !gexs.blocks[lo].used)
    gexs_fatal(call, "%p was not returned by the symmetric heap's allocator", ptr);
  return lo;
}

static void heap_free(size_t i) {
  gexs.blocks[i].used = 0;
  if (i + 1 < gexs.nblocks && !gexs.blocks[i + 1].used) {
    gexs.blocks[i].size += gexs.blocks[i + 1].size;
    remove_block(i + 1);
  }
  if (i > 0 && !gexs.blocks[i - 1].used) {
    gexs.blocks[i - 1].size += gexs.blocks[i].size;
    remove_block(i);
  }
}

/* Resize used block i where it is: a smaller size gives its tail back; a
 * larger one takes the start of the free block after it, if that is large
 * enough.  0 where neither applies (shmem_realloc then moves the block).
 * Every PE makes the same calls, so the heaps stay alike. */
static int heap_resize(size_t i, size_t size) {
  size = round_up(size, GEXS_ALIGN);
  struct gexs_block *b = &gexs.blocks[i];
  if (size <= b->size) {
    if (size < b->size) {
      insert_block(i + 1, (struct gexs_block){b->off + size, b->size - size, 0});
      gexs.blocks[i].size = size;
      gexs.blocks[i + 1].used = 1; /* freed as any block, to join a free neighbour */
      heap_free(i + 1);
    }
    return 1;
  }
  if (i + 1 >= gexs.nblocks || gexs.blocks[i + 1].used || size - b->size > gexs.blocks[i + 1].size)
    return 0;
  const size_t extra = size - b->size;
  b->size = size;
  gexs.blocks[i + 1].off += extra;
  gexs.blocks[i + 1].size -= extra;
  if (gexs.blocks[i + 1].size == 0) remove_block(i + 1);
  return 1;
}

GEXS_PROFILED(shmem_align)
void *shmem_align(size_t alignment, size_t size) {
  GEXS_NEED_INIT("shmem_align");
  if (alignment == 0 || (alignment & (alignment - 1)))
    gexs_fatal("shmem_align", "alignment %zu is not a power of two", alignment);
  if (size == 0) return NULL;
  void *p = heap_alloc(alignment < GEXS_ALIGN ? GEXS_ALIGN : alignment, size);
  pshmem_barrier_all();
  return p;
}

GEXS_PROFILED(shmem_malloc)
void *shmem_malloc(size_t size) { return pshmem_align(GEXS_ALIGN, size); }

GEXS_PROFILED(shmem_malloc_with_hints)
void *shmem_malloc_with_hints(size_t size, long hints) {
  (void)hints; /* every block serves atomics and signals alike */
  return pshmem_align(GEXS_ALIGN, size);
}

GEXS_PROFILED(shmem_calloc)
void *shmem_calloc(size_t count, size_t size) {
  GEXS_NEED_INIT("shmem_calloc");
  if (count == 0 || size == 0) return NULL;
  if (size > SIZE_MAX / count) {
    pshmem_barrier_all();
    return NULL;
  }
  void *p = heap_alloc(GEXS_ALIGN, count * size);
  if (p) memset(p, 0, count * size);
  pshmem_barrier_all();
  return p;
}

GEXS_PROFILED(shmem_free)
void shmem_free(void *ptr) {
  GEXS_NEED_INIT("shmem_free");
  if (!ptr) return;
  pshmem_barrier_all();
  heap_free(find_block("shmem_free", ptr));
}

GEXS_PROFILED(shmem_realloc)
void *shmem_realloc(void *ptr, size_t size) {
  GEXS_NEED_INIT("shmem_realloc");
  if (!ptr) return pshmem_malloc(size);
  if (size == 0) {
    pshmem_free(ptr);
    return NULL;
  }
  size_t i = find_block("shmem_realloc", ptr);
  size_t old = gexs.blocks[i].size;
  pshmem_barrier_all(); /* no PE still writes the old block */
  void *p = heap_resize(i, size) ? ptr : heap_alloc(GEXS_ALIGN, size);
  if (p && p != ptr) {
    memcpy(p, ptr, old < size ? old : size);
    heap_free(find_block("shmem_realloc", ptr));
  }
  pshmem_barrier_all();
  return p;
}

GEXS_PROFILED(shmalloc)
void *shmalloc(size_t size) { return pshmem_malloc(size); }
GEXS_PROFILED(shmemalign)
void *shmemalign(size_t alignment, size_t size) { return pshmem_align(alignment, size); }
GEXS_PROFILED(shrealloc)
void *shrealloc(void *ptr, size_t size) { return pshmem_realloc(ptr, size); }
GEXS_PROFILED(shfree)
void shfree(void *ptr) { pshmem_free(ptr); }
