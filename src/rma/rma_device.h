/* rma/rma_device.h -- RMA to segments of device memory (rma/rma_device.c;
 * docs/memory-kinds.md). */
#ifndef GEXI_RMA_DEVICE_H
#define GEXI_RMA_DEVICE_H

#include <gasnetex.h>

/* Move nbytes between 'local' (host memory, or the segment of the TM's
 * local endpoint when that is device memory) and 'remote' in the device
 * segment of endpoint k of the TM's member 'rank'.  Complete on return,
 * except an NB or NBI operation ('mode' as in gex_inline.h) that one
 * device copy carries out: it completes with that copy (an NB one returns
 * its event).  Local completion is at return. */
gex_Event_t gexi_rma_device(const char *fn, gex_TM_t tm, gex_Rank_t rank, gex_EP_Index_t k,
                            int is_write, void *local, uintptr_t remote, size_t nbytes, int mode);
/* Through a TM-pair whose local endpoint's segment is device memory, to
 * [remote, remote + nbytes) of endpoint k of the TM's member 'rank' when
 * that segment is host memory: 'local' in the device segment is copied by
 * the device straight into or out of a segment mapped here (ours, or a
 * neighbour's), else through a host buffer and gexi_rma_ep_host.  A local
 * buffer in host memory goes to gexi_rma_ep_host directly.  Complete on
 * return (the NB event: GEX_EVENT_INVALID). */
gex_Event_t gexi_rma_device_to_host(const char *fn, gex_TM_t tm, gex_Rank_t rank,
                                    gex_EP_Index_t k, int is_write, void *local, uintptr_t remote,
                                    size_t nbytes);
/* Operations of this process that took the staged path; device copies it
 * started that finished after the call (test hooks). */
uint64_t gexi_rma_device_staged(void);
uint64_t gexi_rma_device_started(void);
/* The internal AM handlers of the staged path: fills 'e' (4 entries). */
size_t gexi_rma_device_am_entries(gex_AM_Entry_t *e);

#endif
