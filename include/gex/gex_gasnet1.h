/* gex/gex_gasnet1.h -- libgex: the GASNet-1 names that <gasnetex.h> provides.
 *
 * Not for direct inclusion; gasnetex.h includes it.  GASNet-EX programs that
 * never include <gasnet.h> still use a few GASNet-1 names: the split-phase
 * barrier (gasnet_barrier*, GASNET_BARRIERFLAG_*), gasnet_set_waitmode,
 * gasnet_getenv, the thread-info macros and the segment/memvec types.  They
 * are declared here.  The rest of the GASNet-1 API is in gex/gex_legacy.h,
 * which <gasnet.h> includes; the implementation is in src/legacy/ and is
 * built on the GASNet-EX calls only (see docs/legacy.md).
 */
#ifndef GEX_GASNET1_H
#define GEX_GASNET1_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the GASNet-1 layer's context (internal) ---------------------------------
 * The one context structure of src/legacy.  Only 'tm' is read by inline code
 * (the RMA, AM and VIS wrappers of gex/gex_legacy.h and gasnet_vis.h): it is
 * the primordial team, set at the end of gex_Client_Init (through the core's
 * client-init hook), so every GASNet-1 call names the same team.  Every other
 * field belongs to src/legacy and may change between releases. */
struct gexl_nodegroup {
  gex_Rank_t host, supernode; /* ordinals, as gex_System_QueryMyPosition numbers them */
};
struct gexl_context {
  gex_TM_t tm;              /* primordial team (NULL before gex_Client_Init) */
  gex_Client_t client;
  gex_EP_t ep;
  gex_Flags_t init_flags;   /* flags given to gex_Client_Init */
  int gasnet_init_called;   /* gasnet_init ran (GASNet-1 init sequence) */
  int gasnet_attach_called; /* gasnet_attach ran */
  int waitmode;             /* last gasnet_set_waitmode value */
  struct gexl_nodegroup *groups; /* by jobrank; gathered for GASNet-1 clients */
  /* By jobrank: local address minus owner address of the rank's segment
   * when it is mapped in this process, else GEXL_NOT_MAPPED.  Allocated (all
   * GEXL_NOT_MAPPED) at client init and filled once, by the first thread
   * that finds a segment attached (src/legacy/context.c); read by the inline
   * RMA calls of builds without the misuse checks (gex_legacy.h).  Entries
   * change at most once, from GEXL_NOT_MAPPED, and are read and written
   * with relaxed atomic accesses.  delta_state: 0 empty, 1 being filled,
   * 2 filled. */
  intptr_t *delta;
  int delta_state;
  /* Split-phase barrier (src/legacy/barrier.c); one barrier at a time. */
  struct {
    int phase;              /* 0: idle, 1: notified (wait/try pending) */
    int id, flags;          /* as given to notify */
    gex_Event_t event;      /* the barrier or reduction started by notify */
    int words;              /* 1: a barrier with words (seq), 0: a reduction */
    uint64_t seq;
    uint64_t mine[3], all[3]; /* contribution and result (see barrier.c) */
    int result_named;       /* last completed barrier: 1 named, 0 anonymous, -1 mismatch */
    int result_id;
  } bar;
};
extern struct gexl_context gexl_ctx;

/* ---- scalar types ---------------------------------------------------------- */
typedef struct {
  void *addr;
  uintptr_t size;
} gasnet_seginfo_t;

/* Same layout as gex_Memvec_t (the VIS calls pass one for the other). */
typedef struct {
  void *addr;
  size_t len;
} gasnet_memvec_t;

/* ---- split-phase barrier ------------------------------------------------------
 * Over the primordial team (every rank of the job).  A barrier is anonymous
 * when its flags include GASNET_BARRIERFLAG_ANONYMOUS (UNNAMED implies it);
 * GASNET_BARRIERFLAG_MISMATCH forces a mismatch on every rank.  Must not run
 * concurrently with a GASNet-EX collective on the primordial team. */
#define GASNET_BARRIERFLAG_ANONYMOUS 1
#define GASNET_BARRIERFLAG_MISMATCH 2
#define GASNET_BARRIERFLAG_UNNAMED 9
void gasnet_barrier_notify(int id, int flags);
int gasnet_barrier_wait(int id, int flags);
int gasnet_barrier_try(int id, int flags);
int gasnet_barrier(int id, int flags);
int gasnet_barrier_result(int *id);

/* ---- wait mode ------------------------------------------------------------------
 * Accepted and remembered; every libgex wait loop already yields the CPU
 * after a run of empty polls, whatever the mode. */
#define GASNET_WAIT_SPIN 0
#define GASNET_WAIT_BLOCK 1
#define GASNET_WAIT_SPINBLOCK 2
int gasnet_set_waitmode(int wait_mode);

/* ---- environment ----------------------------------------------------------------- */
/* The job's environment (gexrun forwards GASNET_*, GEX_* and FI_* to every rank). */
const char *gasnet_getenv(const char *name);

/* ---- thread information -------------------------------------------------------------
 * libgex keeps no per-thread handle for clients to cache: the thread-info
 * value is NULL on every thread (which GASNet-1 allows), and the macros cost
 * nothing. */
typedef void *gasnet_threadinfo_t;
/* An image (a thread of a GASNet-1 client; here one per process). */
typedef uint32_t gasnet_image_t;
#define GASNET_BEGIN_FUNCTION() ((void)0)
#define GASNET_GET_THREADINFO() ((gasnet_threadinfo_t)0)
#define GASNET_POST_THREADINFO(info) ((void)(info))

#ifdef __cplusplus
}
#endif

#endif /* GEX_GASNET1_H */
