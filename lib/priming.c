#include "config.h"

#include "model/address-space.h"
#include "priming.h"

const char *
st_priming_mode_name (StPrimingMode mode)
{
  switch (mode)
    {
    case ST_PRIMING_SYNC: return "sync";
    case ST_PRIMING_DROP: return "drop";
    case ST_PRIMING_DEFER: return "defer";
    }
  return "?";
}

guint
st_priming_threads (guint threads)
{
  if (threads > 0)
    return threads;
  return CLAMP ((guint) g_get_num_processors (), 1, ST_PRIMING_MAX_THREADS);
}

void
st_priming_see (StModuleCache *modules, const StEvent *ev)
{
  StMap map;

  if (ev->kind != ST_EVENT_MAP)
    return;
  st_map_from_event (&map, ev);
  if (st_map_is_module (&map))
    st_module_cache_prime (modules, &map);
}
