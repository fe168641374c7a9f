/* legacy/rma.c -- the GASNet-1 RMA calls that are not inline wrappers:
 * split-phase value Gets (gasnet_get_nb_val) and memset, which GASNet-EX
 * does not have. */
#include <stdlib.h>
#include <string.h>

#include "legacy/legacy.h"

/* A split-phase value Get: the landing buffer lives with the handle until
 * gasnet_wait_syncnb_valget. */
struct gexl_valget {
  gex_Event_t event;
  gex_RMA_Value_t value;
};

gasnet_valget_handle_t gasnet_get_nb_val(gasnet_node_t node, void *src, size_t nbytes) {
  gex_TM_t tm = gexl_team("gasnet_get_nb_val");
  if (nbytes == 0 || nbytes > sizeof(gex_RMA_Value_t))
    gexl_fatal("gasnet_get_nb_val", "nbytes %zu is not in [1, %zu]", nbytes,
               sizeof(gex_RMA_Value_t));
  struct gexl_valget *h = malloc(sizeof *h);
  if (!h) gexl_fatal("gasnet_get_nb_val", "out of memory");
  h->value = 0;
  /* gexi_value_bytes: where an nbytes-sized object sits inside the value
   * (gex/gex_inline.h), so the result reads back as that integer. */
  h->event = gex_RMA_GetNB(tm, (void *)gexi_value_bytes(&h->value, nbytes), node, src, nbytes, 0);
  return h;
}

gasnet_register_value_t gasnet_wait_syncnb_valget(gasnet_valget_handle_t handle) {
  if (!handle) gexl_fatal("gasnet_wait_syncnb_valget", "invalid handle");
  gex_Event_Wait(handle->event);
  gasnet_register_value_t v = handle->value;
  free(handle);
  return v;
}

/* memset of remote memory.  A peer whose segment is mapped here is written
 * directly; any other is sent Puts of a buffer holding the byte, at most
 * MEMSET_CHUNK bytes each.  Complete on return. */
enum { MEMSET_CHUNK = 64 * 1024 };

static void remote_memset(const char *fn, gasnet_node_t node, void *dest, int val,
                          size_t nbytes) {
  gex_TM_t tm = gexl_team(fn);
  if (nbytes == 0) return;
  if (node >= gex_TM_QuerySize(tm))
    gexl_fatal(fn, "rank %u out of range (team size %u)", (unsigned)node,
               (unsigned)gex_TM_QuerySize(tm));
  void *owner = NULL, *local = NULL;
  uintptr_t size = 0;
  (void)gex_EP_QueryBoundSegmentNB(tm, node, &owner, &local, &size, 0);
  uintptr_t off = (uintptr_t)dest - (uintptr_t)owner;
  if (!owner || off > size || nbytes > size - off)
    gexl_fatal(fn, "address range [%p,+%zu) outside the bound segment of rank %u [%p,+%zu)",
               dest, nbytes, (unsigned)node, owner, (size_t)size);
  if (local) {
    memset((char *)local + off, val, nbytes);
    return;
  }
  size_t chunk = nbytes < MEMSET_CHUNK ? nbytes : MEMSET_CHUNK;
  unsigned char *buf = malloc(chunk);
  if (!buf) gexl_fatal(fn, "out of memory");
  memset(buf, val, chunk);
  for (size_t done = 0; done < nbytes; done += chunk) {
    size_t n = nbytes - done < chunk ? nbytes - done : chunk;
    (void)gex_RMA_PutBlocking(tm, node, (char *)dest + done, buf, n, 0);
  }
  free(buf);
}

void gasnet_memset(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  remote_memset("gasnet_memset", node, dest, val, nbytes);
}

gasnet_handle_t gasnet_memset_nb(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  remote_memset("gasnet_memset_nb", node, dest, val, nbytes);
  return GASNET_INVALID_HANDLE;
}

void gasnet_memset_nbi(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  remote_memset("gasnet_memset_nbi", node, dest, val, nbytes);
}
