/* transport/ofi/ofi_atomic.c -- remote atomics performed by the provider
 * (fi_atomic, fi_fetch_atomic, fi_compare_atomic), for atomic domains that
 * chose GEXI_AD_IMPL_NET (atomic/ad.c, docs/atomics.md).
 *
 * Mapping of an opcode to one provider operation:
 *   ADD/FADD  SUM        SUB/FSUB  SUM of the negated operand (exact: two's
 *   MULT      PROD                 complement for integers, sign flip for
 *   MIN, MAX  MIN, MAX             floating point, where x-y is x+(-y))
 *   AND/OR/XOR  BAND/BOR/BXOR      INC/DEC   SUM of +1 / -1 of the type
 *   SET       ATOMIC_WRITE         SWAP      fetching ATOMIC_WRITE
 *   GET       fetching ATOMIC_READ CAS/FCAS  compare CSWAP
 * Non-fetching operations are fi_atomic with FI_DELIVERY_COMPLETE when the
 * provider offers it (so completion means "performed at the target", as for
 * puts); otherwise, and for CAS, they are the fetching form into a scratch
 * word, whose completion implies the operation was performed.  The
 * validity check (gexi_ofi_atomic_valid) asks the provider about exactly
 * the call each opcode will use.
 *
 * Buffers: operands (and the compare value) travel in a pool buffer
 * (registered when the provider needs FI_MR_LOCAL), returned at completion;
 * fetched values land directly in the client's result_p (registered for the
 * operation under FI_MR_LOCAL).  Completion uses the contexts of ofi_rma.c:
 * NB: the op is the event; NBI: the thread's (or access region's) tracker,
 * category PUT for SET, GET for GET, RMW for the rest.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/op_names.h"
#include "transport/ofi/ofi.h"

void *gexi_ofi_pool_get(int what);

enum { K_ATOMIC = 0, K_FETCH = 1, K_COMPARE = 2 };
enum { OPND_AS_IS, OPND_NEG, OPND_ONE, OPND_MINUS_ONE };

struct amap {
  int kind;
  enum fi_op fop;
  int opnd;
};

static const char *const fop_names[] = {
    [FI_MIN] = "FI_MIN",   [FI_MAX] = "FI_MAX",   [FI_SUM] = "FI_SUM",
    [FI_PROD] = "FI_PROD", [FI_BOR] = "FI_BOR",   [FI_BAND] = "FI_BAND",
    [FI_BXOR] = "FI_BXOR", [FI_ATOMIC_WRITE] = "FI_ATOMIC_WRITE",
    [FI_ATOMIC_READ] = "FI_ATOMIC_READ", [FI_CSWAP] = "FI_CSWAP"};

static int nonfetch_ok(void) {
  static _Atomic int cached = -1;
  int v = atomic_load_explicit(&cached, memory_order_relaxed);
  if (v < 0) {
    v = gexi_ctx.env.ofi_atomic_nonfetch;
    atomic_store_explicit(&cached, v, memory_order_relaxed);
  }
  return v;
}

/* The provider operation of one opcode (0 if the opcode has none). */
static int map_op(gex_OP_t op, struct amap *m) {
  const int fetch = (op & GEXI_FETCHING_OPS) != 0;
  gex_OP_t base = (op & GEXI_OP_FETCHING_FORMS) ? GEX_OP_TO_NONFETCHING(op) : op;
  if (op == GEX_OP_SWAP) base = GEX_OP_SET;
  m->kind = fetch ? K_FETCH : K_ATOMIC;
  m->opnd = OPND_AS_IS;
  switch (base) {
    case GEX_OP_ADD: m->fop = FI_SUM; break;
    case GEX_OP_SUB: m->fop = FI_SUM; m->opnd = OPND_NEG; break;
    case GEX_OP_INC: m->fop = FI_SUM; m->opnd = OPND_ONE; break;
    case GEX_OP_DEC: m->fop = FI_SUM; m->opnd = OPND_MINUS_ONE; break;
    case GEX_OP_MULT: m->fop = FI_PROD; break;
    case GEX_OP_MIN: m->fop = FI_MIN; break;
    case GEX_OP_MAX: m->fop = FI_MAX; break;
    case GEX_OP_AND: m->fop = FI_BAND; break;
    case GEX_OP_OR: m->fop = FI_BOR; break;
    case GEX_OP_XOR: m->fop = FI_BXOR; break;
    case GEX_OP_SET: m->fop = FI_ATOMIC_WRITE; break;
    case GEX_OP_GET: m->fop = FI_ATOMIC_READ; m->kind = K_FETCH; break;
    case GEX_OP_CAS: m->fop = FI_CSWAP; m->kind = K_COMPARE; break;
    default: return 0;
  }
  if (op == GEX_OP_FCAS) m->kind = K_COMPARE;
  /* Non-fetching opcodes use the fetching form (into a scratch word): its
   * completion means "performed at the target" on every provider.  fi_atomic
   * with FI_DELIVERY_COMPLETE would do too, but libfabric 1.17's shm
   * provider corrupted targets that way (SET stored garbage); it is used only
   * under GEX_OFI_ATOMIC_NONFETCH=1 and when delivery-complete is offered. */
  if (m->kind == K_ATOMIC && !(gexi_ctx.ofi->write_flags && nonfetch_ok())) m->kind = K_FETCH;
  return 1;
}

static enum fi_datatype map_dt(gex_DT_t dt) {
  switch (dt) {
    case GEX_DT_I32: return FI_INT32;
    case GEX_DT_U32: return FI_UINT32;
    case GEX_DT_I64: return FI_INT64;
    case GEX_DT_U64: return FI_UINT64;
    case GEX_DT_FLT: return FI_FLOAT;
    default: return FI_DOUBLE;
  }
}

static size_t dt_size(gex_DT_t dt) {
  return (dt & (GEX_DT_I64 | GEX_DT_U64 | GEX_DT_DBL)) ? 8 : 4;
}

/* GEX_OFI_ATOMIC_DENY (testing, docs/environment.md): comma-separated
 * opcodes, optionally "DT:" prefixed (e.g. "FMULT,FLT:MULT" or
 * "GEX_OP_FMULT"), that are treated as unsupported by the provider. */
static int denied(gex_DT_t dt, gex_OP_t op) {
  const char *env = gexi_ctx.env.ofi_atomic_deny;
  if (!env) return 0;
  const char *opn = gexi_op_name(op), *dtn = gexi_dt_name(dt);
  if (!opn || !dtn) return 0;
  opn += 7; /* "GEX_OP_" */
  dtn += 7; /* "GEX_DT_" */
  char buf[256];
  snprintf(buf, sizeof buf, "%s", env);
  for (char *save = NULL, *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
    char *colon = strchr(t, ':');
    if (colon) {
      *colon = 0;
      const char *d = strncmp(t, "GEX_DT_", 7) == 0 ? t + 7 : t;
      if (strcmp(d, dtn) != 0) continue;
      t = colon + 1;
    }
    if (strncmp(t, "GEX_OP_", 7) == 0) t += 7;
    if (strcmp(t, opn) == 0) return 1;
  }
  return 0;
}

int gexi_ofi_atomic_valid(gex_DT_t dt, gex_OP_t ops) {
  struct gexi_ofi *o = gexi_ctx.ofi;
  if (!o || !o->atomic_caps) return 0;
  /* udp;ofi_rxd (libfabric 1.17) accepts every atomic but crashes (SIGSEGV
   * in fi_cq_read) once a few are in flight: never native. */
  if (strstr(o->prov_name, "ofi_rxd")) return 0;
  const enum fi_datatype fdt = map_dt(dt);
  for (int b = 0; b < 32; b++) {
    const gex_OP_t op = (gex_OP_t)1u << b;
    if (!(ops & op)) continue;
    struct amap m;
    if (!map_op(op, &m) || denied(dt, op)) return 0;
    /* Floating-point CAS compares values as C does (-0.0 == +0.0, NaN
     * never equal); libfabric's software providers compare bit patterns
     * (observed: tcp;ofi_rxm left -0.0 when comparing with +0.0).  Not
     * native, whatever fi_compare_atomicvalid says. */
    if (m.kind == K_COMPARE && (dt & (GEX_DT_FLT | GEX_DT_DBL))) return 0;
    size_t count = 0;
    int rc;
    switch (m.kind) {
      case K_ATOMIC: rc = fi_atomicvalid(o->ep, fdt, m.fop, &count); break;
      case K_FETCH: rc = fi_fetch_atomicvalid(o->ep, fdt, m.fop, &count); break;
      default: rc = fi_compare_atomicvalid(o->ep, fdt, m.fop, &count); break;
    }
    if (rc || count < 1) return 0;
  }
  return 1;
}

/* Policy of GEX_AD_NATIVE=auto: only NICs that perform atomics themselves
 * (HPE Slingshot 'cxi').  Utility layers (ofi_rxm, ofi_rxd) and the tcp,
 * udp, sockets, shm, psm* providers emulate them in the target's progress,
 * where the AM path's CPU atomic is at least as fast. */
static int hw_atomics(const char *p) { return strncmp(p, "cxi", 3) == 0 && !strstr(p, ";ofi_"); }

int gexi_ofi_atomic_in_hw(void) { return hw_atomics(gexi_ofi_provider()); }

int gexi_ofi_atomic_wanted(const char *prov_name) {
  if (gexi_ctx.env.ad_force_am) return 0;
  if (gexi_ctx.env.ad_native < 0) return hw_atomics(prov_name); /* auto */
  return gexi_ctx.env.ad_native;
}

const char *gexi_ofi_provider(void) {
  return gexi_ctx.ofi && gexi_ctx.ofi->prov_name ? gexi_ctx.ofi->prov_name : "";
}

/* The operand's bits as the provider must see them. */
static uint64_t operand_bits(gex_DT_t dt, int how, uint64_t v) {
  const int is8 = dt_size(dt) == 8;
  switch (how) {
    case OPND_NEG:
      if (dt == GEX_DT_FLT) return v ^ 0x80000000u;
      if (dt == GEX_DT_DBL) return v ^ 0x8000000000000000u;
      v = 0 - v;
      break;
    case OPND_ONE:
      if (dt == GEX_DT_FLT) return 0x3F800000u;         /* 1.0f */
      if (dt == GEX_DT_DBL) return 0x3FF0000000000000u; /* 1.0 */
      v = 1;
      break;
    case OPND_MINUS_ONE:
      if (dt == GEX_DT_FLT) return 0xBF800000u;         /* -1.0f */
      if (dt == GEX_DT_DBL) return 0xBFF0000000000000u; /* -1.0 */
      v = ~(uint64_t)0;
      break;
    default: break;
  }
  return is8 ? v : (uint64_t)(uint32_t)v;
}

static void put_word(void *p, gex_DT_t dt, uint64_t v) {
  if (dt_size(dt) == 8) {
    memcpy(p, &v, 8);
  } else {
    const uint32_t w = (uint32_t)v;
    memcpy(p, &w, 4);
  }
}

static GEXI_NORETURN void atomic_failed(const char *fn, const char *call, gex_Rank_t j,
                                        gex_DT_t dt, gex_OP_t op, enum fi_op fop, ssize_t rc) {
  gexi_fatal("%s: %s (%s) failed on provider %s for %s %s (target jobrank %u): %s", fn, call,
             fop_names[fop], gexi_ofi_provider(), gexi_dt_name(dt), gexi_op_name(op),
             (unsigned)j, gexi_ofi_strerror(rc));
}

gex_Event_t gexi_ofi_atomic(const char *fn, gex_Rank_t j, gex_DT_t dt, gex_OP_t op, void *addr,
                            uint64_t operand1, uint64_t operand2, void *result_p,
                            gex_Flags_t flags, int mode) {
  /* ACQ/REL: see docs/atomics.md.  IMMEDIATE: refused only when no bounce
   * buffer is free (which would mean waiting for completions). */
  struct gexi_ofi *o = gexi_ctx.ofi;
  struct amap m;
  if (!map_op(op, &m)) gexi_fatal("%s: %s has no provider operation", fn, gexi_op_name(op));
  const size_t sz = dt_size(dt);
  const enum fi_datatype fdt = map_dt(dt);

  /* Operand at 0, compare value at 8, scratch result at 16. */
  uint64_t *buf = gexi_ofi_pool_get((flags & GEX_FLAG_IMMEDIATE) ? -1 : GEXI_POLL_ALL);
  if (!buf) return GEX_EVENT_NO_OP;
  void *pdesc = o->pool_desc;
  if (m.kind == K_COMPARE) {
    put_word(buf, dt, operand2); /* the value swapped in */
    put_word(buf + 1, dt, operand1); /* the value compared */
  } else {
    put_word(buf, dt, operand_bits(dt, m.opnd, operand1));
  }

  struct ofi_op *c;
  if (mode == GEXI_MODE_NBI)
    c = gexi_ofi_nbi_op(op == GEX_OP_SET ? OFI_NBI_PUT : op == GEX_OP_GET ? OFI_NBI_GET
                                                                          : OFI_NBI_RMW);
  else
    c = gexi_ofi_op_new(OFI_OP_EVENT);
  c->bounce = buf;
  c->peer = j;

  void *res = buf + 2, *rdesc = pdesc;
  if ((op & GEXI_FETCHING_OPS) && result_p) {
    struct fid_mr *tmp = NULL;
    res = result_p;
    rdesc = gexi_ofi_local_desc(result_p, sz, FI_READ, &tmp);
    c->tmp_mr = tmp;
  }

  struct fi_ioc ioc = {buf, 1};
  struct fi_rma_ioc rioc = {gexi_ofi_raddr(j, addr), 1, o->peers[j].key};
  struct fi_msg_atomic msg = {.msg_iov = &ioc, .desc = &pdesc, .iov_count = 1, .addr = j,
                              .rma_iov = &rioc, .rma_iov_count = 1, .datatype = fdt,
                              .op = m.fop, .context = &c->fctx};
  struct fi_ioc rioc_res = {res, 1};
  struct fi_ioc cmp = {buf + 1, 1};
  void *cdesc = pdesc;
  const char *call;
  ssize_t rc;
  for (;;) {
    switch (m.kind) {
      case K_ATOMIC:
        call = "fi_atomicmsg";
        rc = fi_atomicmsg(o->ep, &msg, FI_COMPLETION | o->write_flags);
        break;
      case K_FETCH:
        call = "fi_fetch_atomicmsg";
        rc = fi_fetch_atomicmsg(o->ep, &msg, &rioc_res, &rdesc, 1, FI_COMPLETION);
        break;
      default:
        call = "fi_compare_atomicmsg";
        rc = fi_compare_atomicmsg(o->ep, &msg, &cmp, &cdesc, 1, &rioc_res, &rdesc, 1,
                                  FI_COMPLETION);
        break;
    }
    if (rc != -FI_EAGAIN) break;
    gexi_ofi_progress_stalled(GEXI_POLL_ALL);
  }
  if (rc) atomic_failed(fn, call, j, dt, op, m.fop, rc);
  return mode == GEXI_MODE_NBI ? GEX_EVENT_INVALID : (gex_Event_t)(void *)c;
}
