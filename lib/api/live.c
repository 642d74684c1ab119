/* The live level of the public API (include/stacktrace-1/live.h): thin
   owners of lib/live's ring source, /proc walk, perf events and capture
   pacer, their GErrors turned into results and messages.  */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/api-private.h"
#include "format/perf-types.h"
#include "format/perf-writer.h"
#include "live/capture-pacer.h"
#include "live/perf-events.h"
#include "live/proc-scan.h"
#include "live/ring-source.h"
#include "util/domain.h"

G_STATIC_ASSERT (ST_LIVE_STACK_SIZE_MAX == ST_PERF_STACK_USER_MAX);
G_STATIC_ASSERT (ST_LIVE_DEFAULT_FREQ == ST_PERF_EVENTS_DEFAULT_FREQ);
G_STATIC_ASSERT (ST_LIVE_DEFAULT_STACK_SIZE == ST_PERF_EVENTS_DEFAULT_STACK);
G_STATIC_ASSERT (ST_LIVE_RING_BUDGET == ST_RING_SOURCE_BUDGET);
G_STATIC_ASSERT (ST_LIVE_PACER_STOP_GRACE_MS
                 == ST_CAPTURE_PACER_STOP_GRACE_MS);
G_STATIC_ASSERT (sizeof (StLiveRing) == sizeof (StRingFd));
G_STATIC_ASSERT (G_STRUCT_OFFSET (StLiveRing, fd)
                 == G_STRUCT_OFFSET (StRingFd, fd));
G_STATIC_ASSERT (G_STRUCT_OFFSET (StLiveRing, cpu)
                 == G_STRUCT_OFFSET (StRingFd, cpu));

/* The result for ERR, whose message goes to *SLOT; ERR is freed.  */
static int
take_error (char **slot, GError *err)
{
  int result = ST_E_IO;

  if (err == NULL)
    {
      st_api_set_error (slot, "failed");
      return ST_E_IO;
    }
  if (err->domain == ST_ERROR)
    switch (err->code)
      {
      case ST_ERROR_FORMAT:
      case ST_ERROR_TRUNCATED:
        result = ST_E_FORMAT;
        break;
      case ST_ERROR_UNSUPPORTED:
        result = ST_E_UNSUPPORTED;
        break;
      default:
        result = ST_E_IO;
        break;
      }
  else if (err->domain == G_OPTION_ERROR)
    result = ST_E_INVALID;
  st_api_set_error (slot, err->message);
  g_error_free (err);
  return result;
}

static int
invalid (char **slot, const char *message)
{
  st_api_set_error (slot, message);
  return ST_E_INVALID;
}

/* ---- Events ---- */

struct StLiveEvents
{
  StPerfEventAttr attr;
  gboolean has_attr;
  uint64_t freq, period;
  uint64_t fallbacks;          /* ST_PERF_EVENTS_FLAG_* */
  char *error;
};

StLiveEvents *
st_live_events_new (void)
{
  return g_new0 (StLiveEvents, 1);
}

void
st_live_events_free (StLiveEvents *events)
{
  if (events == NULL)
    return;
  g_free (events->error);
  g_free (events);
}

int
st_live_events_set_spec (StLiveEvents *events, const StLiveEventSpec *spec)
{
  GError *err = NULL;
  StPerfEventsSpec s;

  if (events == NULL || spec == NULL)
    return ST_E_INVALID;
  s = (StPerfEventsSpec) {
    .event = spec->event,
    .freq = spec->freq,
    .period = spec->period,
    .stack_size = spec->stack_size,
    .inherit = spec->inherit != 0,
    .enable_on_exec = spec->enable_on_exec != 0,
  };
  if (!st_perf_events_attr (&events->attr, &s, &err))
    return take_error (&events->error, err);
  events->has_attr = TRUE;
  events->freq = spec->freq;
  events->period = spec->period;
  return ST_OK;
}

int
st_live_events_open (StLiveEvents *events, int pid, int cpu, int *fd)
{
  GError *err = NULL;

  if (events == NULL || fd == NULL)
    return ST_E_INVALID;
  if (!events->has_attr)
    return invalid (&events->error, "no event settings");
  *fd = st_perf_events_open (&events->attr, pid, cpu, &events->fallbacks,
                             &err);
  return *fd < 0 ? take_error (&events->error, err) : ST_OK;
}

unsigned
st_live_events_fallbacks (const StLiveEvents *events)
{
  unsigned out = 0;

  if (events == NULL)
    return 0;
  if (events->fallbacks & ST_PERF_EVENTS_FLAG_BUILD_ID)
    out |= ST_LIVE_FALLBACK_BUILD_ID;
  if (events->fallbacks & ST_PERF_EVENTS_FLAG_EXCLUDE_KERNEL)
    out |= ST_LIVE_FALLBACK_KERNEL;
  return out;
}

uint64_t
st_live_events_rate (const StLiveEvents *events)
{
  if (events == NULL || !events->has_attr)
    return 0;
  if (events->freq > 0)
    return events->freq;
  /* A clock event's period is in nanoseconds.  */
  if (events->attr.type == ST_PERF_TYPE_SOFTWARE && events->period > 0)
    return MAX (1000000000ull / events->period, 1);
  return 0;
}

const char *
st_live_events_error (const StLiveEvents *events)
{
  return events != NULL && events->error != NULL ? events->error : "";
}

int
st_live_events_online_cpus (StLiveEvents *events, int *cpus, size_t max,
                            size_t *n)
{
  GError *err = NULL;
  guint count = 0;
  g_autofree int *all = NULL;

  if (events == NULL || n == NULL || (cpus == NULL && max > 0))
    return ST_E_INVALID;
  if ((all = st_perf_events_online_cpus (&count, &err)) == NULL)
    return take_error (&events->error, err);
  *n = count;
  if (cpus != NULL)
    memcpy (cpus, all, sizeof (int) * MIN ((size_t) count, max));
  return ST_OK;
}

unsigned
st_live_ring_pages (uint64_t rate, uint32_t stack_size, long page_size)
{
  return st_perf_events_ring_pages (rate, stack_size, page_size);
}

/* ---- The source ---- */

struct StLiveSource
{
  StRingSource *ring;
  GByteArray *mounts;          /* FILE_CHUNK frames of _scan_all */
  StProcScanCounts scan;
  char *error;
};

StLiveSource *
st_live_source_new (void)
{
  return g_new0 (StLiveSource, 1);
}

void
st_live_source_free (StLiveSource *source)
{
  if (source == NULL)
    return;
  if (source->ring != NULL)
    {
      st_ring_source_stop (source->ring);
      st_ring_source_free (source->ring);
    }
  if (source->mounts != NULL)
    g_byte_array_free (source->mounts, TRUE);
  g_free (source->error);
  g_free (source);
}

static int
check_open (StLiveSource *source, const StLiveRing *rings, size_t n_rings)
{
  if (source->ring != NULL)
    return invalid (&source->error, "the source is open already");
  if ((rings == NULL && n_rings > 0) || n_rings > G_MAXUINT)
    return invalid (&source->error, "bad rings");
  return ST_OK;
}

int
st_live_source_open (StLiveSource *source, const StLiveRing *rings,
                     size_t n_rings, int stop_fd, uint32_t stack_size)
{
  GError *err = NULL;
  int rc;

  if (source == NULL)
    return ST_E_INVALID;
  if ((rc = check_open (source, rings, n_rings)) != ST_OK)
    return rc;
  source->ring = st_ring_source_new ((const StRingFd *) rings,
                                     (guint) n_rings, stop_fd, stack_size,
                                     &err);
  return source->ring == NULL ? take_error (&source->error, err) : ST_OK;
}

int
st_live_source_open_events (StLiveSource *source, const StLiveRing *rings,
                            size_t n_rings, int stop_fd,
                            const StLiveEvents *events, unsigned pages)
{
  GError *err = NULL;
  int rc;

  if (source == NULL)
    return ST_E_INVALID;
  if (events == NULL || !events->has_attr)
    return invalid (&source->error, "no event settings");
  if ((rc = check_open (source, rings, n_rings)) != ST_OK)
    return rc;
  source->ring = st_ring_source_new_full ((const StRingFd *) rings,
                                          (guint) n_rings, stop_fd,
                                          &events->attr, pages, &err);
  return source->ring == NULL ? take_error (&source->error, err) : ST_OK;
}

static int
check_ring (StLiveSource *source)
{
  if (source == NULL)
    return ST_E_INVALID;
  if (source->ring == NULL)
    return invalid (&source->error, "the source is not open");
  return ST_OK;
}

int
st_live_source_scan_all (StLiveSource *source)
{
  int rc = check_ring (source);

  if (rc != ST_OK)
    return rc;
  if (source->mounts == NULL)
    source->mounts = g_byte_array_new ();
  /* Timed before every record of the rings: later, the walk would
     follow samples the rings hold from before it (ring-source.h).  */
  st_proc_scan ("/proc", st_ring_source_writer (source->ring),
                st_ring_source_id (source->ring),
                st_ring_source_opened_at (source->ring), source->mounts,
                st_ring_source_known_pids (source->ring), &source->scan);
  return ST_OK;
}

static void
scan_to_writer (const uint8_t *record, size_t len, void *data)
{
  st_perf_writer_record (data, record, len);
}

int
st_live_source_scan_process (StLiveSource *source, int pid)
{
  int rc = check_ring (source);
  StPerfWriter *w;

  if (rc != ST_OK)
    return rc;
  if (pid <= 0)
    return invalid (&source->error, "bad pid");
  w = st_ring_source_writer (source->ring);
  if (!st_proc_scan_one ("/proc", (uint32_t) pid, scan_to_writer, w,
                         st_ring_source_id (source->ring),
                         st_ring_source_opened_at (source->ring),
                         &source->scan))
    {
      g_autofree char *msg = g_strdup_printf ("process %d: gone", pid);
      st_api_set_error (&source->error, msg);
      return ST_E_IO;
    }
  source->scan.processes++;
  g_hash_table_insert (st_ring_source_known_pids (source->ring),
                       GUINT_TO_POINTER (pid), NULL);
  return ST_OK;
}

/* A COMM record for each thread of process PID, named as perf names it
   (/proc/PID/task/TID/comm; the walk of /proc names a process by its
   command line, as Sysprof does), so perf report shows the threads of
   the processes that were running by name.  */
static void
name_threads (StPerfWriter *w, uint32_t pid, uint64_t id, int64_t time,
              gboolean with_main)
{
  g_autofree char *dir_path = g_strdup_printf ("/proc/%u/task", pid);
  GDir *dir = g_dir_open (dir_path, 0, NULL);
  const char *name;

  if (dir == NULL)
    return;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      uint32_t tid = (uint32_t) strtoul (name, NULL, 10);
      g_autofree char *path = g_strdup_printf ("%s/%s/comm", dir_path, name);
      g_autofree char *comm = NULL;
      uint8_t rec[sizeof (StPerfComm) + 24 + 24];
      StPerfComm c = { .header = { ST_PERF_RECORD_COMM, ST_PERF_MISC_USER,
                                   0 },
                       .pid = pid, .tid = tid };
      uint64_t t = (uint64_t) time;
      size_t len;

      if (tid == 0 || (tid == pid && !with_main)
          || !g_file_get_contents (path, &comm, NULL, NULL))
        continue;
      g_strchomp (comm);
      memset (rec, 0, sizeof rec);
      /* The name in 16 bytes with its NUL (the kernel's limit), then the
         trailer TID, TIME, IDENTIFIER.  */
      len = sizeof c + 16;
      c.header.size = (uint16_t) (len + 24);
      memcpy (rec, &c, sizeof c);
      strncpy ((char *) rec + sizeof c, comm, 15);
      memcpy (rec + len, &pid, 4);
      memcpy (rec + len + 4, &tid, 4);
      memcpy (rec + len + 8, &t, 8);
      memcpy (rec + len + 16, &id, 8);
      st_perf_writer_record (w, rec, len + 24);
    }
  g_dir_close (dir);
}

int
st_live_source_name_threads (StLiveSource *source, int with_main)
{
  int rc = check_ring (source);
  GHashTableIter it;
  gpointer key;

  if (rc != ST_OK)
    return rc;
  g_hash_table_iter_init (&it, st_ring_source_known_pids (source->ring));
  while (g_hash_table_iter_next (&it, &key, NULL))
    name_threads (st_ring_source_writer (source->ring),
                  GPOINTER_TO_UINT (key), st_ring_source_id (source->ring),
                  st_ring_source_opened_at (source->ring), with_main != 0);
  return ST_OK;
}

const void *
st_live_source_mounts (const StLiveSource *source, size_t *len)
{
  gboolean any = source != NULL && source->mounts != NULL;

  if (len != NULL)
    *len = any ? source->mounts->len : 0;
  return any ? source->mounts->data : NULL;
}

int
st_live_source_set_poll_ms (StLiveSource *source, int ms)
{
  int rc = check_ring (source);

  if (rc != ST_OK)
    return rc;
  if (ms <= 0)
    return invalid (&source->error, "the poll time must be > 0 ms");
  st_ring_source_set_poll_ms (source->ring, ms);
  return ST_OK;
}

int
st_live_source_set_stop_budget (StLiveSource *source, int ms)
{
  int rc = check_ring (source);

  if (rc != ST_OK)
    return rc;
  if (ms < 0)
    return invalid (&source->error, "the stop's budget must be >= 0 ms");
  st_ring_source_set_stop_budget (source->ring, ms);
  return ST_OK;
}

int
st_live_source_start (StLiveSource *source, StLiveStopFunc stopping,
                      int *poll_fd)
{
  GError *err = NULL;
  int rc = check_ring (source);
  int fd;

  if (rc != ST_OK)
    return rc;
  if (poll_fd == NULL)
    return invalid (&source->error, "no poll fd");
  /* gboolean is int: the ring source asks the same question.  */
  fd = st_ring_source_start (source->ring, stopping, &err);
  if (fd < 0)
    return take_error (&source->error, err);
  *poll_fd = fd;
  return ST_OK;
}

ssize_t
st_live_source_read (void *source, void *buf, size_t len)
{
  StLiveSource *s = source;

  if (s == NULL || s->ring == NULL)
    {
      errno = EINVAL;
      return -1;
    }
  return st_ring_source_read (s->ring, buf, len);
}

void
st_live_source_stop (StLiveSource *source)
{
  if (source != NULL && source->ring != NULL)
    st_ring_source_stop (source->ring);
}

int
st_live_source_get_counts (const StLiveSource *source, StLiveCounts *counts)
{
  StRingSourceCounts c;

  if (source == NULL || counts == NULL || source->ring == NULL)
    return ST_E_INVALID;
  st_ring_source_counts (source->ring, &c);
  memset (counts, 0, sizeof *counts);
  counts->passes = c.passes;
  counts->records = c.records;
  counts->samples = c.samples;
  counts->stack_bytes = c.stack_bytes;
  counts->stack_bytes_kept = c.stack_bytes_kept;
  counts->lost_records = c.lost_records;
  counts->lost_events = c.lost_events;
  counts->misfits = c.misfits;
  counts->ring_problems = c.ring_problems;
  counts->dropped_bytes = c.dropped_bytes;
  counts->queue_peak = c.queue_peak;
  counts->late_scans = c.late_scans;
  counts->late_maps = c.late_maps;
  counts->late_replaced = c.late_replaced;
  counts->stop_dropped = c.stop_dropped;
  counts->ring_pages = c.ring_pages;
  counts->scan_processes = source->scan.processes;
  counts->scan_maps = source->scan.maps;
  counts->scan_mount_files = source->scan.mount_files;
  return ST_OK;
}

const char *
st_live_source_first_problem (const StLiveSource *source)
{
  return source != NULL && source->ring != NULL
         ? st_ring_source_first_problem (source->ring) : NULL;
}

const char *
st_live_source_error (const StLiveSource *source)
{
  return source != NULL && source->error != NULL ? source->error : "";
}

/* ---- The capture pacer ---- */

struct StLivePacer
{
  StCapturePacer *pacer;
  char *error;
};

StLivePacer *
st_live_pacer_new (void)
{
  return g_new0 (StLivePacer, 1);
}

void
st_live_pacer_free (StLivePacer *pacer)
{
  if (pacer == NULL)
    return;
  st_capture_pacer_free (pacer->pacer);
  g_free (pacer->error);
  g_free (pacer);
}

int
st_live_pacer_start (StLivePacer *pacer, int capture_fd, int stop_fd)
{
  GError *err = NULL;

  if (pacer == NULL)
    return ST_E_INVALID;
  if (pacer->pacer != NULL)
    return invalid (&pacer->error, "the pacer runs already");
  pacer->pacer = st_capture_pacer_new (capture_fd, stop_fd, &err);
  return pacer->pacer == NULL ? take_error (&pacer->error, err) : ST_OK;
}

int
st_live_pacer_input_fd (const StLivePacer *pacer)
{
  return pacer != NULL && pacer->pacer != NULL
         ? st_capture_pacer_input_fd (pacer->pacer) : -1;
}

void
st_live_pacer_finish (StLivePacer *pacer)
{
  if (pacer != NULL && pacer->pacer != NULL)
    st_capture_pacer_finish (pacer->pacer);
}

int
st_live_pacer_get_counts (const StLivePacer *pacer, StLivePacerCounts *counts)
{
  StCapturePacerCounts c = { 0 };

  if (pacer == NULL || counts == NULL || pacer->pacer == NULL)
    return ST_E_INVALID;
  st_capture_pacer_counts (pacer->pacer, &c);
  memset (counts, 0, sizeof *counts);
  switch (c.mode)
    {
    case ST_CAPTURE_PACER_PACKETS:
      counts->mode = ST_LIVE_PACER_PACKETS;
      break;
    case ST_CAPTURE_PACER_POLLED:
      counts->mode = ST_LIVE_PACER_POLLED;
      break;
    case ST_CAPTURE_PACER_UNPACED:
    default:
      counts->mode = ST_LIVE_PACER_UNPACED;
      break;
    }
  counts->frames = c.frames;
  counts->writes = c.writes;
  counts->waits_given_up = c.waits_given_up;
  counts->bulk_writes = c.bulk_writes;
  counts->backlog_max = c.backlog_max;
  counts->backlog_end = c.backlog_end;
  counts->abandoned_bytes = c.abandoned_bytes;
  return ST_OK;
}

int
st_live_pacer_reader_gone (const StLivePacer *pacer)
{
  return pacer != NULL && pacer->pacer != NULL
         && st_capture_pacer_reader_gone (pacer->pacer);
}

const char *
st_live_pacer_mode_name (StLivePacerMode mode)
{
  switch (mode)
    {
    case ST_LIVE_PACER_UNPACED:
      return st_capture_pacer_mode_name (ST_CAPTURE_PACER_UNPACED);
    case ST_LIVE_PACER_PACKETS:
      return st_capture_pacer_mode_name (ST_CAPTURE_PACER_PACKETS);
    case ST_LIVE_PACER_POLLED:
      return st_capture_pacer_mode_name (ST_CAPTURE_PACER_POLLED);
    }
  return "?";
}

const char *
st_live_pacer_error (const StLivePacer *pacer)
{
  return pacer != NULL && pacer->error != NULL ? pacer->error : "";
}
