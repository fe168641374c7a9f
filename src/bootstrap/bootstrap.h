/* bootstrap/bootstrap.h -- how a rank learns its place in the job.
 *
 * A bootstrap gives the rank its jobrank and job size, an all-gather over
 * every rank (also used as the barrier before attach), and the job-wide exit
 * paths.  Implementations: 'launcher' (started by gexrun, see wire.h),
 * 'pmix' (started by a PMIx launcher such as mpirun or srun --mpi=pmix, see
 * pmix.c) and 'singleton' (started alone: a job of one rank).  Bootstrap.c
 * picks one from the environment.
 */
#ifndef GEXI_BOOTSTRAP_H
#define GEXI_BOOTSTRAP_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of the per-job secret (a SipHash-2-4 key, sec/siphash.h) that
 * network peers prove they know before they are admitted
 * (transport/ofi/ofi_auth.c, docs/security.md). */
#define GEXI_SECRET_LEN 16

typedef struct gexi_bootstrap gexi_bootstrap_t;
struct gexi_bootstrap {
  const char *name;
  uint32_t rank, size;
  /* Gather 'len' bytes from every rank into out[size*len], in rank order. */
  void (*allgather)(gexi_bootstrap_t *b, const void *mine, void *out, size_t len);
  /* Tell the launcher this rank ends the job with 'code' (gasnet_exit). */
  void (*notify_exit)(gexi_bootstrap_t *b, int code);
  /* Tell the launcher this rank hit a fatal error and ends the job. */
  void (*notify_abort)(gexi_bootstrap_t *b, int code);
  /* Tell the launcher this rank is leaving by exit(code) without ending the
   * job (GASNET_CATCH_EXIT=0): its end is not a death. */
  void (*notify_leave)(gexi_bootstrap_t *b, int code);
  /* An operation with jobrank 'peer' failed (the peer may have died;
   * GEX_RANK_INVALID: unknown): tell the launcher and wait, bounded, for
   * its verdict.  A death it confirms ends this process meanwhile (with a
   * line naming the dead rank), and so may the job's end; it returns when
   * the failure is this rank's to report (the caller then prints why and
   * aborts the job) or when the job's exit was requested meanwhile
   * (gexi_ctx.exit_requested).  May be NULL. */
  void (*notify_peer_failed)(gexi_bootstrap_t *b, int code, uint32_t peer);
  /* The job's secret: every rank gets the same GEXI_SECRET_LEN random bytes,
   * drawn once per job by the launcher (or rank 0 under PMIx).  Collective
   * under PMIx: every rank calls it at the same point (the network
   * transport's start).  NULL for a bootstrap without network peers. */
  void (*secret)(gexi_bootstrap_t *b, unsigned char out[GEXI_SECRET_LEN]);
  /* NULL when the secret reached this rank only through private channels;
   * otherwise how it travelled in the clear between hosts (printed once as
   * a warning when the job spans several hosts). */
  const char *secret_exposure;
  void *impl;
};

/* Pick and start the bootstrap for this process (environment decides). */
gexi_bootstrap_t *gexi_bootstrap_start(void);
gexi_bootstrap_t *gexi_bootstrap_launcher_start(int fd);
/* gasnet_exit (EXIT) or a fatal error (ABORT) before gex_Client_Init: if
 * gexrun started this process, tell it, so that the job ends with 'code'
 * rather than as a death.  Nothing otherwise. */
void gexi_bootstrap_end_before_init(int is_abort, int code);
void gexi_bootstrap_launcher_end_early(int fd, uint32_t type, int code);
gexi_bootstrap_t *gexi_bootstrap_singleton_start(void);
/* PMIx client (mpirun, srun --mpi=pmix); without PMIx at build time it
 * reports that and ends the process. */
gexi_bootstrap_t *gexi_bootstrap_pmix_start(void);
/* A process started alone: with the smp identity and GASNET_PSHM_NODES=N
 * (N > 1) it becomes gexrun -n N running this program (self_spawn.c) and
 * does not return; otherwise it returns (a job of one rank). */
void gexi_bootstrap_self_spawn(void);

static inline void gexi_bootstrap_barrier(gexi_bootstrap_t *b) {
  b->allgather(b, NULL, NULL, 0);
}

#endif
