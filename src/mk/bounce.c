/* mk/bounce.c -- page-locked host buffers of a device, kept for reuse: the
 * staged path's bounce buffers (rma/rma_device.c; docs/memory-kinds.md).
 *
 * A device copies to and from page-locked host memory directly (a GPU by
 * DMA); pageable memory it first copies through a buffer of its driver's.
 * Page-locking is slow (a system call, the pages pinned one by one), so
 * buffers are made once, GEXI_BOUNCE_BYTES each, and go back to their
 * device's list after use; they are freed when the device is closed.  A
 * buffer the device cannot give (its driver refuses, the process's limit
 * on locked memory is reached) is plain memory instead: slower copies,
 * the same results.
 */
#include <stdlib.h>

#include "mk/device.h"

/* Each buffer is preceded by this header, in the same allocation. */
struct bounce_head {
  struct bounce_head *next; /* on the free list */
  int pinned;               /* host_alloc's (else malloc's) */
};
#define BOUNCE_HEAD ((size_t)64) /* (keeps the buffer 64-byte aligned) */
_Static_assert(sizeof(struct bounce_head) <= BOUNCE_HEAD, "the header fits");

void gexi_bounce_init(struct gexi_device *d) {
  pthread_mutex_init(&d->bounce_lock, NULL);
  d->bounce_free = NULL;
}

char *gexi_bounce_take(struct gexi_device *d) {
  pthread_mutex_lock(&d->bounce_lock);
  struct bounce_head *h = d->bounce_free;
  if (h) d->bounce_free = h->next;
  pthread_mutex_unlock(&d->bounce_lock);
  if (!h) {
    void *p = NULL;
    int pinned = !d->ops->host_alloc(d, BOUNCE_HEAD + GEXI_BOUNCE_BYTES, &p);
    if (!pinned && !(p = malloc(BOUNCE_HEAD + GEXI_BOUNCE_BYTES))) return NULL;
    h = p;
    h->pinned = pinned;
  }
  return (char *)h + BOUNCE_HEAD;
}

void gexi_bounce_give(struct gexi_device *d, char *b) {
  struct bounce_head *h = (struct bounce_head *)(void *)(b - BOUNCE_HEAD);
  pthread_mutex_lock(&d->bounce_lock);
  h->next = d->bounce_free;
  d->bounce_free = h;
  pthread_mutex_unlock(&d->bounce_lock);
}

void gexi_bounce_fini(struct gexi_device *d) {
  while (d->bounce_free) {
    struct bounce_head *h = d->bounce_free;
    d->bounce_free = h->next;
    if (h->pinned)
      d->ops->host_free(d, h);
    else
      free(h);
  }
  pthread_mutex_destroy(&d->bounce_lock);
}
