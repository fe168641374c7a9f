/* gasnet_mk.h -- libgex: memory kinds (the GASNet-EX memory-kinds API).
 *
 * A memory kind (gex_MK_t, declared with GEX_MK_HOST and GEX_MK_INVALID in
 * gasnetex.h) names where the memory of a segment lives; gex_Segment_Create
 * takes one.
 *   - GEX_MK_HOST is predefined, and gex_MK_Create with GEX_MK_CLASS_HOST
 *     makes further host kinds;
 *   - in builds that found the CUDA headers GASNET_HAVE_MK_CLASS_CUDA_UVA
 *     and _MULTIPLE are 1 (gex/gex_segment_ep.h), and GEX_MK_CLASS_CUDA_UVA
 *     kinds are made where the CUDA driver (loaded at run time) has the
 *     device, else refused with GASNET_ERR_RESOURCE; their segments are
 *     device memory, bound to endpoints of gex_EP_Create and reached by RMA
 *     through TM-pairs (docs/memory-kinds.md).  Other builds refuse the
 *     class with GASNET_ERR_BAD_ARG;
 *   - HIP and ZE are declared so that clients compile, and refused with
 *     GASNET_ERR_BAD_ARG; GASNET_HAVE_MK_CLASS_HIP/_ZE are left undefined
 *     (clients test them with #if).
 * See docs/memory-kinds.md and docs/segments.md.
 */
#ifndef GASNET_MK_H
#define GASNET_MK_H

#include <gasnetex.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  GEX_MK_CLASS_HOST = 0,
  GEX_MK_CLASS_CUDA_UVA = 1,
  GEX_MK_CLASS_HIP = 2,
  GEX_MK_CLASS_ZE = 3
} gex_MK_Class_t;

/* What gex_MK_Create makes: 'gex_class' selects the member of 'gex_args'
 * that describes the device (none for the host class).  The device handles
 * of the ZE class are opaque pointers here, so no vendor header is needed. */
typedef struct {
  gex_Flags_t gex_flags; /* must be 0 */
  gex_MK_Class_t gex_class;
  union {
    struct {
      int gex_CUdevice;
    } gex_class_cuda_uva;
    struct {
      int gex_hipDevice;
    } gex_class_hip;
    struct {
      void *gex_zeDevice;
      void *gex_zeContext;
      uint32_t gex_zeMemoryOrdinal;
    } gex_class_ze;
  } gex_args;
} gex_MK_Create_args_t;

/* Create a memory kind.  Not collective.  Returns GASNET_OK (and a new kind
 * in *kind_p) for GEX_MK_CLASS_HOST, and for GEX_MK_CLASS_CUDA_UVA where
 * the device can be used (else GASNET_ERR_RESOURCE, with one line saying
 * why); GASNET_ERR_BAD_ARG for a class this build does not support, NULL
 * pointers, an invalid client, a negative device or non-zero flags. */
int gex_MK_Create(gex_MK_t *kind_p, gex_Client_t client, const gex_MK_Create_args_t *args,
                  gex_Flags_t flags);

/* Destroy a kind made by gex_MK_Create once no segment of it exists any
 * more.  'flags' must be 0. */
void gex_MK_Destroy(gex_MK_t kind, gex_Flags_t flags);

#ifdef __cplusplus
}
#endif

#endif /* GASNET_MK_H */
