/* gex/gex_tools_format.h -- libgex: text forms of GASNet-EX values for
 * diagnostics (gasnett_format_dt/op/ti, VIS descriptions).
 *
 * Included by gasnet_tools.h when <gasnetex.h> came first.  Everything is
 * inline and uses only gasnetex.h's types, so the tools libraries stay free
 * of libgex.
 *
 * gasnett_format_dt/op/ti(buf, value): writes "NAME|NAME|..." ("0" for no
 * bit, "0x..." for bits without a name) and returns the size the text needs,
 * terminating NUL included; with buf NULL it only returns that size.
 * The list formatters write at most their _bufsz() bytes.
 */
#ifndef GEX_TOOLS_FORMAT_H
#define GEX_TOOLS_FORMAT_H

#include <stdio.h>
#include <string.h>

GASNETT_BEGIN_EXTERNC

typedef struct {
  uint32_t bit;
  const char *name;
} gexti_flagname_t;

/* Appends the names of the bits of val (those in table, then the rest in
 * hex) to buf; returns the length of the full text plus its NUL. */
static inline size_t gexti_format_flags(char *buf, uint32_t val, const gexti_flagname_t *table,
                                        size_t entries) {
  size_t len = 0;
  uint32_t rest = val;
  char hex[16];
  if (buf) buf[0] = '\0';
  if (val == 0) {
    if (buf) strcpy(buf, "0");
    return 2;
  }
  for (size_t i = 0; i < entries; i++) {
    if (!(rest & table[i].bit)) continue;
    rest &= ~table[i].bit;
    if (buf) {
      if (len) strcpy(buf + len, "|");
      strcpy(buf + len + (len ? 1 : 0), table[i].name);
    }
    len += (len ? 1 : 0) + strlen(table[i].name);
  }
  if (rest) {
    snprintf(hex, sizeof hex, "0x%" PRIx32, rest);
    if (buf) {
      if (len) strcpy(buf + len, "|");
      strcpy(buf + len + (len ? 1 : 0), hex);
    }
    len += (len ? 1 : 0) + strlen(hex);
  }
  return len + 1;
}

#define GEXTI_FLAGNAME(x) { (uint32_t)(x), #x }

static inline size_t gasnett_format_dt(char *buf, gex_DT_t dt) {
  static const gexti_flagname_t names[] = {
    GEXTI_FLAGNAME(GEX_DT_I32), GEXTI_FLAGNAME(GEX_DT_U32), GEXTI_FLAGNAME(GEX_DT_I64),
    GEXTI_FLAGNAME(GEX_DT_U64), GEXTI_FLAGNAME(GEX_DT_FLT), GEXTI_FLAGNAME(GEX_DT_DBL),
    GEXTI_FLAGNAME(GEX_DT_USER)};
  return gexti_format_flags(buf, (uint32_t)dt, names, sizeof names / sizeof names[0]);
}

static inline size_t gasnett_format_op(char *buf, gex_OP_t op) {
  static const gexti_flagname_t names[] = {
    GEXTI_FLAGNAME(GEX_OP_AND),  GEXTI_FLAGNAME(GEX_OP_OR),    GEXTI_FLAGNAME(GEX_OP_XOR),
    GEXTI_FLAGNAME(GEX_OP_ADD),  GEXTI_FLAGNAME(GEX_OP_SUB),   GEXTI_FLAGNAME(GEX_OP_MULT),
    GEXTI_FLAGNAME(GEX_OP_MIN),  GEXTI_FLAGNAME(GEX_OP_MAX),   GEXTI_FLAGNAME(GEX_OP_INC),
    GEXTI_FLAGNAME(GEX_OP_DEC),  GEXTI_FLAGNAME(GEX_OP_SET),   GEXTI_FLAGNAME(GEX_OP_CAS),
    GEXTI_FLAGNAME(GEX_OP_FAND), GEXTI_FLAGNAME(GEX_OP_FOR),   GEXTI_FLAGNAME(GEX_OP_FXOR),
    GEXTI_FLAGNAME(GEX_OP_FADD), GEXTI_FLAGNAME(GEX_OP_FSUB),  GEXTI_FLAGNAME(GEX_OP_FMULT),
    GEXTI_FLAGNAME(GEX_OP_FMIN), GEXTI_FLAGNAME(GEX_OP_FMAX),  GEXTI_FLAGNAME(GEX_OP_FINC),
    GEXTI_FLAGNAME(GEX_OP_FDEC), GEXTI_FLAGNAME(GEX_OP_SWAP),  GEXTI_FLAGNAME(GEX_OP_FCAS),
    GEXTI_FLAGNAME(GEX_OP_GET),  GEXTI_FLAGNAME(GEX_OP_USER),  GEXTI_FLAGNAME(GEX_OP_USER_NC)};
  return gexti_format_flags(buf, (uint32_t)op, names, sizeof names / sizeof names[0]);
}

static inline size_t gasnett_format_ti(char *buf, gex_TI_t ti) {
  static const gexti_flagname_t names[] = {
    GEXTI_FLAGNAME(GEX_TI_SRCRANK), GEXTI_FLAGNAME(GEX_TI_EP), GEXTI_FLAGNAME(GEX_TI_ENTRY),
    GEXTI_FLAGNAME(GEX_TI_IS_REQ), GEXTI_FLAGNAME(GEX_TI_IS_LONG)};
  return gexti_format_flags(buf, (uint32_t)ti, names, sizeof names / sizeof names[0]);
}

/* VIS lists: each entry is at most "(0x" + 16 hex digits + "," + 20 digits
 * + ") " = 43 characters; 64 leaves room to spare. */
#define GEXTI_FORMAT_ENTRY_MAX 64

static inline size_t gasnett_format_memveclist_bufsz(size_t count) {
  return 32 + count * GEXTI_FORMAT_ENTRY_MAX;
}
static inline size_t gasnett_format_memveclist(char *buf, size_t count, const gex_Memvec_t *list) {
  size_t len = (size_t)sprintf(buf, "%zu entries: ", count);
  for (size_t i = 0; i < count; i++)
    len += (size_t)sprintf(buf + len, "(%p,%zu) ", list[i].gex_addr, list[i].gex_len);
  return len + 1;
}

static inline size_t gasnett_format_addrlist_bufsz(size_t count) {
  return 48 + count * GEXTI_FORMAT_ENTRY_MAX;
}
static inline size_t gasnett_format_addrlist(char *buf, size_t count, void *const *list,
                                             size_t len_each) {
  size_t len = (size_t)sprintf(buf, "%zu entries of %zu bytes: ", count, len_each);
  for (size_t i = 0; i < count; i++) len += (size_t)sprintf(buf + len, "%p ", list[i]);
  return len + 1;
}

static inline size_t gasnett_format_putsgets_bufsz(size_t stridelevels) {
  return 160 + 3 * (stridelevels + 1) * GEXTI_FORMAT_ENTRY_MAX;
}
/* A strided transfer: the team rank, the element size, and per stride
 * level the destination stride, source stride and count. */
static inline size_t gasnett_format_putsgets(char *buf, const void *unused, gex_TM_t tm,
                                             gex_Rank_t rank, void *dstaddr,
                                             const ptrdiff_t dststrides[], void *srcaddr,
                                             const ptrdiff_t srcstrides[], size_t elemsz,
                                             const size_t count[], size_t stridelevels) {
  size_t len;
  (void)unused;
  len = (size_t)sprintf(buf, "tm=%p rank=%u dst=%p src=%p elemsz=%zu levels=%zu", (void *)tm,
                        (unsigned)rank, dstaddr, srcaddr, elemsz, stridelevels);
  for (size_t i = 0; i < stridelevels; i++)
    len += (size_t)sprintf(buf + len, " [%zu: dst %td src %td count %zu]", i, dststrides[i],
                           srcstrides[i], count[i]);
  return len + 1;
}

GASNETT_END_EXTERNC

#endif /* GEX_TOOLS_FORMAT_H */
