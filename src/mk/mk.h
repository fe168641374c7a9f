/* mk/mk.h -- memory kinds, as the core's segments use them (mk/mk.c;
 * docs/memory-kinds.md). */
#ifndef GEXI_MK_MK_H
#define GEXI_MK_MK_H

#include <gasnetex.h>
#include <stdbool.h>

#include "mk/device.h"

/* 1 iff 'kind' is GEX_MK_HOST or a live host-class kind of this client. */
int gexi_mk_is_host(gex_MK_t kind);
/* The device of a live device-class kind of this client, or NULL. */
struct gexi_device *gexi_mk_device(gex_MK_t kind);
/* A segment of 'kind' was created (+1) or destroyed (-1). */
void gexi_mk_segment_count(gex_MK_t kind, int delta);

/* What this process knows of a neighbour's device segment at one endpoint
 * index: its owner's IPC description (objects/segment_bind.c, at
 * publication), opened at its first use (rma/rma_device.c, under
 * teams_lock). */
struct gexi_dev_peer {
  struct gexi_dev_ipc h;
  bool has_h;       /* its owner described it */
  bool tried;       /* an open was tried: 'opened' is its byte 0 here, or 0 (it failed) */
  uintptr_t opened;
  struct gexi_device *by; /* the device of ours that opened it (and copies through it) */
};

#endif
