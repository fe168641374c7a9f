/* gex/gex_segment_ep.h -- libgex: segments and endpoints made by the client.
 *
 * Not for direct inclusion; gasnetex.h includes it.  The alternative to
 * gex_Segment_Attach: a segment is created (gex_Segment_Create, memory of a
 * kind: see gasnet_mk.h), bound to an endpoint (gex_EP_BindSegment) and made
 * known to the other members of a team (gex_EP_PublishBoundSegment, declared
 * in gasnetex.h).  A process has up to GASNET_MAXEPS endpoints: the
 * primordial one and those of gex_EP_Create, which serve RMA through
 * gex_TM_Pair(ep, index).  See docs/segments.md.
 */
#ifndef GEX_SEGMENT_EP_H
#define GEX_SEGMENT_EP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A memory kind.  GEX_MK_HOST (host memory) is predefined; gex_MK_Create
 * (gasnet_mk.h) makes others.  Values are the reference implementation's. */
typedef struct gexi_MK *gex_MK_t;
#define GEX_MK_INVALID ((gex_MK_t)0)
#define GEX_MK_HOST ((gex_MK_t)(uintptr_t)1)
/* The host class, and CUDA_UVA in builds that found the CUDA headers
 * (docs/memory-kinds.md); _HIP and _ZE are left undefined.  Not in the smp
 * and udp identities, as in the reference, whose smp and udp conduits (one
 * endpoint per process: a device segment cannot be bound to a second one)
 * advertise no device kind -- their clients assert GASNET_MAXEPS >= 2
 * where one is. */
#define GASNET_HAVE_MK_CLASS_HOST 1
#if GEX_HAVE_MK_CUDA_UVA && !defined(GASNET_CONDUIT_SMP) && !defined(GASNET_CONDUIT_UDP)
#define GASNET_HAVE_MK_CLASS_CUDA_UVA 1
#define GASNET_HAVE_MK_CLASS_MULTIPLE 1
#endif

/* Create a segment of 'length' bytes of memory of 'kind' (GEX_MK_HOST or a
 * kind of gex_MK_Create): at 'address' (client memory, any alignment; a
 * device kind's: that device's memory), or, when 'address' is NULL,
 * allocated by libgex (page-aligned, 'length' rounded up to
 * GASNET_PAGESIZE; host memory shareable with the neighbourhood, or the
 * device's memory).  Not collective.
 * 'flags': 0 or GEX_FLAG_HINT_ACCEL_* (accepted, ignored).
 * Returns GASNET_OK, GASNET_ERR_BAD_ARG or GASNET_ERR_RESOURCE. */
int gex_Segment_Create(gex_Segment_t *segment_p, gex_Client_t client, gex_Addr_t address,
                       uintptr_t length, gex_MK_t kind, gex_Flags_t flags);

/* Destroy a segment that is not bound to an endpoint (a bound segment cannot
 * be destroyed: there is no unbind).  Memory libgex allocated is released;
 * client memory is left alone.  'flags' must be 0. */
void gex_Segment_Destroy(gex_Segment_t segment, gex_Flags_t flags);

/* Create an endpoint with the given capabilities (GEX_EP_CAPABILITY_*) and
 * flags (0 or GEX_FLAG_HINT_ACCEL_*, accepted and ignored); its index is the
 * next free one.  Such an endpoint serves RMA (and VIS) through TM-pairs,
 * whatever capabilities it was given, as the reference's: Active Messages
 * and collectives use the primordial endpoint.  GASNET_ERR_RESOURCE once
 * GASNET_MAXEPS endpoints exist, GASNET_ERR_BAD_ARG for invalid arguments. */
int gex_EP_Create(gex_EP_t *ep_p, gex_Client_t client, gex_EP_Capabilities_t capabilities,
                  gex_Flags_t flags);

/* Bind 'segment' to 'ep', which must have no bound segment yet (from this
 * call or gex_Segment_Attach).  Local: the segment becomes the target of RMA
 * and AM Long addressed to this endpoint once it is published
 * (gex_EP_PublishBoundSegment).  'flags' must be 0.  Returns GASNET_OK or
 * GASNET_ERR_BAD_ARG (invalid endpoint, segment or flags; a second binding). */
int gex_EP_BindSegment(gex_EP_t ep, gex_Segment_t segment, gex_Flags_t flags);

#ifdef __cplusplus
}
#endif

#endif /* GEX_SEGMENT_EP_H */
