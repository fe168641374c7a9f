/* core/env.h -- the library's settings from the environment.
 *
 * Every variable the library reads is parsed by gex_Client_Init
 * (gexi_env_load), right after the bootstrap started, with the grammars of
 * core/env_parse.h; the values live in gexi_ctx.env from then on.  Policy,
 * the same for every variable: unset or empty means the default; anything
 * that does not parse (trailing characters, a sign, an overflow, a value out
 * of range, an unknown word) ends the job at gex_Client_Init with one line
 * "<NAME>='<value>': <why>".  docs/environment.md lists them all.
 *
 * The bootstrap's own variables (GEX_BOOTSTRAP, GEX_BOOT_FD, GEX_RANK,
 * GEX_SIZE, GEX_BOOTSTRAP_TIMEOUT) are read by the bootstrap before that,
 * and GASNET_MAX_SEGSIZE also when gasnet_getMaxLocalSegmentSize is called
 * before gex_Client_Init, through the same parsers and with the same policy.
 */
#ifndef GEXI_CORE_ENV_H
#define GEXI_CORE_ENV_H

#include <stdbool.h>
#include <stdint.h>

#include "core/env_parse.h"
#include "core/hooks.h" /* GEXI_WAIT_* */

/* The network transports (GEX_NET_TRANSPORT). */
enum { GEXI_NET_DEFAULT = 0, GEXI_NET_OFI = 1, GEXI_NET_SOCK = 2 };
struct gexi_env {
  uint32_t supernode_maxsize;  /* GEX_SUPERNODE_MAXSIZE; 0: no limit */
  int net_transport;           /* GEX_NET_TRANSPORT: GEXI_NET_* (core/env.c) */
  int net_verbose;             /* GEX_NET_VERBOSE */
  int wait_mode;               /* GEX_WAIT_MODE: GEXI_WAIT_* (core/hooks.h, core/progress.c) */
  const char *sock_iface;      /* GEX_SOCK_IFACE; NULL: the first interface up */
  const char *cuda_driver;     /* GEX_CUDA_DRIVER; NULL: libcuda.so.1 (mk/cuda.c) */
  bool mk_test_device;         /* GEX_MK_TEST_DEVICE=host (mk/test_device.c) */
  int mk_ipc;                  /* GEX_MK_IPC: neighbours' device segments opened here (rma/rma_device.c) */
  uint64_t sock_am_credit;     /* GEX_SOCK_AM_CREDIT bytes; 0: the default */
  uint64_t sock_connect_timeout; /* GEX_SOCK_CONNECT_TIMEOUT seconds (sock_auth.c) */
  int64_t sock_sndbuf;         /* GEX_SOCK_SNDBUF bytes; 0: the kernel's autotuning */
  int sock_udp;                /* GEX_SOCK_UDP: streams over the UDP lane (sock_lane.c) */
  uint64_t test_lane_drop;     /* GEX_TEST_LANE_DROP: the lane drops every Nth first sending */
  const char *ofi_provider;    /* GEX_OFI_PROVIDER; NULL: libfabric's choice */
  const char *ofi_domain;      /* GEX_OFI_DOMAIN; NULL: chosen with the provider */
  uint64_t ofi_am_credit;      /* GEX_OFI_AM_CREDIT bytes; 0: the default */
  int ofi_multi_recv;          /* GEX_OFI_MULTI_RECV: -1 unset (by provider), 0, 1 */
  uint64_t ofi_am_batch;       /* GEX_OFI_AM_BATCH bytes; 0: AM Requests never batched */
  int ofi_counted_rma;         /* GEX_OFI_COUNTED_RMA: -1 unset (by provider), 0, 1 */
  int ofi_verbose;             /* GEX_OFI_VERBOSE */
  int ofi_atomic_nonfetch;     /* GEX_OFI_ATOMIC_NONFETCH */
  const char *ofi_atomic_deny; /* GEX_OFI_ATOMIC_DENY; NULL: none */
  int coll_force_am;           /* GEX_COLL_FORCE_AM */
  int coll_hier;               /* GEX_COLL_HIER (default on) */
  uint32_t coll_radix;         /* GEX_COLL_RADIX, 2..64 (default 4) */
  uint64_t coll_rdv_min;       /* GEX_COLL_RDV_MIN: rendezvous from this payload (0: never) */
  size_t coll_rdv_chunk;       /* GEX_COLL_RDV_CHUNK: rendezvous fragment bytes */
  int coll_xchg;               /* GEX_COLL_XCHG: ReduceToAll by exchange (default on) */
  int coll_rdv_push;           /* GEX_COLL_RDV_PUSH: rendezvous by writes where ordered (default on) */
  uint64_t coll_rdv_standing;  /* GEX_COLL_RDV_STANDING: largest exchange into standing buffers */
  int ad_force_am;             /* GEX_AD_FORCE_AM */
  int ad_native;               /* GEX_AD_NATIVE: -1 auto, 0, 1 */
  int ad_verbose;              /* GEX_AD_VERBOSE */
  uint32_t coalesce;           /* GEX_COALESCE: NBI operations per message (1: none coalesced) */
  int64_t coalesce_put_max;    /* GEX_COALESCE_PUT_MAX (-1: the transport's default) */
  int vis_force_am;            /* GEX_VIS_FORCE_AM */
  int64_t vis_pack_max;        /* GEX_VIS_PACK_MAX bytes; -1: by provider */
  int catch_exit;              /* GASNET_CATCH_EXIT (default on) */
  int rcv_thread;              /* GASNET_RCV_THREAD (core/rcv_thread.c; default off) */
  uint64_t rcv_thread_rate;    /* GASNET_RCV_THREAD_RATE: its wake-ups a second (0: no limit) */
  int no_catch_sigint;         /* GASNET_NO_CATCH_SIGNAL names SIGINT (or is "*") */
  int have_max_segsize;        /* GASNET_MAX_SEGSIZE given */
  struct gexi_segsize max_segsize;
};

/* Parse every library variable into gexi_ctx.env (fatal on a bad value). */
void gexi_env_load(void);

/* One variable each, through the parsers; a bad value is fatal (one line
 * naming the variable and the value).  Unset or empty: 'dflt'. */
int gexi_env_switch(const char *name, int dflt);
uint64_t gexi_env_count(const char *name, uint64_t dflt, uint64_t min, uint64_t max);
uint64_t gexi_env_size(const char *name, uint64_t dflt, uint64_t min, uint64_t max);
/* The exit timeout of a job of 'ranks' ranks, in milliseconds
 * (GASNET_EXITTIMEOUT and its formula, core/env_parse.h); read by the
 * bootstraps that coordinate a job's exit. */
uint64_t gexi_env_exit_timeout_ms(uint64_t ranks);
/* The value, or NULL when unset or empty. */
const char *gexi_env_string(const char *name);
/* GASNET_MAX_SEGSIZE; returns whether it is given. */
int gexi_env_segsize(struct gexi_segsize *out);

#endif
