/* t_dlopen.c -- libgex's shared library loads with dlopen into a running
 * program, as a runtime that loads its communication layer on demand
 * does.  gexi_tls is initial-exec (core/context.h), which puts the
 * library's whole thread-local block in static TLS: a dlopen finds room
 * for it only while that block stays small, and fails ("cannot allocate
 * memory in static TLS block") once a large thread-local buffer is added.
 *
 * usage: t_dlopen <path of libgex.so>
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: t_dlopen LIBRARY\n");
    return 2;
  }
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    printf("FAIL t_dlopen: %s\n", dlerror());
    return 1;
  }
  if (!dlsym(h, "gex_Client_Init")) {
    printf("FAIL t_dlopen: %s has no gex_Client_Init\n", argv[1]);
    return 1;
  }
  printf("PASS t_dlopen\n");
  return 0;
}
