/* transport/ofi/ofi_check.c -- validation of a received data message before
 * any of it is used (see gexi_ofi_check in ofi.h).
 *
 * The message is already authenticated (its source is admitted and its
 * token matched, ofi_auth.c); what is checked here is that its fields are
 * consistent with each other and with the bytes that arrived, so that no
 * field can make a handler run with the wrong signature or make a copy
 * leave its buffer.  'w' is a copy of the first bytes of the message (all
 * of them when it is shorter than struct ofi_wire, the rest zero).
 */
#include "transport/ofi/ofi.h"

const char *gexi_ofi_check(const struct ofi_wire *w, size_t len) {
  if (GEXI_UNLIKELY(len & 7)) return "length (not a multiple of 8)";
  if (w->type == OFI_WIRE_CREDIT)
    return len == OFI_WIRE_HDR_LEN(0) ? NULL : "length (of a credit message)";
  if (GEXI_UNLIKELY(w->type != OFI_WIRE_AM && w->type != OFI_WIRE_LONG_PACKED)) return "type";
  if (GEXI_UNLIKELY(len < OFI_WIRE_HDR_LEN(0))) return "length (shorter than a header)";
  const struct gexi_am_hdr *h = &w->h;
  if (GEXI_UNLIKELY(h->nargs > GEXI_AM_MAX_ARGS)) return "nargs";
  size_t hl = OFI_WIRE_HDR_LEN(h->nargs);
  if (GEXI_UNLIKELY(len < hl)) return "length (shorter than its arguments)";
  const char *bad = gexi_up_check_frame(h);
  if (GEXI_UNLIKELY(bad)) return bad;
  if (GEXI_UNLIKELY(h->category == GEXI_AM_NOP)) return "category (NOP)";
  /* Which messages carry a payload: Medium, and Long up to OFI_LONG_PACK_MAX
   * (type LONG_PACKED); a larger Long's payload was written by RMA into
   * the segment of its endpoint (am_wire.h), and a placed one's before. */
  int packed = h->category == GEXI_AM_LONG && !(h->ep_index & GEXI_AM_EP_PLACED) &&
               h->nbytes <= OFI_LONG_PACK_MAX;
  if (GEXI_UNLIKELY((w->type == OFI_WIRE_LONG_PACKED) != packed)) return "type (for this Long)";
  size_t body = (h->category == GEXI_AM_MEDIUM || packed) ? h->nbytes : 0;
  if (GEXI_UNLIKELY(len != OFI_ROUND8(hl + body))) return "nbytes (not the bytes received)";
  return gexi_up_check_handler(h);
}
