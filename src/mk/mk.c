/* mk/mk.c -- memory kinds (gasnet_mk.h; docs/memory-kinds.md).
 *
 * GEX_MK_HOST is a constant, not an object; gex_MK_Create makes a kind
 * object that counts the segments created with it, so that it is not
 * destroyed under them.  A CUDA_UVA kind opens its device through a
 * backend (mk/device.h): the CUDA driver, loaded then, or the host-memory
 * test device (GEX_MK_TEST_DEVICE=host); one that cannot be opened is
 * refused with GASNET_ERR_RESOURCE and one line saying why.  A build
 * without the CUDA headers (GASNET_HAVE_MK_CLASS_CUDA_UVA undefined), and
 * every build for HIP and ZE, refuses the class with GASNET_ERR_BAD_ARG,
 * as the reference does when it is built without it.
 */
#include <gasnet_mk.h>
#include <stdlib.h>

#include "core/context.h"
#include "mk/mk.h"

#define GEXI_MK_MAGIC 0x6d6b696e64u /* "mkind": tells a kind object from garbage */

struct gexi_MK {
  uint64_t magic;
  gex_Client_t client;
  gex_MK_Class_t mk_class;
  _Atomic uint64_t segments; /* live segments created with this kind */
  struct gexi_device *dev;   /* a device class's; NULL for the host class */
};

static const char *class_name(gex_MK_Class_t c) {
  switch (c) {
    case GEX_MK_CLASS_HOST: return "GEX_MK_CLASS_HOST";
    case GEX_MK_CLASS_CUDA_UVA: return "GEX_MK_CLASS_CUDA_UVA";
    case GEX_MK_CLASS_HIP: return "GEX_MK_CLASS_HIP";
    case GEX_MK_CLASS_ZE: return "GEX_MK_CLASS_ZE";
  }
  return "an unknown class";
}

int gex_MK_Create(gex_MK_t *kind_p, gex_Client_t client, const gex_MK_Create_args_t *args,
                  gex_Flags_t flags) {
  gexi_check_init("gex_MK_Create");
  if (!kind_p || !args || client != &gexi_ctx.client || flags || args->gex_flags) {
    gexi_warn("gex_MK_Create: invalid argument (%s)",
              !kind_p ? "kind_p is NULL" : !args ? "args is NULL"
              : client != &gexi_ctx.client ? "not the client of this process"
                                           : "flags must be 0");
    return GASNET_ERR_BAD_ARG;
  }
  struct gexi_device *dev = NULL;
  if (args->gex_class == GEX_MK_CLASS_CUDA_UVA && (GEX_HAVE_MK_CUDA_UVA || gexi_ctx.env.mk_test_device)) {
    int ordinal = args->gex_args.gex_class_cuda_uva.gex_CUdevice;
    if (ordinal < 0) {
      gexi_warn("gex_MK_Create: GEX_MK_CLASS_CUDA_UVA: device %d is not a device ordinal", ordinal);
      return GASNET_ERR_BAD_ARG;
    }
    char why[256];
    dev = gexi_ctx.env.mk_test_device ? gexi_test_device_open(ordinal, why, sizeof why)
                                      : gexi_cuda_open(ordinal, why, sizeof why);
    if (!dev) {
      gexi_warn("gex_MK_Create: GEX_MK_CLASS_CUDA_UVA: %s", why);
      return GASNET_ERR_RESOURCE;
    }
    gexi_bounce_init(dev);
  } else if (args->gex_class != GEX_MK_CLASS_HOST) {
    gexi_warn("gex_MK_Create: %s (%d) is not supported by this build of libgex (host%s only)",
              class_name(args->gex_class), (int)args->gex_class,
              GEX_HAVE_MK_CUDA_UVA ? " and CUDA_UVA" : "");
    return GASNET_ERR_BAD_ARG;
  }
  struct gexi_MK *k = calloc(1, sizeof *k);
  if (!k) {
    if (dev) {
      gexi_bounce_fini(dev);
      dev->ops->close(dev);
    }
    return GASNET_ERR_RESOURCE;
  }
  k->magic = GEXI_MK_MAGIC;
  k->client = client;
  k->mk_class = args->gex_class;
  k->dev = dev;
  *kind_p = k;
  return GASNET_OK;
}

void gex_MK_Destroy(gex_MK_t kind, gex_Flags_t flags) {
  gexi_check_init("gex_MK_Destroy");
  if (kind == GEX_MK_HOST || kind == GEX_MK_INVALID || kind->magic != GEXI_MK_MAGIC)
    gexi_fatal("gex_MK_Destroy: %s is not a kind made by gex_MK_Create",
               kind == GEX_MK_HOST ? "GEX_MK_HOST" : kind == GEX_MK_INVALID ? "GEX_MK_INVALID"
                                                                           : "the argument");
  if (flags) gexi_fatal("gex_MK_Destroy: flags 0x%x must be 0", (unsigned)flags);
  uint64_t n = atomic_load(&kind->segments);
  if (n) gexi_fatal("gex_MK_Destroy: %llu segment(s) of this kind still exist", (unsigned long long)n);
  kind->magic = 0;
  if (kind->dev) {
    gexi_bounce_fini(kind->dev);
    kind->dev->ops->close(kind->dev);
  }
  free(kind);
}

int gexi_mk_is_host(gex_MK_t kind) {
  return kind == GEX_MK_HOST ||
         (kind != GEX_MK_INVALID && kind->magic == GEXI_MK_MAGIC &&
          kind->mk_class == GEX_MK_CLASS_HOST && kind->client == &gexi_ctx.client);
}

struct gexi_device *gexi_mk_device(gex_MK_t kind) {
  return kind != GEX_MK_HOST && kind != GEX_MK_INVALID && kind->magic == GEXI_MK_MAGIC &&
                 kind->client == &gexi_ctx.client
             ? kind->dev
             : NULL;
}

void gexi_mk_segment_count(gex_MK_t kind, int delta) {
  if (kind != GEX_MK_HOST) atomic_fetch_add(&kind->segments, (uint64_t)(int64_t)delta);
}
