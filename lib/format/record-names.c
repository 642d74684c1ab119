#include "config.h"

#include <glib.h>
#include <string.h>

#include "format/capture-types.h"
#include "format/perf-types.h"
#include "format/record-names.h"

static const char *
capture_name (unsigned type)
{
  switch (type)
    {
    case ST_CAPTURE_TIMESTAMP: return "TIMESTAMP";
    case ST_CAPTURE_SAMPLE: return "SAMPLE";
    case ST_CAPTURE_MAP: return "MAP";
    case ST_CAPTURE_PROCESS: return "PROCESS";
    case ST_CAPTURE_FORK: return "FORK";
    case ST_CAPTURE_EXIT: return "EXIT";
    case ST_CAPTURE_JITMAP: return "JITMAP";
    case ST_CAPTURE_CTRDEF: return "CTRDEF";
    case ST_CAPTURE_CTRSET: return "CTRSET";
    case ST_CAPTURE_MARK: return "MARK";
    case ST_CAPTURE_METADATA: return "METADATA";
    case ST_CAPTURE_LOG: return "LOG";
    case ST_CAPTURE_FILE_CHUNK: return "FILE_CHUNK";
    case ST_CAPTURE_ALLOCATION: return "ALLOCATION";
    case ST_CAPTURE_OVERLAY: return "OVERLAY";
    case ST_CAPTURE_TRACE: return "TRACE";
    case ST_CAPTURE_DBUS: return "DBUS_MESSAGE";
    case ST_CAPTURE_STACK_USER: return "STACK_USER";
    }
  return NULL;
}

static const char *
perf_name (uint32_t type)
{
  static const char *const kernel[] = {
    NULL, "MMAP", "LOST", "COMM", "EXIT", "THROTTLE", "UNTHROTTLE", "FORK",
    "READ", "SAMPLE", "MMAP2", "AUX", "ITRACE_START", "LOST_SAMPLES",
    "SWITCH", "SWITCH_CPU_WIDE", "NAMESPACES", "KSYMBOL", "BPF_EVENT",
    "CGROUP", "TEXT_POKE", "AUX_OUTPUT_HW_ID",
  };
  static const char *const user[] = {
    "HEADER_ATTR", "HEADER_EVENT_TYPE", "HEADER_TRACING_DATA",
    "HEADER_BUILD_ID", "FINISHED_ROUND", "ID_INDEX", "AUXTRACE_INFO",
    "AUXTRACE", "AUXTRACE_ERROR", "THREAD_MAP", "CPU_MAP", "STAT_CONFIG",
    "STAT", "STAT_ROUND", "EVENT_UPDATE", "TIME_CONV", "HEADER_FEATURE",
    "COMPRESSED", "FINISHED_INIT", "COMPRESSED2", "BPF_METADATA",
    "SCHEDSTAT_CPU", "SCHEDSTAT_DOMAIN",
  };
  /* A name for every user type perf-types.h knows.  */
  G_STATIC_ASSERT (G_N_ELEMENTS (user)
                   == ST_PERF_RECORD_USER_LAST - ST_PERF_RECORD_HEADER_ATTR + 1);

  if (type < G_N_ELEMENTS (kernel))
    return kernel[type];
  if (type >= ST_PERF_RECORD_HEADER_ATTR
      && type - ST_PERF_RECORD_HEADER_ATTR < G_N_ELEMENTS (user))
    return user[type - ST_PERF_RECORD_HEADER_ATTR];
  return NULL;
}

const char *
st_record_type_name (const StEvent *ev)
{
  const char *name = NULL;
  uint32_t type = 0;
  char *unknown;

  if (ev->raw == NULL)
    return st_event_kind_name (ev->kind);
  if (ev->source == ST_FORMAT_SYSPROF
      && ev->raw_len >= sizeof (StCaptureFrame))
    {
      type = ((const StCaptureFrame *) ev->raw)->type;
      name = capture_name (type);
    }
  else if (ev->source == ST_FORMAT_PERF && ev->raw_len >= 4)
    {
      memcpy (&type, ev->raw, 4);
      name = perf_name (type);
    }
  if (name != NULL)
    return name;
  unknown = g_strdup_printf ("type %u", type);
  name = g_intern_string (unknown);
  g_free (unknown);
  return name;
}
