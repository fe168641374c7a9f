// Only gasnet_fwd.h, as UPC++'s public team_fwd.hpp includes it: the
// forward types a client's own headers name before gasnetex.h is seen.
#include <gasnet_fwd.h>

struct team_like {
  gex_EP_Location_t where;
  gex_Rank_t rank;
  gex_EP_Index_t index;
  gex_Event_t event;
  gex_Flags_t flags;
  gex_DT_t dt;
  gex_OP_t op;
};

int fwd_only_use(team_like *t) {
  t->where.gex_rank = t->rank;
  t->where.gex_ep_index = t->index;
  t->event = GEX_EVENT_INVALID;
  t->dt = GEX_DT_U64;
  t->op = GEX_OP_ADD;
  return (int)t->where.gex_rank;
}
