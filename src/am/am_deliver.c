/* am/am_deliver.c -- running the handler of a received Active Message. */
#include "am/am.h"
#include "core/complete.h"
#include "core/hooks.h"

/* Parameter types and argument values for handler calls with M arguments. */
#define GEXI_AT0
#define GEXI_AT1 GEXI_AT0, gex_AM_Arg_t
#define GEXI_AT2 GEXI_AT1, gex_AM_Arg_t
#define GEXI_AT3 GEXI_AT2, gex_AM_Arg_t
#define GEXI_AT4 GEXI_AT3, gex_AM_Arg_t
#define GEXI_AT5 GEXI_AT4, gex_AM_Arg_t
#define GEXI_AT6 GEXI_AT5, gex_AM_Arg_t
#define GEXI_AT7 GEXI_AT6, gex_AM_Arg_t
#define GEXI_AT8 GEXI_AT7, gex_AM_Arg_t
#define GEXI_AT9 GEXI_AT8, gex_AM_Arg_t
#define GEXI_AT10 GEXI_AT9, gex_AM_Arg_t
#define GEXI_AT11 GEXI_AT10, gex_AM_Arg_t
#define GEXI_AT12 GEXI_AT11, gex_AM_Arg_t
#define GEXI_AT13 GEXI_AT12, gex_AM_Arg_t
#define GEXI_AT14 GEXI_AT13, gex_AM_Arg_t
#define GEXI_AT15 GEXI_AT14, gex_AM_Arg_t
#define GEXI_AT16 GEXI_AT15, gex_AM_Arg_t
#define GEXI_AV0
#define GEXI_AV1 GEXI_AV0, a[0]
#define GEXI_AV2 GEXI_AV1, a[1]
#define GEXI_AV3 GEXI_AV2, a[2]
#define GEXI_AV4 GEXI_AV3, a[3]
#define GEXI_AV5 GEXI_AV4, a[4]
#define GEXI_AV6 GEXI_AV5, a[5]
#define GEXI_AV7 GEXI_AV6, a[6]
#define GEXI_AV8 GEXI_AV7, a[7]
#define GEXI_AV9 GEXI_AV8, a[8]
#define GEXI_AV10 GEXI_AV9, a[9]
#define GEXI_AV11 GEXI_AV10, a[10]
#define GEXI_AV12 GEXI_AV11, a[11]
#define GEXI_AV13 GEXI_AV12, a[12]
#define GEXI_AV14 GEXI_AV13, a[13]
#define GEXI_AV15 GEXI_AV14, a[14]
#define GEXI_AV16 GEXI_AV15, a[15]
#define GEXI_ALL_COUNTS(X) \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)

static void call_short(gex_AM_Fn_t fn, gex_Token_t tok, unsigned n, const gex_AM_Arg_t *a) {
  switch (n) {
#define GEXI_CASE(M) \
  case M: ((void (*)(gex_Token_t GEXI_AT##M))fn)(tok GEXI_AV##M); break;
    GEXI_ALL_COUNTS(GEXI_CASE)
#undef GEXI_CASE
  }
}

static void call_medlong(gex_AM_Fn_t fn, gex_Token_t tok, void *buf, size_t nbytes, unsigned n,
                         const gex_AM_Arg_t *a) {
  switch (n) {
#define GEXI_CASE(M) \
  case M: ((void (*)(gex_Token_t, void *, size_t GEXI_AT##M))fn)(tok, buf, nbytes GEXI_AV##M); break;
    GEXI_ALL_COUNTS(GEXI_CASE)
#undef GEXI_CASE
  }
}

static const char *const category_name[] = {"Short", "Medium", "Long", "NOP"};

void gexi_am_deliver(const struct gexi_am_hdr *h, void *payload) {
  /* ThreadSanitizer is shown the order the message gives: what the sender
   * (and the registration of the handler) wrote before it, and what
   * earlier handlers wrote, on whichever thread of this process the
   * handler runs -- the program's, or the receive thread
   * (core/rcv_thread.c).  Nothing in other builds (core/complete.h). */
  gexi_am_sync_acquire();
  const gex_AM_Entry_t *e = &gexi_ctx.ep.handlers[h->handler];
  const char *kind = h->is_req ? "Request" : "Reply";
  if (!e->gex_fnptr)
    gexi_fatal("incoming AM %s %s from rank %u: handler index %u is not registered", kind,
               category_name[h->category], (unsigned)h->src, (unsigned)h->handler);
#if GEX_CHECKS
  static const gex_Flags_t cat_flag[] = {GEX_FLAG_AM_SHORT, GEX_FLAG_AM_MEDIUM, GEX_FLAG_AM_LONG};
  /* An entry registered with GEXI_FLAG_AM_ANY takes every category,
   * direction and argument count (core/hooks.h). */
  if (!(e->gex_flags & GEXI_FLAG_AM_ANY)) {
    if (!(e->gex_flags & cat_flag[h->category]) ||
        !(e->gex_flags & (h->is_req ? GEX_FLAG_AM_REQUEST : GEX_FLAG_AM_REPLY)))
      gexi_fatal("incoming AM %s %s from rank %u: handler %u (%s) was not registered for it",
                 kind, category_name[h->category], (unsigned)h->src, (unsigned)h->handler,
                 e->gex_name ? e->gex_name : "unnamed");
    if (e->gex_nargs != h->nargs)
      gexi_fatal("incoming AM %s %s from rank %u: handler %u (%s) takes %u arguments, sent %u",
                 kind, category_name[h->category], (unsigned)h->src, (unsigned)h->handler,
                 e->gex_name ? e->gex_name : "unnamed", e->gex_nargs, (unsigned)h->nargs);
  }
#endif
  struct gexi_Token tok = {h->src, h->is_req, h->category == GEXI_AM_LONG, 0, e};
  struct gexi_Token *outer = gexi_tls.cur_token;
  gexi_tls.cur_token = &tok;
  gexi_tls.handler_depth++;
  if (h->category == GEXI_AM_SHORT)
    call_short(e->gex_fnptr, &tok, h->nargs, h->args);
  else
    call_medlong(e->gex_fnptr, &tok, h->category == GEXI_AM_LONG ? (void *)(uintptr_t)h->dest : payload,
                 h->nbytes, h->nargs, h->args);
  gexi_tls.handler_depth--;
  gexi_am_sync_release();
  gexi_tls.cur_token = outer;
}

static const struct gexi_am_upcalls upcalls = {gexi_am_deliver, gexi_am_check_frame,
                                               gexi_am_check_handler};

void gexi_am_upcalls_register(void) { gexi_ctx.am_up = &upcalls; }
