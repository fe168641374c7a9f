/* tests/shmem/pshmem_header.c -- <pshmem.h> after <shmem.h> and on its own
 * compiles clean (C99 and C11 with -Wpedantic, C++ with -Wall -Wextra), and
 * declares the pshmem_ names with the shmem_ calls' types. */
#include <shmem.h>
#include <pshmem.h>


int use(void);
int use(void) {
  void (*put)(long *, const long *, size_t, int) = pshmem_long_put;
  void (*putmem)(void *, const void *, size_t, int) = pshmem_putmem;
  int (*reduce)(shmem_team_t, int *, const int *, size_t) = pshmem_int_sum_reduce;
  uint64_t (*sig)(const uint64_t *) = pshmem_signal_fetch;
  void (*exit_)(int) = pshmem_global_exit;
  void *(*alloc)(size_t) = pshmalloc;
  int (*me)(void) = p_my_pe;
  void (*pcontrol)(const int, ...) = pshmem_pcontrol;
  return (put != 0) + (putmem != 0) + (reduce != 0) + (sig != 0) + (exit_ != 0) + (alloc != 0) +
         (me != 0) + (pcontrol != 0);
}
