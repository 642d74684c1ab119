/* The perf rings of a live recorder as a perf.data stream; the contract
   is in ring-source.h.  A thread of its own reads the rings, so they
   keep being emptied while the main thread unwinds or waits for a CPU
   (on a loaded machine, for hundreds of ms).  Between the two threads:
   an in-process queue (record-queue.h), one lock and at most one
   wake-up per pass, never waited on by this thread.  When the
   main thread falls too far behind, the queue's bound stops the reading,
   the rings fill, and the kernel counts what it drops in LOST records:
   the loss the recorder sees.  */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "format/output.h"
#include "live/perf-ring.h"
#include "live/proc-scan.h"
#include "live/record-queue.h"
#include "live/ring-source.h"
#include "live/sysprof-layout.h"
#include "util/domain.h"

/* The synthesized records held before the thread starts.  */
#define HOLD_MAX (256u << 20)
/* Records read from the rings and not yet taken by the reader: while the
   main thread catches up, they wait here rather than in the rings,
   where they would be lost.  Past this, the rings are left to fill.  */
#define QUEUE_MAX (256u << 20)
/* The known pids at most: past it the set starts again (a process
   sampled then is read from /proc once more: duplicate mappings, no
   harm).  */
#define KNOWN_MAX 65536
/* The smallest ring tried when the kernel refuses larger ones.  */
#define MIN_PAGES 8

/* A process sampled in this pass that the stream knows nothing of, or
   that took the pid of one the walk of /proc found.  */
typedef struct
{
  uint64_t first_time;
  gboolean replaced;
} Unknown;

typedef struct
{
  int fd;
  int cpu;
  void *map;
  size_t map_len;
  StPerfRing ring;
  gboolean hung_up;            /* poll() no longer asked about it */
} Ring;

struct StRingSource
{
  Ring *rings;
  guint n_rings;
  int event_fd;
  uint64_t *ids;

  StPerfEventAttr attr;
  StPerfAttr checked;          /* the same, for the record checks */

  int wake[2];                 /* _stop wakes the thread's poll() */
  StOutput *out;                /* the header and what comes before _start */
  StPerfWriter *writer;
  StRecordQueue *queue;        /* the stream, to the reader */

  pthread_t thread;
  gboolean started;
  gboolean joined;
  int abandon;                 /* atomic: the reader is gone */
  gboolean (*stopping) (void);
  int poll_ms;                 /* the timer between passes */

  int64_t opened_at;           /* CLOCK_MONOTONIC before any ring was
                                  mapped: no record is older */
  GHashTable *known;           /* pids whose mappings the stream has */
  GHashTable *unknown;         /* pid -> Unknown: sampled in this pass */
  uint8_t *record;             /* ST_PERF_RING_RECORD_MAX */
  StRingSourceCounts counts;
  char *first_problem;

  /* The stop's budget (see ring-source.h) ...  */
  int stop_budget_ms;          /* 0: none */
  int64_t stop_ns;             /* atomic: CLOCK_MONOTONIC of the stop */
  /* ... and the reader's side: where the records it is handed begin.  */
  uint64_t handed;             /* stream bytes handed to the reader */
  uint64_t next_record;        /* where the next record begins */
  uint8_t header[8];           /* its header, as far as handed */
  guint header_have;
  gboolean untracked;          /* a record header made no sense */
  uint64_t skip_left;          /* of a sample being thrown away */
  uint64_t dropped_time;       /* the last thrown away sample's */
  uint32_t dropped_pid, dropped_tid;
  gboolean lost_sent;          /* the LOST record for them */
};

/* The data pages to try first for each of N_RINGS rings: a power of
   two within the bounds.  */
static guint
first_pages (guint n_rings, long page)
{
  guint pages = ST_RING_SOURCE_PAGES;

  while (pages > MIN_PAGES
         && (uint64_t) pages * (uint64_t) page * MAX (n_rings, 1)
            > ST_RING_SOURCE_BUDGET)
    pages /= 2;
  return pages;
}

/* Sysprof's events do not sample PERF_SAMPLE_CPU: each ring is one
   CPU's (--perf-fd=FD:CPU), and an ID_INDEX record gives the reader
   the CPU of each ring's sample id, as perf's own does.  */
static void
write_id_index (StRingSource *s)
{
  size_t len = sizeof (StPerfEventHeader) + 8
               + s->n_rings * sizeof (StPerfIdIndexEntry);
  g_autofree uint8_t *rec = g_malloc0 (len);
  StPerfEventHeader h = { ST_PERF_RECORD_ID_INDEX, 0, (uint16_t) len };
  uint64_t nr = s->n_rings;

  if (s->n_rings == 0 || len > G_MAXUINT16)
    return;
  memcpy (rec, &h, sizeof h);
  memcpy (rec + sizeof h, &nr, sizeof nr);
  for (guint i = 0; i < s->n_rings; i++)
    {
      StPerfIdIndexEntry e = { s->ids[i], 0, (uint64_t) s->rings[i].cpu,
                               (uint64_t) -1 };
      memcpy (rec + sizeof h + 8 + i * sizeof e, &e, sizeof e);
    }
  st_perf_writer_record (s->writer, rec, len);
}

static gboolean
map_ring (Ring *r, guint max_pages, GError **error)
{
  long page = sysconf (_SC_PAGESIZE);
  int err = 0;

  /* (Fewer than MIN_PAGES only when asked for: --mmap-pages.)  */
  for (guint pages = max_pages; pages >= MIN (MIN_PAGES, max_pages) && pages > 0;
       pages /= 2)
    {
      size_t len = (size_t) (pages + 1) * (size_t) page;
      void *map = mmap (NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
                        r->fd, 0);

      if (map != MAP_FAILED)
        {
          struct perf_event_mmap_page *pc = map;
          uint64_t off = pc->data_offset ? pc->data_offset : (uint64_t) page;
          uint64_t size = pc->data_size ? pc->data_size
                                        : (uint64_t) pages * (uint64_t) page;

          if (off + size > len)
            {
              munmap (map, len);
              g_set_error (error, ST_ERROR, ST_ERROR_FORMAT,
                           "perf fd %d (CPU %d): the kernel's ring (data at "
                           "%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                           " bytes) lies outside the %zu bytes mapped",
                           r->fd, r->cpu, off, size, len);
              return FALSE;
            }
          r->map = map;
          r->map_len = len;
          st_perf_ring_init (&r->ring, map, (uint8_t *) map + off, size);
          return TRUE;
        }
      err = errno;
      if (err != ENOMEM && err != EPERM)
        break;
    }
  g_set_error (error, ST_ERROR, ST_ERROR_IO,
               "perf fd %d (CPU %d): cannot map its ring buffer: %s",
               r->fd, r->cpu, g_strerror (err));
  return FALSE;
}

StRingSource *
st_ring_source_new (const StRingFd *fds, guint n_fds, int event_fd,
                    uint32_t stack_size, GError **error)
{
  StPerfEventAttr attr;

  st_sysprof_layout_attr (&attr, stack_size);
  return st_ring_source_new_full (fds, n_fds, event_fd, &attr, 0, error);
}

/* The writer's output (the header, what the owner adds before _start):
   into the stream.  */
static ssize_t
write_stream (void *queue, const void *buf, size_t len)
{
  st_record_queue_push (queue, buf, len);
  return (ssize_t) len;
}

StRingSource *
st_ring_source_new_full (const StRingFd *fds, guint n_fds, int event_fd,
                         const StPerfEventAttr *attr, guint pages,
                         GError **error)
{
  StRingSource *s = g_new0 (StRingSource, 1);
  struct timespec ts;

  /* The kernel writes a record only into a mapped ring: none can be
     older than this (the events' clock is CLOCK_MONOTONIC).  */
  clock_gettime (CLOCK_MONOTONIC, &ts);
  s->opened_at = (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
  s->wake[0] = s->wake[1] = -1;
  s->event_fd = event_fd;
  s->poll_ms = ST_RING_SOURCE_POLL_MS;
  s->next_record = ST_PERF_PIPE_HEADER_SIZE;
  s->rings = g_new0 (Ring, n_fds);
  s->ids = g_new0 (uint64_t, MAX (n_fds, 1));
  s->record = g_malloc (ST_PERF_RING_RECORD_MAX);
  s->known = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  s->unknown = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  for (guint i = 0; i < n_fds; i++)
    {
      Ring *r = &s->rings[i];

      r->fd = fds[i].fd;
      r->cpu = fds[i].cpu;
      s->n_rings++;
      if (ioctl (r->fd, PERF_EVENT_IOC_ID, &s->ids[i]) != 0)
        {
          g_set_error (error, ST_ERROR, ST_ERROR_IO,
                       "--perf-fd=%d:%d is not a perf event: %s", r->fd,
                       r->cpu, g_strerror (errno));
          goto fail;
        }
      if (!map_ring (r, pages > 0 ? pages
                                  : first_pages (n_fds, sysconf (_SC_PAGESIZE)),
                     error))
        goto fail;
      s->counts.ring_pages = (uint32_t) (r->ring.size / (uint64_t) sysconf (_SC_PAGESIZE));
    }
  if (pipe2 (s->wake, O_CLOEXEC | O_NONBLOCK) != 0)
    {
      g_set_error (error, ST_ERROR, ST_ERROR_IO, "cannot make a pipe: %s",
                   g_strerror (errno));
      goto fail;
    }
  if ((s->queue = st_record_queue_new (error)) == NULL)
    goto fail;

  s->attr = *attr;
  st_sysprof_layout_checked (&s->checked, &s->attr);
  s->out = st_output_new_func (write_stream, s->queue);
  st_output_hold (s->out, HOLD_MAX);
  s->writer = st_perf_writer_new (s->out, FALSE);
  st_perf_writer_attr (s->writer, (const uint8_t *) &s->attr,
                       sizeof s->attr, s->ids, n_fds);
  write_id_index (s);
  st_perf_writer_set_trailer (s->writer, s->attr.sample_type);
  return s;

fail:
  st_ring_source_free (s);
  return NULL;
}

StPerfWriter *
st_ring_source_writer (StRingSource *s)
{
  return s->writer;
}

int64_t
st_ring_source_opened_at (const StRingSource *s)
{
  return s->opened_at;
}

uint64_t
st_ring_source_id (const StRingSource *s)
{
  return s->n_rings > 0 ? s->ids[0] : 0;
}

GHashTable *
st_ring_source_known_pids (StRingSource *s)
{
  return s->known;
}

static void
know (StRingSource *s, uint32_t pid)
{
  if (g_hash_table_size (s->known) >= KNOWN_MAX)
    g_hash_table_remove_all (s->known);
  g_hash_table_insert (s->known, GUINT_TO_POINTER (pid), NULL);
  g_hash_table_remove (s->unknown, GUINT_TO_POINTER (pid));
}

/* A process that has not said how it began (the walk of /proc missed
   it, or saw another in its pid): read from /proc after this pass.  */
static void
suspect (StRingSource *s, uint32_t pid, uint64_t time, gboolean replaced)
{
  gpointer key = GUINT_TO_POINTER (pid);
  Unknown *u = g_hash_table_lookup (s->unknown, key);

  if (u == NULL)
    {
      u = g_new0 (Unknown, 1);
      u->first_time = time;
      g_hash_table_insert (s->unknown, key, u);
    }
  u->first_time = MIN (u->first_time, time);
  u->replaced |= replaced;
}

/* What record R (checked against the layout) says of which processes
   the stream knows.  A process begins for the stream with the walk, a
   FORK, or its main thread's COMM (an exec); a sample, an MMAP or a
   thread's COMM of any other pid means its beginning was missed: it
   started between the walk and the events' enabling.  */
static void
note_pids (StRingSource *s, const uint8_t *r)
{
  const StPerfEventHeader *h = (const StPerfEventHeader *) r;
  uint32_t pid = st_perf_get_u32 (r + 8);
  uint64_t time;
  gpointer walked = NULL;
  gboolean replaced = FALSE;

  switch (h->type)
    {
    case ST_PERF_RECORD_FORK:
      know (s, pid);
      return;
    case ST_PERF_RECORD_COMM:
      if (pid == st_perf_get_u32 (r + 12))
        {
          know (s, pid);
          return;
        }
      time = st_perf_get_u64 (r + h->size - 16);   /* the trailer's */
      break;
    case ST_PERF_RECORD_EXIT:
      if (pid == st_perf_get_u32 (r + 16))
        g_hash_table_remove (s->known, GUINT_TO_POINTER (pid));
      return;
    case ST_PERF_RECORD_MMAP:
    case ST_PERF_RECORD_MMAP2:
      time = st_perf_get_u64 (r + h->size - 16);
      break;
    case ST_PERF_RECORD_SAMPLE:
      /* IDENTIFIER, IP, then TID's pid; TIME after it.  */
      pid = st_perf_get_u32 (r + 24);
      time = st_perf_get_u64 (r + 32);
      break;
    default:
      return;
    }
  if (pid == 0 || pid == G_MAXUINT32)
    return;
  if (g_hash_table_lookup_extended (s->known, GUINT_TO_POINTER (pid), NULL,
                                    &walked))
    {
      StProcIdentity now;

      /* Known from the walk only: the same process and image still?  */
      if (walked == NULL)
        return;
      replaced = st_proc_scan_identity ("/proc", pid, &now)
                 && !st_proc_scan_identity_equal (&now, walked);
      g_hash_table_insert (s->known, GUINT_TO_POINTER (pid), NULL);
      if (!replaced)
        return;
    }
  suspect (s, pid, time, replaced);
}

static void
queue_scanned (const uint8_t *record, size_t len, void *data)
{
  StRingSource *s = data;

  st_record_queue_push (s->queue, record, len);
}

/* The processes sampled in this pass that the stream knew nothing of
   (or whose pid the walk of /proc saw taken by another): their COMM and
   mappings, timed just before their first sample (after an EXIT of the
   one the walk saw).  */
static void
scan_unknown (StRingSource *s)
{
  /* Taken whole: know() removes from s->unknown as the loop goes.  */
  g_autoptr (GHashTable) pending = s->unknown;
  GHashTableIter it;
  gpointer key, value;

  s->unknown = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_hash_table_iter_init (&it, pending);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      uint32_t pid = GPOINTER_TO_UINT (key);
      const Unknown *u = value;
      int64_t time = (int64_t) (u->first_time > 1 ? u->first_time - 1 : 0);
      StProcScanCounts c = { 0 };

      if (u->replaced)
        {
          st_proc_scan_exit (pid, queue_scanned, s, st_ring_source_id (s),
                             time);
          s->counts.late_replaced++;
        }
      if (st_proc_scan_one ("/proc", pid, queue_scanned, s,
                            st_ring_source_id (s), time, &c))
        {
          s->counts.late_scans++;
          s->counts.late_maps += c.maps;
        }
      /* Gone or not: not asked again for every sample.  */
      know (s, pid);
    }
}

static void
note_problem (StRingSource *s, const Ring *r, const char *what)
{
  if (s->first_problem == NULL)
    s->first_problem = g_strdup_printf ("CPU %d (perf fd %d), ring offset %"
                                        G_GUINT64_FORMAT ": %s", r->cpu,
                                        r->fd, r->ring.tail, what);
}

/* Copies the next record of ring R (SIZE bytes) to s->record: a sample
   without the part of its stack copy the kernel left unfilled (most of
   Sysprof's 16 KiB for a shallow stack), which is not even read; any
   other record whole.  Its length there.  */
static size_t
copy_record (StRingSource *s, Ring *r, size_t size)
{
  size_t prefix = MIN (size, (size_t) ST_SYSPROF_SAMPLE_PREFIX);
  size_t at;
  uint64_t dyn_size;

  st_perf_ring_copy (&r->ring, 0, s->record, prefix);
  if (prefix < size
      && st_sysprof_layout_stack_at (&s->checked, s->record, prefix, size,
                                     &at))
    {
      st_perf_ring_copy (&r->ring, size - 8, &dyn_size, sizeof dyn_size);
      /* (A dyn_size beyond the copy: read whole, for the check to name.)
         The filled part rounded up to a word (the copy is whole words);
         it may begin inside the prefix: copied again.  */
      if (dyn_size <= size - at - 8)
        {
          st_perf_ring_copy (&r->ring, at, s->record + at,
                             (size_t) ST_PERF_ALIGN8 (dyn_size));
          return st_sysprof_layout_end_stack (s->record, at, dyn_size);
        }
    }
  st_perf_ring_copy (&r->ring, prefix, s->record + prefix, size - prefix);
  return size;
}

/* One record copied out of ring R (LEN bytes, SIZE in the ring):
   checked, counted, passed on.  */
static void
take_record (StRingSource *s, Ring *r, size_t len, size_t size)
{
  const StPerfEventHeader *h = (const StPerfEventHeader *) s->record;
  StPerfSample sample;
  char *why = st_sysprof_layout_misfit (&s->checked, s->record, len,
                                        &sample);

  s->counts.records++;
  if (why != NULL)
    {
      g_autofree char *what = g_strdup_printf ("record type %u of %zu bytes "
                                               "does not fit Sysprof's "
                                               "layout: %s", h->type, len,
                                               why);
      s->counts.misfits++;
      note_problem (s, r, what);
      g_free (why);
      return;
    }
  note_pids (s, s->record);
  if (h->type == ST_PERF_RECORD_SAMPLE)
    {
      /* (One copy_record did not cut: read whole.)  */
      len = st_sysprof_layout_cut_stack (s->record, len, &sample);
      s->counts.samples++;
      s->counts.stack_bytes += size;
      s->counts.stack_bytes_kept += len;
    }
  else if (h->type == ST_PERF_RECORD_LOST)
    {
      s->counts.lost_records++;
      s->counts.lost_events += st_perf_get_u64 (s->record + 16);
    }
  st_record_queue_push (s->queue, s->record, len);
}

static void
queue_round (StRingSource *s)
{
  StPerfEventHeader round = { ST_PERF_RECORD_FINISHED_ROUND, 0,
                              sizeof round };

  st_record_queue_push (s->queue, &round, sizeof round);
  s->counts.queue_peak = MAX (s->counts.queue_peak,
                              (uint64_t) st_record_queue_bytes (s->queue));
}

/* Reads every ring to the head it had when its turn came; the number of
   records.  FILLING: whether a ring was more than an eighth full.  */
static uint64_t
pass (StRingSource *s, gboolean *filling)
{
  uint64_t before = s->counts.records;

  *filling = FALSE;
  for (guint i = 0; i < s->n_rings; i++)
    {
      Ring *r = &s->rings[i];
      uint64_t problems = r->ring.problems;
      size_t size, len;
      uint64_t read = 0;

      st_perf_ring_begin (&r->ring);
      while ((size = st_perf_ring_peek (&r->ring)) > 0)
        {
          len = copy_record (s, r, size);
          st_perf_ring_consume (&r->ring, size);
          take_record (s, r, len, size);
          read += size;
        }
      *filling |= read > r->ring.size / 8;
      if (r->ring.problems != problems)
        note_problem (s, r, st_perf_ring_problem_name (r->ring.last_problem));
    }
  s->counts.passes++;
  return s->counts.records - before;
}

static int64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Waits for data, the stop eventfd or the timer; TRUE when the run is
   to end.  */
static gboolean
wait_for_data (StRingSource *s, struct pollfd *pfd)
{
  guint n = 0, event_at;

  for (guint i = 0; i < s->n_rings; i++)
    {
      pfd[n].fd = s->rings[i].hung_up ? -1 : s->rings[i].fd;
      pfd[n].events = POLLIN;
      pfd[n++].revents = 0;
    }
  pfd[n].fd = s->wake[0];
  pfd[n].events = POLLIN;
  pfd[n++].revents = 0;
  event_at = n;
  pfd[n].fd = s->event_fd;
  pfd[n].events = POLLIN;
  pfd[n++].revents = 0;
  if (poll (pfd, n, s->poll_ms) < 0 && errno != EINTR)
    return TRUE;
  /* A per-task event whose task ended hangs up for good: its ring is
     still read every pass, but poll() would return at once forever.  */
  for (guint i = 0; i < s->n_rings; i++)
    if (pfd[i].revents & (POLLHUP | POLLERR | POLLNVAL))
      s->rings[i].hung_up = TRUE;
  if (g_atomic_int_get (&s->abandon))
    return TRUE;
  if (s->event_fd >= 0 && (pfd[event_at].revents & (POLLIN | POLLHUP | POLLERR)))
    return TRUE;
  return s->stopping != NULL && s->stopping ();
}

/* After a pass at PASS_NS: waits until ST_RING_SOURCE_MIN_PASS_MS have
   gone by since, unless the stop (or _stop) comes first.  The kernel
   wakes us as the recorder's attribute asks (Sysprof's: every few
   samples), and each pass costs a wake-up of the reader, of the writer's
   pacer and their system calls: some samples per pass rather than one
   cut our CPU per sample, and the rings (ST_RING_SOURCE_PAGES) hold
   hundreds of milliseconds.  Not after a pass that found a ring an
   eighth full (a high rate, or small rings).  */
static void
hold_off (StRingSource *s, int64_t pass_ns)
{
  int64_t left = pass_ns + (int64_t) ST_RING_SOURCE_MIN_PASS_MS * 1000000
                 - now_ns ();
  struct pollfd pfd[2];
  nfds_t n = 0;

  if (left <= 0)
    return;
  pfd[n].fd = s->wake[0];
  pfd[n].events = POLLIN;
  pfd[n++].revents = 0;
  if (s->event_fd >= 0)
    {
      pfd[n].fd = s->event_fd;
      pfd[n].events = POLLIN;
      pfd[n++].revents = 0;
    }
  (void) poll (pfd, n, (int) ((left + 999999) / 1000000));
}

static void *
run (void *data)
{
  StRingSource *s = data;
  g_autofree struct pollfd *pfd = g_new (struct pollfd, s->n_rings + 2);
  gboolean last = FALSE;

  /* The header and the processes: the main thread is reading them.  */
  st_output_release (s->out);
  st_perf_writer_finished_round (s->writer);
  st_output_flush (s->out, NULL);
  st_record_queue_publish (s->queue);
  for (;;)
    {
      /* (At the stop the rings are read to their heads whatever the
         queue holds: the reader takes it all before it ends.)  */
      int64_t pass_ns = now_ns ();
      gboolean filling = FALSE;
      if ((last || st_record_queue_bytes (s->queue) < QUEUE_MAX)
          && pass (s, &filling) > 0)
        {
          if (g_hash_table_size (s->unknown) > 0)
            scan_unknown (s);
          queue_round (s);
          st_record_queue_publish (s->queue);
        }
      if (g_atomic_int_get (&s->abandon) || last)
        break;
      if (!filling)
        hold_off (s, pass_ns);
      last = wait_for_data (s, pfd);
      if (last)
        __atomic_store_n (&s->stop_ns, now_ns (), __ATOMIC_RELEASE);
    }
  for (guint i = 0; i < s->n_rings; i++)
    {
      s->counts.ring_problems += s->rings[i].ring.problems;
      s->counts.dropped_bytes += s->rings[i].ring.dropped_bytes;
    }
  /* The end of the stream.  */
  st_perf_writer_free (s->writer);
  s->writer = NULL;
  st_output_flush (s->out, NULL);
  st_record_queue_close (s->queue);
  return NULL;
}

void
st_ring_source_set_poll_ms (StRingSource *s, int ms)
{
  s->poll_ms = ms;
}

int
st_ring_source_start (StRingSource *s, gboolean (*stopping) (void),
                      GError **error)
{
  sigset_t all, old;
  int err;

  s->stopping = stopping;
  /* Signals are the main thread's: the thread starts with all blocked.  */
  sigfillset (&all);
  pthread_sigmask (SIG_SETMASK, &all, &old);
  err = pthread_create (&s->thread, NULL, run, s);
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  if (err != 0)
    {
      g_set_error (error, ST_ERROR, ST_ERROR_IO,
                   "cannot start the ring reader thread: %s",
                   g_strerror (err));
      return -1;
    }
  s->started = TRUE;
  return st_record_queue_fd (s->queue);
}

void
st_ring_source_set_stop_budget (StRingSource *s, int ms)
{
  s->stop_budget_ms = MAX (ms, 0);
}

/* The reader's side from here on.  The records handed out in BUF (N
   bytes): where the next one begins, from their headers.  */
static void
track (StRingSource *s, const uint8_t *buf, size_t n)
{
  uint64_t start = s->handed, end = start + n;

  s->handed = end;
  while (!s->untracked && s->next_record + s->header_have < end)
    {
      uint16_t size;

      while (s->header_have < sizeof s->header
             && s->next_record + s->header_have < end)
        {
          s->header[s->header_have] = buf[s->next_record + s->header_have
                                          - start];
          s->header_have++;
        }
      if (s->header_have < sizeof s->header)
        break;
      memcpy (&size, s->header + 6, sizeof size);
      if (size < sizeof s->header)
        {
          s->untracked = TRUE;    /* the reader will say what is wrong */
          break;
        }
      s->next_record += size;
      s->header_have = 0;
    }
}

static ssize_t
read_tracked (StRingSource *s, void *buf, size_t len)
{
  ssize_t n = st_record_queue_read (s->queue, buf, len);

  if (n > 0)
    track (s, buf, (size_t) n);
  return n;
}

/* Whether the stop's budget is spent: samples are no longer handed
   out.  */
static gboolean
past_budget (const StRingSource *s)
{
  int64_t stop = __atomic_load_n (&s->stop_ns, __ATOMIC_ACQUIRE);

  return s->stop_budget_ms > 0 && stop != 0 && !s->untracked
         && now_ns () - stop >= (int64_t) s->stop_budget_ms * 1000000;
}

/* The end of the stream: first a LOST record for the samples thrown
   away, if any (and BUF can take it).  */
static ssize_t
end_of_stream (StRingSource *s, uint8_t *buf, size_t len)
{
  StPerfEventHeader h = { ST_PERF_RECORD_LOST, 0, 0 };
  uint64_t st = s->attr.sample_type, id = st_ring_source_id (s);
  uint64_t lost = s->counts.stop_dropped;
  size_t at = sizeof h;

  if (lost == 0 || s->lost_sent || len < sizeof h + 16 + 48)
    return 0;
  memcpy (buf + at, &id, 8), at += 8;
  memcpy (buf + at, &lost, 8), at += 8;
  /* The sample_id trailer (sample_id_all), as the kernel's.  */
  if (st & ST_PERF_SAMPLE_TID)
    {
      memcpy (buf + at, &s->dropped_pid, 4), at += 4;
      memcpy (buf + at, &s->dropped_tid, 4), at += 4;
    }
  if (st & ST_PERF_SAMPLE_TIME)
    memcpy (buf + at, &s->dropped_time, 8), at += 8;
  if (st & ST_PERF_SAMPLE_ID)
    memcpy (buf + at, &id, 8), at += 8;
  if (st & ST_PERF_SAMPLE_STREAM_ID)
    memcpy (buf + at, &id, 8), at += 8;
  if (st & ST_PERF_SAMPLE_CPU)
    {
      uint64_t cpu = s->n_rings > 0 ? (uint32_t) s->rings[0].cpu : 0;
      memcpy (buf + at, &cpu, 8), at += 8;
    }
  if (st & ST_PERF_SAMPLE_IDENTIFIER)
    memcpy (buf + at, &id, 8), at += 8;
  h.size = (uint16_t) at;
  memcpy (buf, &h, sizeof h);
  s->lost_sent = TRUE;
  s->counts.lost_records++;
  s->counts.lost_events += lost;
  return (ssize_t) at;
}

/* Waits for the queue's doorbell; FALSE (errno EINTR) when a signal
   came, for the reader's check.  */
static gboolean
wait_queue (StRingSource *s)
{
  struct pollfd pfd = { st_record_queue_fd (s->queue), POLLIN, 0 };

  if (poll (&pfd, 1, -1) < 0 && errno == EINTR)
    return FALSE;
  return TRUE;
}

/* Past the stop's budget: every record but the samples, which are
   counted and thrown away.  */
static ssize_t
read_past_budget (StRingSource *s, uint8_t *buf, size_t len)
{
  for (;;)
    {
      uint8_t head[40];
      StPerfEventHeader h;
      size_t got;

      if (s->skip_left > 0)
        {
          size_t n = st_record_queue_skip (s->queue, s->skip_left);

          s->skip_left -= n;
          s->handed += n;
          if (s->skip_left == 0)
            continue;
          if (st_record_queue_ended (s->queue))
            return end_of_stream (s, buf, len);
          if (n == 0 && !wait_queue (s))
            {
              errno = EINTR;
              return -1;
            }
          continue;
        }
      /* Inside a record handed out in part: its rest as usual.  */
      if (s->header_have > 0)
        return read_tracked (s, buf, MIN (len, sizeof s->header
                                               - s->header_have));
      if (s->handed < s->next_record)
        return read_tracked (s, buf, MIN (len, s->next_record - s->handed));
      got = st_record_queue_peek (s->queue, head, sizeof head);
      if (got < sizeof h)
        {
          ssize_t n;

          if (st_record_queue_ended (s->queue))
            return end_of_stream (s, buf, len);
          /* (Nothing yet, or a header published in part: read as is.)  */
          n = read_tracked (s, buf, MIN (len, sizeof h));
          return n == 0 ? end_of_stream (s, buf, len) : n;
        }
      memcpy (&h, head, sizeof h);
      if (h.type != ST_PERF_RECORD_SAMPLE || h.size < sizeof head
          || got < sizeof head)
        {
          ssize_t n = read_tracked (s, buf, MIN (len, h.size));
          return n == 0 ? end_of_stream (s, buf, len) : n;
        }
      /* IDENTIFIER, IP, TID, TIME: as note_pids reads them.  */
      s->dropped_pid = st_perf_get_u32 (head + 24);
      s->dropped_tid = st_perf_get_u32 (head + 28);
      s->dropped_time = MAX (s->dropped_time, st_perf_get_u64 (head + 32));
      s->counts.stop_dropped++;
      s->next_record += h.size;
      s->skip_left = h.size;
    }
}

ssize_t
st_ring_source_read (void *source, void *buf, size_t len)
{
  StRingSource *s = source;
  ssize_t n;

  if (len == 0)
    return 0;
  if (past_budget (s))
    return read_past_budget (s, buf, len);
  n = read_tracked (s, buf, len);
  return n == 0 ? end_of_stream (s, buf, len) : n;
}

void
st_ring_source_stop (StRingSource *s)
{
  if (!s->started || s->joined)
    return;
  g_atomic_int_set (&s->abandon, 1);
  (void) !write (s->wake[1], "", 1);
  pthread_join (s->thread, NULL);
  s->joined = TRUE;
}

void
st_ring_source_counts (const StRingSource *s, StRingSourceCounts *c)
{
  *c = s->counts;
}

const char *
st_ring_source_first_problem (const StRingSource *s)
{
  return s->first_problem;
}

void
st_ring_source_free (StRingSource *s)
{
  if (s == NULL)
    return;
  st_ring_source_stop (s);
  if (s->writer != NULL)
    st_perf_writer_free (s->writer);
  st_output_free (s->out);
  st_record_queue_free (s->queue);
  for (guint i = 0; i < s->n_rings; i++)
    if (s->rings[i].map != NULL)
      munmap (s->rings[i].map, s->rings[i].map_len);
  for (int i = 0; i < 2; i++)
    if (s->wake[i] >= 0)
      close (s->wake[i]);
  g_free (s->rings);
  g_free (s->ids);
  g_free (s->record);
  if (s->known != NULL)
    g_hash_table_destroy (s->known);
  if (s->unknown != NULL)
    g_hash_table_destroy (s->unknown);
  g_free (s->first_problem);
  g_free (s);
}
