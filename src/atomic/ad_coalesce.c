/* atomic/ad_coalesce.c -- NBI atomics on the Active-Message path travel as
 * records of coalesced batches (am/am_coalesce.c) rather than one Short
 * Request each (atomic/ad_am.c).  The target performs a record with the CPU
 * atomics of the one-message path (gexi_ad_cpu_apply); a fetching record
 * sends its value back with the batch's answer.
 */
#include <string.h>

#include "am/am_coalesce.h"
#include "atomic/ad.h"
#include "atomic/ad_am.h"

/* One operation's record body. */
struct rec {
  uint64_t addr; /* in the target's address space */
  uint64_t opnd1, opnd2;
  uint64_t result; /* initiator's result pointer; 0: nothing to send back */
  uint32_t op;     /* gex_OP_t, one bit */
  uint32_t dtord;  /* gex_DT_t | REC_ACQ | REC_REL */
};
#define REC_ACQ (1u << 8)
#define REC_REL (1u << 9)

static uint32_t dt_size(gex_DT_t dt) {
  return (dt & (GEX_DT_I64 | GEX_DT_U64 | GEX_DT_DBL)) ? 8 : 4;
}

gex_Event_t gexi_ad_co_op(gex_Rank_t j, int cat, gex_DT_t dt, void *result_p, void *addr,
                          gex_OP_t op, uint64_t operand1, uint64_t operand2, gex_Flags_t flags) {
  const uint64_t res = (op & GEXI_FETCHING_OPS) ? (uintptr_t)result_p : 0;
  void *body = gexi_co_append(j, GEXI_CO_ATOMIC, cat, sizeof(struct rec), res != 0, flags);
  if (!body) return GEX_EVENT_NO_OP; /* IMMEDIATE refusal */
  const struct rec r = {(uintptr_t)addr, operand1, operand2, res, (uint32_t)op,
                        (uint32_t)dt | ((flags & GEX_FLAG_AD_ACQ) ? REC_ACQ : 0) |
                            ((flags & GEX_FLAG_AD_REL) ? REC_REL : 0)};
  memcpy(body, &r, sizeof r);
  return GEX_EVENT_INVALID;
}

static int one_bit(uint32_t v) { return v && !(v & (v - 1)); }

static const char *check(const void *body, uint32_t len, int cat, int *fetch) {
  struct rec r;
  if (len != sizeof r) return "bad atomic record length";
  memcpy(&r, body, sizeof r);
  const gex_DT_t dt = (gex_DT_t)(r.dtord & 0xFF);
  const gex_OP_t op = (gex_OP_t)r.op;
  if (r.dtord & ~(0xFFu | REC_ACQ | REC_REL)) return "unknown ordering bits";
  if (!one_bit(dt) || !(dt & GEXI_AD_ALL_DTS)) return "bad data type";
  if (!one_bit(op) || !(op & GEXI_AD_ALL_OPS)) return "bad opcode";
  if ((op & GEXI_AD_BITWISE_OPS) && !(dt & GEXI_AD_INT_DTS)) return "bit-wise opcode on a float";
  if (r.result && !(op & GEXI_FETCHING_OPS)) return "result for a non-fetching opcode";
  if (cat != gexi_ad_op_category(op)) return "wrong category for the opcode";
  const uint32_t size = dt_size(dt);
  if ((r.addr & (size - 1)) || !gexi_co_in_segment(r.addr, size))
    return "atomic target outside this process's bound segment";
  *fetch = r.result != 0;
  return NULL;
}

static int apply(const void *body, uint32_t len, struct gexi_co_fetched *f) {
  (void)len;
  struct rec r;
  memcpy(&r, body, sizeof r);
  const gex_DT_t dt = (gex_DT_t)(r.dtord & 0xFF);
  const gex_Flags_t ord =
      ((r.dtord & REC_ACQ) ? GEX_FLAG_AD_ACQ : 0) | ((r.dtord & REC_REL) ? GEX_FLAG_AD_REL : 0);
  const uint64_t old =
      gexi_ad_cpu_apply(dt, (void *)(uintptr_t)r.addr, (gex_OP_t)r.op, r.opnd1, r.opnd2, ord);
  if (!r.result) return 0;
  *f = (struct gexi_co_fetched){r.result, old, dt_size(dt), 0};
  return 1;
}

static const struct gexi_co_kind atomic_kind = {sizeof(struct rec), check, apply};

void gexi_ad_co_init(void) { gexi_co_register(GEXI_CO_ATOMIC, &atomic_kind); }
