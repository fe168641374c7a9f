/* t_shmem_misuse.c MODE -- one misuse of the OpenSHMEM library, which must
 * end the job with one line naming the call (tests/shmem/shmem.cmake
 * checks the line and the status):
 *   nonsym   a put to a buffer that is not symmetric
 *   pe       a put to a PE out of range
 *   before   shmem_my_pe before shmem_init
 *   cmp      wait_until with a comparison that is not SHMEM_CMP_*
 *   free     shmem_free of a pointer the heap did not return
 *   mempe    shmem_putmem (inline in shmem.h) to a PE out of range
 *   memnonsym  shmem_getmem (inline) from a buffer that is not symmetric
 *   membefore  shmem_putmem (inline) before shmem_init */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "before")) return shmem_my_pe() == 0 ? 0 : 3;
  long early = 1;
  if (!strcmp(mode, "membefore")) shmem_putmem(&early, &early, sizeof early, 0);
  shmem_init();
  long local = 0, v = 1;
  long *h = shmem_malloc(64);
  if (!strcmp(mode, "nonsym")) shmem_long_put(&local, &v, 1, 0);
  if (!strcmp(mode, "pe")) shmem_long_put(h, &v, 1, shmem_n_pes());
  if (!strcmp(mode, "cmp")) shmem_long_wait_until(h, 42, 0);
  if (!strcmp(mode, "free")) shmem_free(h + 1);
  if (!strcmp(mode, "mempe")) shmem_putmem(h, &v, sizeof v, shmem_n_pes());
  if (!strcmp(mode, "memnonsym")) shmem_getmem(&v, &local, sizeof v, 0);
  shmem_finalize();
  return 3; /* the misuse was not caught */
}
