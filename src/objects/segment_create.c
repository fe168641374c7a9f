/* objects/segment_create.c -- gex_Segment_Create and gex_Segment_Destroy.
 *
 * A created segment is a heap object (the gex_Segment_Attach segment lives
 * in gexi_ctx).  Its memory is either the client's (any address and length,
 * used as given) or allocated here as an anonymous shared-memory object,
 * like the attached segment, so that the neighbourhood can map it once it is
 * bound and published (objects/segment_bind.c).  Creation is local: nothing is
 * registered with the network and nothing is exchanged until then.
 *
 * A segment of a device kind (mk/mk.h) lives in that device's memory:
 * allocated there by the device's driver, or the client's, which must lie
 * in one allocation of that device.  libgex never dereferences it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/context.h"
#include "mk/mk.h"
#include "transport/shm/shm.h"

#define GEXI_SEG_CREATE_FLAGS GEX_FLAG_HINT_ACCEL_ALL

int gex_Segment_Create(gex_Segment_t *segment_p, gex_Client_t client, gex_Addr_t address,
                       uintptr_t length, gex_MK_t kind, gex_Flags_t flags) {
  gexi_check_init("gex_Segment_Create");
  const char *bad = !segment_p                     ? "segment_p is NULL"
                    : client != &gexi_ctx.client   ? "not the client of this process"
                    : length == 0                  ? "length is 0"
                    : !gexi_mk_is_host(kind) && !gexi_mk_device(kind)
                        ? "not a live memory kind of this client"
                    : flags & ~GEXI_SEG_CREATE_FLAGS ? "flags other than GEX_FLAG_HINT_ACCEL_*"
                    : address && (uintptr_t)address + length < (uintptr_t)address
                        ? "address + length overflows"
                        : NULL;
  if (bad) {
    gexi_warn("gex_Segment_Create: invalid argument: %s", bad);
    return GASNET_ERR_BAD_ARG;
  }
  struct gexi_device *dev = gexi_mk_device(kind);
  if (dev && address && !dev->ops->owns(dev, (uintptr_t)address, length)) {
    gexi_warn("gex_Segment_Create: invalid argument: [%p,+%zu) is not memory of %s device %d",
              address, (size_t)length, dev->ops->name, dev->ordinal);
    return GASNET_ERR_BAD_ARG;
  }
  struct gexi_Segment *s = calloc(1, sizeof *s);
  if (!s) return GASNET_ERR_RESOURCE;
  s->fd = -1;
  if (dev && !address) {
    uintptr_t size = (length + GASNET_PAGESIZE - 1) & ~(uintptr_t)(GASNET_PAGESIZE - 1);
    uintptr_t p = 0;
    const char *why = NULL;
    if (size < length || dev->ops->alloc(dev, size, &p, &why)) {
      gexi_warn("gex_Segment_Create: cannot allocate %zu bytes of %s device %d memory: %s",
                (size_t)length, dev->ops->name, dev->ordinal, why ? why : "too large");
      free(s);
      return GASNET_ERR_RESOURCE;
    }
    s->addr = (void *)p;
    s->size = size;
    s->dev_owned = true;
  } else if (address) {
    s->addr = address;
    s->size = length;
  } else {
    uintptr_t size = (length + GASNET_PAGESIZE - 1) & ~(uintptr_t)(GASNET_PAGESIZE - 1);
    uintptr_t max = gasnet_getMaxLocalSegmentSize();
    if (size < length || size > max) {
      gexi_warn("gex_Segment_Create: length %zu exceeds the maximum %zu (GASNET_MAX_SEGSIZE)",
                (size_t)length, (size_t)max);
      free(s);
      return GASNET_ERR_RESOURCE;
    }
    void *base;
    int fd = gexi_shm_try_create("gex-segment", size, &base);
    if (fd < 0) {
      gexi_warn("gex_Segment_Create: cannot allocate %zu bytes of shared memory: %s",
                (size_t)size, strerror(errno));
      free(s);
      return GASNET_ERR_RESOURCE;
    }
    s->fd = fd;
    s->addr = base;
    s->size = size;
  }
  s->client = client;
  s->flags = flags;
  s->kind = kind;
  s->id = atomic_fetch_add(&gexi_ctx.next_segment_id, 1);
  gexi_mk_segment_count(kind, +1);
  *segment_p = s;
  return GASNET_OK;
}

void gex_Segment_Destroy(gex_Segment_t seg, gex_Flags_t flags) {
  gexi_check_init("gex_Segment_Destroy");
  if (seg == GEX_SEGMENT_INVALID) gexi_fatal("gex_Segment_Destroy: GEX_SEGMENT_INVALID");
  if (flags) gexi_fatal("gex_Segment_Destroy: flags 0x%x must be 0", (unsigned)flags);
  /* A segment bound to endpoints of index > 0 is unbound first
   * (objects/segment_bind.c); the primordial endpoint's stays: peers reach it
   * through every team. */
  const char *why = seg->id == GEXI_SEG_ID_ATTACH ? "it is the segment of gex_Segment_Attach"
                    : seg->ep                     ? gexi_segment_unbind(seg)
                                                  : NULL;
  if (why)
    gexi_fatal("gex_Segment_Destroy: the segment [%p,+%zu) cannot be destroyed: %s", seg->addr,
               (size_t)seg->size, why);
  if (seg->fd >= 0) {
    munmap(seg->addr, seg->size);
    close(seg->fd);
  }
  if (seg->dev_owned) {
    struct gexi_device *d = gexi_mk_device(seg->kind);
    d->ops->free(d, (uintptr_t)seg->addr);
  }
  gexi_mk_segment_count(seg->kind, -1);
  free(seg);
}
