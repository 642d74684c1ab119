#include "config.h"

#include "model/event.h"

const char *
st_event_kind_name (StEventKind kind)
{
  switch (kind)
    {
    case ST_EVENT_OTHER: return "other";
    case ST_EVENT_SAMPLE: return "sample";
    case ST_EVENT_STACK_USER: return "stack-user";
    case ST_EVENT_MAP: return "map";
    case ST_EVENT_PROCESS: return "process";
    case ST_EVENT_FORK: return "fork";
    case ST_EVENT_EXIT: return "exit";
    case ST_EVENT_LOST: return "lost";
    }
  return "unknown";
}

const char *
st_format_name (StFormat format)
{
  switch (format)
    {
    case ST_FORMAT_AUTO: return "auto";
    case ST_FORMAT_SYSPROF: return "sysprof";
    case ST_FORMAT_PERF: return "perf";
    }
  return "unknown";
}
