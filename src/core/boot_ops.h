/* core/boot_ops.h -- the interface a bootstrap implements, as the core and
 * the layers above call it (gexi_ctx.boot).  Declared here, below the
 * bootstrap, as core/net_ops.h declares the network transport's table: the
 * core's exit and error paths call through it without knowing which
 * bootstrap (gexrun's socket, PMIx, singleton) filled it.  The bootstraps
 * themselves and the function that picks one are in bootstrap/bootstrap.h.
 */
#ifndef GEXI_BOOT_OPS_H
#define GEXI_BOOT_OPS_H

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

static inline void gexi_bootstrap_barrier(gexi_bootstrap_t *b) {
  b->allgather(b, NULL, NULL, 0);
}

/* What the core calls for gasnet_exit (is_abort 0) or a fatal error
 * (is_abort 1) before gex_Client_Init, when no bootstrap runs yet: the
 * bootstrap layer's gexi_bootstrap_end_before_init, wired into the context
 * where it is defined (objects/context_storage.c). */
typedef void (*gexi_boot_end_early_fn)(int is_abort, int code);

#endif
