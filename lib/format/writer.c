/* Dispatch to the output format's StWriterOps.  */
#include "config.h"

#include <string.h>

#include "format/capture-output.h"
#include "format/capture-types.h"
#include "util/domain.h"
#include "format/output.h"
#include "format/perf-from-capture.h"
#include "format/perf-output.h"
#include "format/perf-reader.h"
#include "format/writer.h"

struct StWriter
{
  StOutput *output;
  const StWriterOps *ops;
  void *impl;
};

StWriter *
st_writer_new (int fd, StFormat format, StReader *reader, gboolean unwinding,
               GError **error)
{
  StWriter *w;
  StPerfReader *perf_in;

  if (format != ST_FORMAT_SYSPROF && format != ST_FORMAT_PERF)
    {
      g_set_error (error, ST_ERROR, ST_ERROR_UNSUPPORTED,
                   "output format '%s' is not supported; use sysprof or perf",
                   st_format_name (format));
      return NULL;
    }
  w = g_new0 (StWriter, 1);
  w->output = st_output_new (fd);
  perf_in = reader != NULL ? st_reader_perf (reader) : NULL;
  if (format == ST_FORMAT_PERF && perf_in != NULL)
    {
      w->ops = &st_perf_output_ops;
      w->impl = st_perf_output_new (w->output, perf_in, unwinding);
    }
  else if (format == ST_FORMAT_PERF)
    {
      /* A capture (or no input at all): converted.  */
      w->ops = &st_perf_from_capture_ops;
      w->impl = st_perf_from_capture_new (w->output, unwinding);
    }
  else
    {
      w->ops = &st_capture_output_ops;
      w->impl = st_capture_output_new (w->output, reader, unwinding);
    }
  return w;
}

void
st_writer_free (StWriter *w)
{
  if (w == NULL)
    return;
  w->ops->free (w->impl);
  st_output_free (w->output);
  g_free (w);
}

gboolean
st_writer_event (StWriter *w, const StEvent *ev)
{
  return w->ops->event (w->impl, ev);
}

void
st_writer_capture_frames (StWriter *w, const uint8_t *frames, size_t len)
{
  size_t at = 0;

  while (at + sizeof (StCaptureFrame) <= len)
    {
      StCaptureFrame f;
      StEvent ev;

      memcpy (&f, frames + at, sizeof f);
      memset (&ev, 0, sizeof ev);
      ev.kind = ST_EVENT_OTHER;
      ev.source = ST_FORMAT_SYSPROF;
      ev.pid = f.pid;
      ev.tid = f.pid;
      ev.cpu = f.cpu;
      ev.time = f.time;
      ev.raw = frames + at;
      ev.raw_len = f.len;
      st_writer_event (w, &ev);
      at += f.len;
    }
}

void
st_writer_unwound (StWriter *w, const StEvent *ev, const uint64_t *user_ips,
                   uint32_t n_user_ips)
{
  w->ops->unwound (w->impl, ev, user_ips, n_user_ips);
}

gboolean
st_writer_has_counters (const StWriter *w)
{
  return w->ops->counters != NULL;
}

gboolean
st_writer_counters (StWriter *w, int64_t time, const StProgressCounters *c)
{
  if (w->ops->counters == NULL)
    return FALSE;
  w->ops->counters (w->impl, time, c);
  return TRUE;
}

void
st_writer_flush (StWriter *w)
{
  st_output_flush (w->output, NULL);
}

gboolean
st_writer_failed (const StWriter *w)
{
  return st_output_failed (w->output);
}

gboolean
st_writer_finish (StWriter *w, GError **error)
{
  return w->ops->finish (w->impl, error);
}
