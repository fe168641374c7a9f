/* core/event.h -- the object behind a gex_Event_t. */
#ifndef GEXI_CORE_EVENT_H
#define GEXI_CORE_EVENT_H

#include "core/context.h"

enum { GEXI_EV_BARRIER = 1 };

struct gexi_Event {
  int kind;
  uint64_t target; /* BARRIER: complete when every local rank arrived this often */
};

gex_Event_t gexi_event_new_barrier(uint64_t target);

#endif
