/* t_mk.c -- memory kinds (gasnet_mk.h): the predefined host kind, kinds of
 * the host class made by gex_MK_Create and used for segments, the argument
 * checks, the reference's constant values, and the CUDA_UVA class as far
 * as this machine allows:
 *
 *   t_mk [cuda=resource|test|any|absent]
 *     resource: gex_MK_Create of a CUDA_UVA kind must fail with
 *               GASNET_ERR_RESOURCE (no CUDA driver, or a driver that
 *               cannot start: GEX_CUDA_DRIVER naming CUDA's stub library);
 *     absent:   it must fail with GASNET_ERR_BAD_ARG (a build without the
 *               class: GASNET_HAVE_MK_CLASS_CUDA_UVA undefined);
 *     test:     it must succeed (GEX_MK_TEST_DEVICE=host), and its
 *               segments are checked: allocated as device memory, a host
 *               address refused, one destroyed, one bound to an endpoint
 *               of gex_EP_Create (RMA to them: t_mk_rma.c);
 *     any:      either (a machine with a GPU: the device tests are
 *               elsewhere).
 *   The default: 'absent' in a build without the class, else 'resource'
 *   when this process cannot load libcuda.so.1 itself, else 'any'.
 * HIP and ZE are refused with GASNET_ERR_BAD_ARG, and their
 * GASNET_HAVE_MK_CLASS_* macros are undefined.
 */
#include "test_util.h"

#include <dlfcn.h>
#include <gasnet_mk.h>

#if GASNET_HAVE_MK_CLASS_HOST != 1
#error "GASNET_HAVE_MK_CLASS_HOST must be 1"
#endif
#if defined(GASNET_HAVE_MK_CLASS_HIP) || defined(GASNET_HAVE_MK_CLASS_ZE)
#error "this build supports no HIP or ZE memory kind"
#endif
#if defined(GASNET_HAVE_MK_CLASS_CUDA_UVA) != defined(GASNET_HAVE_MK_CLASS_MULTIPLE)
#error "GASNET_HAVE_MK_CLASS_MULTIPLE is defined exactly when a device class is"
#endif
#if defined(GASNET_HAVE_MK_CLASS_CUDA_UVA) && GASNET_HAVE_MK_CLASS_CUDA_UVA != 1
#error "GASNET_HAVE_MK_CLASS_CUDA_UVA is 1 where defined"
#endif
_Static_assert(sizeof(GEX_MK_HOST) == sizeof(gex_MK_t), "GEX_MK_HOST is a gex_MK_t");
_Static_assert(sizeof(GEX_MK_INVALID) == sizeof(gex_MK_t), "GEX_MK_INVALID is a gex_MK_t");

int main(int argc, char **argv) {
  test_init(&argc, &argv, "t_mk", GASNET_PAGESIZE, NULL, 0);

  /* the reference's values */
  CHECK((uintptr_t)GEX_MK_HOST == 1);
  CHECK((uintptr_t)GEX_MK_INVALID == 0);
  CHECK(GEX_MK_CLASS_HOST != GEX_MK_CLASS_CUDA_UVA && GEX_MK_CLASS_HIP != GEX_MK_CLASS_ZE &&
        GEX_MK_CLASS_HOST != GEX_MK_CLASS_ZE && GEX_MK_CLASS_CUDA_UVA != GEX_MK_CLASS_HIP);

  /* ---- CUDA_UVA ---- */
  const char *cuda = "resource";
  void *probe = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (probe) cuda = "any";
#if !GASNET_HAVE_MK_CLASS_CUDA_UVA
  cuda = "absent";
#endif
  for (int i = 1; i < argc; i++)
    if (strncmp(argv[i], "cuda=", 5) == 0) cuda = argv[i] + 5;
  CHECK(!strcmp(cuda, "resource") || !strcmp(cuda, "test") || !strcmp(cuda, "any") ||
        !strcmp(cuda, "absent"));
  gex_MK_Create_args_t args;
  memset(&args, 0, sizeof args);
  gex_MK_t kind = GEX_MK_INVALID;
  args.gex_class = GEX_MK_CLASS_CUDA_UVA;
  args.gex_args.gex_class_cuda_uva.gex_CUdevice = -1;
  gex_System_SetVerboseErrors(0);
  CHECK(gex_MK_Create(&kind, T.client, &args, 0) == GASNET_ERR_BAD_ARG);
  gex_System_SetVerboseErrors(1); /* the reason for a refusal is printed: expect.sh looks for it */
  args.gex_args.gex_class_cuda_uva.gex_CUdevice = 0;
  int rc = gex_MK_Create(&kind, T.client, &args, 0);
  if (!strcmp(cuda, "resource")) CHECK(rc == GASNET_ERR_RESOURCE && kind == GEX_MK_INVALID);
  if (!strcmp(cuda, "test")) CHECK(rc == GASNET_OK && kind != GEX_MK_INVALID);
  if (!strcmp(cuda, "absent")) CHECK(rc == GASNET_ERR_BAD_ARG && kind == GEX_MK_INVALID);
  CHECK(rc == GASNET_OK || rc == GASNET_ERR_RESOURCE || rc == GASNET_ERR_BAD_ARG);
  if (rc == GASNET_OK) {
    /* A segment of device memory: allocated by libgex, page-rounded, not in
     * host memory this process can touch (with the test device, any touch
     * faults); a host address is refused; one is bound to a new endpoint
     * (and stays: a bound segment is never destroyed, nor its kind). */
    gex_Segment_t d1, d2;
    CHECK(gex_Segment_Create(&d1, T.client, NULL, 3 * GASNET_PAGESIZE + 5, kind, 0) == GASNET_OK);
    CHECK(gex_Segment_QuerySize(d1) == 4 * GASNET_PAGESIZE);
    CHECK(gex_Segment_QueryAddr(d1) != NULL);
    CHECK(gex_Segment_Create(&d2, T.client, NULL, 100, kind, 0) == GASNET_OK);
    CHECK(gex_Segment_QueryAddr(d2) != gex_Segment_QueryAddr(d1));
    static unsigned char host_mem[4096];
    gex_Segment_t bad = GEX_SEGMENT_INVALID;
    gex_System_SetVerboseErrors(0);
    CHECK(gex_Segment_Create(&bad, T.client, host_mem, sizeof host_mem, kind, 0) ==
          GASNET_ERR_BAD_ARG);
    CHECK(bad == GEX_SEGMENT_INVALID);
    CHECK(gex_EP_BindSegment(T.ep, d1, 0) == GASNET_ERR_BAD_ARG); /* the primordial endpoint */
    gex_System_SetVerboseErrors(1);
    gex_Segment_Destroy(d1, 0);
    gex_EP_t ep;
    CHECK(gex_EP_Create(&ep, T.client, GEX_EP_CAPABILITY_RMA, 0) == GASNET_OK);
    CHECK(gex_EP_BindSegment(ep, d2, 0) == GASNET_OK);
    kind = GEX_MK_INVALID;
  }
  if (probe) dlclose(probe);

  /* ---- HIP and ZE are refused ---- */
  gex_System_SetVerboseErrors(0);
  args.gex_class = GEX_MK_CLASS_HIP;
  args.gex_args.gex_class_hip.gex_hipDevice = 0;
  CHECK(gex_MK_Create(&kind, T.client, &args, 0) == GASNET_ERR_BAD_ARG);
  args.gex_class = GEX_MK_CLASS_ZE;
  args.gex_args.gex_class_ze.gex_zeDevice = NULL;
  args.gex_args.gex_class_ze.gex_zeContext = NULL;
  args.gex_args.gex_class_ze.gex_zeMemoryOrdinal = 0;
  CHECK(gex_MK_Create(&kind, T.client, &args, 0) == GASNET_ERR_BAD_ARG);
  args.gex_class = (gex_MK_Class_t)77;
  CHECK(gex_MK_Create(&kind, T.client, &args, 0) == GASNET_ERR_BAD_ARG);
  CHECK(kind == GEX_MK_INVALID);

  /* ---- argument checks of the host class ---- */
  memset(&args, 0, sizeof args);
  args.gex_class = GEX_MK_CLASS_HOST;
  CHECK(gex_MK_Create(NULL, T.client, &args, 0) == GASNET_ERR_BAD_ARG);
  CHECK(gex_MK_Create(&kind, T.client, NULL, 0) == GASNET_ERR_BAD_ARG);
  CHECK(gex_MK_Create(&kind, GEX_CLIENT_INVALID, &args, 0) == GASNET_ERR_BAD_ARG);
  CHECK(gex_MK_Create(&kind, T.client, &args, 1) == GASNET_ERR_BAD_ARG);
  args.gex_flags = 1;
  CHECK(gex_MK_Create(&kind, T.client, &args, 0) == GASNET_ERR_BAD_ARG);
  args.gex_flags = 0;
  CHECK(kind == GEX_MK_INVALID);
  gex_System_SetVerboseErrors(1);

  /* ---- host kinds: create, destroy, create again, make segments of them ---- */
  CHECK(gex_MK_Create(&kind, T.client, &args, 0) == GASNET_OK);
  CHECK(kind != GEX_MK_INVALID && kind != GEX_MK_HOST);
  gex_MK_Destroy(kind, 0);
  gex_MK_t k1 = GEX_MK_INVALID, k2 = GEX_MK_INVALID;
  CHECK(gex_MK_Create(&k1, T.client, &args, 0) == GASNET_OK);
  CHECK(gex_MK_Create(&k2, T.client, &args, 0) == GASNET_OK);
  CHECK(k1 != k2 && k1 != GEX_MK_INVALID && k2 != GEX_MK_INVALID);
  gex_Segment_t s1, s2, s3;
  unsigned char client_mem[1000];
  CHECK(gex_Segment_Create(&s1, T.client, NULL, 3 * GASNET_PAGESIZE + 1, k1, 0) == GASNET_OK);
  CHECK(gex_Segment_QuerySize(s1) == 4 * GASNET_PAGESIZE);
  unsigned char *a1 = gex_Segment_QueryAddr(s1);
  memset(a1, 0xA5, 4 * GASNET_PAGESIZE); /* the whole rounded length is usable */
  CHECK(gex_Segment_Create(&s2, T.client, client_mem + 1, 999, k2, 0) == GASNET_OK);
  CHECK(gex_Segment_QueryAddr(s2) == client_mem + 1 && gex_Segment_QuerySize(s2) == 999);
  CHECK(gex_Segment_Create(&s3, T.client, NULL, 10, GEX_MK_HOST, 0) == GASNET_OK);
  gex_Segment_Destroy(s1, 0);
  gex_Segment_Destroy(s2, 0);
  gex_Segment_Destroy(s3, 0);
  gex_MK_Destroy(k1, 0); /* no segment of these kinds is left */
  gex_MK_Destroy(k2, 0);

  /* the attached segment's kind is host memory; Create works beside it */
  gex_Segment_t s4;
  CHECK(gex_Segment_Create(&s4, T.client, NULL, GASNET_PAGESIZE, GEX_MK_HOST, 0) == GASNET_OK);
  gex_Segment_Destroy(s4, 0);
  test_finish();
}
