/* transport/ofi/ofi_lib.c -- libfabric, loaded when the network transport
 * starts.
 *
 * libgex does not link libfabric: a process whose ranks all share one
 * neighbourhood never starts the network transport, so it should not pay
 * for loading it.  That cost is not small: Debian's libfabric 1.17 pulls in
 * libinfinipath (its psm provider), whose constructor calibrates the
 * processor's clock by sleeping in 125 us steps, pinned to CPU 0, for 0.1 s
 * or more -- about 0.2 s before main() in every process that links it
 * (docs/network.md).
 *
 * Only five functions of libfabric are real symbols; everything else
 * (fi_domain, fi_cq_read, fi_writemsg, ...) is an inline call through the
 * ops table of an object these return.  They are looked up under the
 * symbol versions a link against the build's libfabric would bind
 * (GEXI_FI_*_VERSION, read from it by CMakeLists.txt), so a newer libfabric
 * at run time serves the structure layouts libgex was compiled with, as it
 * would for a linked program.
 */
#include <dlfcn.h> /* dlvsym: _GNU_SOURCE, set for every source */
#include <stddef.h>

#include "transport/ofi/ofi.h"

#ifndef GEXI_FI_SONAME
#define GEXI_FI_SONAME "libfabric.so.1"
#endif

static void *entry(void *h, const char *name, const char *version) {
  void *f = version[0] ? dlvsym(h, name, version) : dlsym(h, name);
  if (!f)
    gexi_fatal("network: %s has no %s%s%s, which libgex was built against", GEXI_FI_SONAME, name,
               version[0] ? "@" : "", version);
  return f;
}

void gexi_ofi_lib_load(struct gexi_ofi_lib *lib) {
  void *h = dlopen(GEXI_FI_SONAME, RTLD_NOW | RTLD_LOCAL);
#ifdef GEXI_FI_PATH
  if (!h) h = dlopen(GEXI_FI_PATH, RTLD_NOW | RTLD_LOCAL); /* where the build found it */
#endif
  if (!h)
    gexi_fatal("gex_Client_Init: the network transport needs libfabric, which cannot be "
               "loaded: %s", dlerror());
  lib->getinfo = (int (*)(uint32_t, const char *, const char *, uint64_t,
                          const struct fi_info *, struct fi_info **))entry(
      h, "fi_getinfo", GEXI_FI_GETINFO_VERSION);
  lib->freeinfo = (void (*)(struct fi_info *))entry(h, "fi_freeinfo", GEXI_FI_FREEINFO_VERSION);
  lib->dupinfo =
      (struct fi_info * (*)(const struct fi_info *)) entry(h, "fi_dupinfo", GEXI_FI_DUPINFO_VERSION);
  lib->fabric = (int (*)(struct fi_fabric_attr *, struct fid_fabric **, void *))entry(
      h, "fi_fabric", GEXI_FI_FABRIC_VERSION);
  lib->strerror = (const char *(*)(int))entry(h, "fi_strerror", GEXI_FI_STRERROR_VERSION);
}
