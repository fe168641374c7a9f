/* gasnet_fwd.h -- libgex: the minimal forward header of the GASNet-EX API.
 *
 * Only preprocessor constants and plain typedefs, safe to include anywhere.
 * Every constant has the reference implementation's value (GASNet-EX
 * 2025.8.0), so that clients that pin values or exchange them as integers
 * work unchanged.
 */
#ifndef GASNET_FWD_H
#define GASNET_FWD_H

#include <stddef.h>
#include <stdint.h>

/* ---- scalar types ---------------------------------------------------- */
typedef uint32_t gex_Rank_t;
typedef uint16_t gex_EP_Index_t;
typedef void *gex_Addr_t;
typedef struct gexi_Event *gex_Event_t;
typedef uint32_t gex_Flags_t;
typedef uint32_t gex_DT_t;
typedef uint32_t gex_OP_t;
typedef uint32_t gex_EP_Capabilities_t;

/* An endpoint of the job: a rank and its endpoint index (UPC++'s public
 * headers use it with only this header included). */
typedef struct {
  gex_Rank_t gex_rank;
  gex_EP_Index_t gex_ep_index;
} gex_EP_Location_t;

#define GEX_RANK_INVALID ((gex_Rank_t)0xFFFFFFFFu)

/* ---- events ---------------------------------------------------------- */
/* GEX_EVENT_INVALID is zero; NO_OP and the three lc_opt markers are small
 * integers that can never be the address of a real event object. */
#define GEX_EVENT_INVALID ((gex_Event_t)0)
#define GEX_EVENT_NO_OP   ((gex_Event_t)(uintptr_t)1)
#define GEX_EVENT_NOW     ((gex_Event_t *)(uintptr_t)1)
#define GEX_EVENT_DEFER   ((gex_Event_t *)(uintptr_t)2)
#define GEX_EVENT_GROUP   ((gex_Event_t *)(uintptr_t)3)

/* ---- flags -------------------------------------------------------------
 * Values are the reference implementation's (clients pin some of them and
 * pass others across library boundaries as plain integers).  Each group is
 * disjoint within the calls that accept it; groups for unrelated calls
 * reuse bits.  They are plain unsigned constants, without a cast, so that
 * the preprocessor can compare them (#if), as clients do; gex_Flags_t is
 * unsigned int, so their type is gex_Flags_t all the same. */

/* Communication calls (RMA, AM, atomics, VIS). */
#define GEX_FLAG_IMMEDIATE           (1u << 0)
#define GEX_FLAG_LC_COPY_YES         (1u << 1)
#define GEX_FLAG_LC_COPY_NO          (1u << 2)
#define GEX_FLAG_SELF_SEG_UNKNOWN    (1u << 3)
#define GEX_FLAG_SELF_SEG_SOME       (1u << 4)
#define GEX_FLAG_SELF_SEG_BOUND      (1u << 5)
#define GEX_FLAG_SELF_SEG_OFFSET     (1u << 6)
#define GEX_FLAG_PEER_SEG_UNKNOWN    (1u << 7)
#define GEX_FLAG_PEER_SEG_SOME       (1u << 8)
#define GEX_FLAG_PEER_SEG_BOUND      (1u << 9)
#define GEX_FLAG_PEER_SEG_OFFSET     (1u << 10)
#define GEX_FLAG_AM_PREPARE_LEAST_CLIENT (1u << 11)
#define GEX_FLAG_AM_PREPARE_LEAST_ALLOC  (1u << 12)
#define GEX_FLAG_RANK_IS_JOBRANK     (1u << 13)
#define GEX_FLAG_PEER_NEVER_NBRHD    (1u << 14)
#define GEX_FLAG_PEER_NEVER_SELF     (1u << 15)
/* Initiation calls whose root event may have leaves (VIS Put). */
#define GEX_FLAG_ENABLE_LEAF_LC      (1u << 11)

/* Atomic operations (gex_AD_Op*): with IMMEDIATE, RANK_IS_JOBRANK and the
 * segment hints above. */
#define GEX_FLAG_AD_REL              (1u << 1)
#define GEX_FLAG_AD_ACQ              (1u << 2)
#define GEX_FLAG_AD_MY_RANK          (1u << 11)
#define GEX_FLAG_AD_MY_NBRHD         (1u << 12)
/* gex_AD_Create */
#define GEX_FLAG_AD_FAVOR_MY_RANK    (1u << 0)
#define GEX_FLAG_AD_FAVOR_MY_NBRHD   (1u << 1)
#define GEX_FLAG_AD_FAVOR_REMOTE     (1u << 2)

/* Team construction (gex_TM_Split, gex_TM_Create) and destruction. */
#define GEX_FLAG_TM_SCRATCH_SIZE_MIN (1u << 0)
#define GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED (1u << 1)
#define GEX_FLAG_TM_GLOBAL_SCRATCH   (1u << 2)
#define GEX_FLAG_TM_LOCAL_SCRATCH    (1u << 3)
#define GEX_FLAG_TM_SYMMETRIC_SCRATCH (1u << 4)
#define GEX_FLAG_TM_NO_SCRATCH       (1u << 5)
#define GEX_FLAG_SCRATCH_SEG_OFFSET  (1u << 6)
#define GEX_FLAG_GLOBALLY_QUIESCED   (1u << 13)

/* gex_Client_Init */
#define GEX_FLAG_USES_GASNET1        (1u << 0)
#define GEX_FLAG_DEFER_THREADS       (1u << 1)

/* Hints to gex_Segment_Create / gex_EP_Create about what will use the
 * memory or the endpoint (accepted; libgex has no accelerated paths). */
#define GEX_FLAG_HINT_ACCEL_AD       (1u << 0)
#define GEX_FLAG_HINT_ACCEL_COLL     (1u << 1)
#define GEX_FLAG_HINT_ACCEL_ALL      (GEX_FLAG_HINT_ACCEL_AD | GEX_FLAG_HINT_ACCEL_COLL)

/* AM handler registration flags (gex_AM_Entry_t.gex_flags) */
#define GEX_FLAG_AM_SHORT    (1u << 0)
#define GEX_FLAG_AM_MEDIUM   (1u << 1)
#define GEX_FLAG_AM_LONG     (1u << 2)
#define GEX_FLAG_AM_MEDLONG  (GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_LONG)
#define GEX_FLAG_AM_REQUEST  (1u << 3)
#define GEX_FLAG_AM_REPLY    (1u << 4)
#define GEX_FLAG_AM_REQREP   (GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_REPLY)

/* ---- endpoint capabilities ------------------------------------------- */
#define GEX_EP_CAPABILITY_RMA ((gex_EP_Capabilities_t)1u << 0)
#define GEX_EP_CAPABILITY_AM  ((gex_EP_Capabilities_t)1u << 1)
#define GEX_EP_CAPABILITY_VIS ((gex_EP_Capabilities_t)1u << 2)
#define GEX_EP_CAPABILITY_COLL ((gex_EP_Capabilities_t)1u << 3)
#define GEX_EP_CAPABILITY_AD  ((gex_EP_Capabilities_t)1u << 4)
#define GEX_EP_CAPABILITY_ALL ((gex_EP_Capabilities_t)0x1Fu)

/* ---- data types and operations (atomics, reductions) ----------------- */
#define GEX_DT_I32  ((gex_DT_t)1u << 0)
#define GEX_DT_U32  ((gex_DT_t)1u << 1)
#define GEX_DT_I64  ((gex_DT_t)1u << 2)
#define GEX_DT_U64  ((gex_DT_t)1u << 3)
#define GEX_DT_FLT  ((gex_DT_t)1u << 4)
#define GEX_DT_DBL  ((gex_DT_t)1u << 5)
#define GEX_DT_USER ((gex_DT_t)1u << 6)

/* Non-fetching ops occupy bits 0..11; each fetching op is its non-fetching
 * partner shifted left by GEXI_OP_FETCH_SHIFT (bits 15..26), so conversion
 * is one shift.  GET has no non-fetching form and USER/USER_NC are
 * reduction-only. */
#define GEXI_OP_FETCH_SHIFT 15
#define GEX_OP_AND   ((gex_OP_t)1u << 0)
#define GEX_OP_OR    ((gex_OP_t)1u << 1)
#define GEX_OP_XOR   ((gex_OP_t)1u << 2)
#define GEX_OP_ADD   ((gex_OP_t)1u << 3)
#define GEX_OP_SUB   ((gex_OP_t)1u << 4)
#define GEX_OP_MULT  ((gex_OP_t)1u << 5)
#define GEX_OP_MIN   ((gex_OP_t)1u << 6)
#define GEX_OP_MAX   ((gex_OP_t)1u << 7)
#define GEX_OP_INC   ((gex_OP_t)1u << 8)
#define GEX_OP_DEC   ((gex_OP_t)1u << 9)
#define GEX_OP_SET   ((gex_OP_t)1u << 10)
#define GEX_OP_CAS   ((gex_OP_t)1u << 11)
#define GEX_OP_FAND  (GEX_OP_AND << GEXI_OP_FETCH_SHIFT)
#define GEX_OP_FOR   (GEX_OP_OR << GEXI_OP_FETCH_SHIFT)
#define GEX_OP_FXOR  (GEX_OP_XOR << GEXI_OP_FETCH_SHIFT)
#define GEX_OP_FADD  (GEX_OP_ADD << GEXI_OP_FETCH_SHIFT)
#define GEX_OP_FSUB  (GEX_OP_SUB << GEXI_OP_FETCH_SHIFT)
#define GEX_OP_FMULT (GEX_OP_MULT << GEXI_OP_FETCH_SHIFT)
#define GEX_OP_FMIN  (GEX_OP_MIN << GEXI_OP_FETCH_SHIFT)
#define GEX_OP_FMAX  (GEX_OP_MAX << GEXI_OP_FETCH_SHIFT)
#define GEX_OP_FINC  (GEX_OP_INC << GEXI_OP_FETCH_SHIFT)
#define GEX_OP_FDEC  (GEX_OP_DEC << GEXI_OP_FETCH_SHIFT)
#define GEX_OP_SWAP  (GEX_OP_SET << GEXI_OP_FETCH_SHIFT)
#define GEX_OP_FCAS  (GEX_OP_CAS << GEXI_OP_FETCH_SHIFT)
#define GEX_OP_CSWAP GEX_OP_FCAS
#define GEX_OP_GET   ((gex_OP_t)1u << 27)
#define GEX_OP_USER    ((gex_OP_t)1u << 30)
#define GEX_OP_USER_NC ((gex_OP_t)1u << 31)
#define GEX_OP_TO_FETCHING(op)    ((gex_OP_t)((op) << GEXI_OP_FETCH_SHIFT))
#define GEX_OP_TO_NONFETCHING(op) ((gex_OP_t)((op) >> GEXI_OP_FETCH_SHIFT))

#endif /* GASNET_FWD_H */
