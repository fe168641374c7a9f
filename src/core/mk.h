/* core/mk.h -- memory kinds, as gex_Segment_Create uses them (core/mk.c). */
#ifndef GEXI_CORE_MK_H
#define GEXI_CORE_MK_H

#include <gasnetex.h>

/* 1 iff 'kind' is GEX_MK_HOST or a live host-class kind of this client. */
int gexi_mk_is_host(gex_MK_t kind);
/* A segment of 'kind' was created (+1) or destroyed (-1). */
void gexi_mk_segment_count(gex_MK_t kind, int delta);

#endif
