/* transport/shm/shm_cma.c -- copies into and out of a neighbour's memory
 * that is not mapped in this process.
 *
 * A segment the client allocated itself (gex_Segment_Create with an address)
 * is ordinary private memory of its owner: its neighbours cannot map it, as
 * they map the shared-memory objects libgex allocates.  RMA and AM Long
 * payloads to it are copied by the kernel instead (cross-memory attach:
 * process_vm_writev/readv), which needs the permission to trace the owner
 * (same user, and no Yama ptrace_scope or seccomp policy forbidding it).
 * A copy is complete when the call returns, like a memcpy through a mapping.
 * When the kernel refuses, the job ends with a message saying why and what
 * to do instead (docs/segments.md).
 */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "transport/shm/shm.h"

GEXI_NORETURN static void refused(const char *fn, const char *what, gex_Rank_t jobrank,
                                  const void *remote, size_t nbytes, int err) {
  gexi_fatal("%s: cannot %s %zu bytes at %p in the segment of rank %u, a process of this "
             "neighbourhood whose segment is client memory that is not mapped here (%s: %s); "
             "a segment libgex allocates (gex_Segment_Create with a NULL address) is shared "
             "with the neighbourhood instead",
             fn, what, nbytes, remote, (unsigned)jobrank,
             what[0] == 'w' ? "process_vm_writev" : "process_vm_readv", strerror(err));
}

static pid_t pid_of(gex_Rank_t jobrank) {
  return (pid_t)gexi_ctx.shm->pid[gexi_ctx.local_index[jobrank]];
}

void gexi_shm_cma_write(const char *fn, gex_Rank_t jobrank, void *remote, const void *local,
                        size_t nbytes) {
  pid_t pid = pid_of(jobrank);
  size_t done = 0;
  while (done < nbytes) { /* the kernel may copy less than asked (page by page) */
    struct iovec l = {(char *)(uintptr_t)local + done, nbytes - done};
    struct iovec r = {(char *)remote + done, nbytes - done};
    ssize_t n = process_vm_writev(pid, &l, 1, &r, 1, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) refused(fn, "write", jobrank, remote, nbytes, n < 0 ? errno : EFAULT);
    done += (size_t)n;
  }
}

void gexi_shm_cma_read(const char *fn, gex_Rank_t jobrank, void *local, const void *remote,
                       size_t nbytes) {
  pid_t pid = pid_of(jobrank);
  size_t done = 0;
  while (done < nbytes) {
    struct iovec l = {(char *)local + done, nbytes - done};
    struct iovec r = {(char *)(uintptr_t)remote + done, nbytes - done};
    ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) refused(fn, "read", jobrank, remote, nbytes, n < 0 ? errno : EFAULT);
    done += (size_t)n;
  }
}
