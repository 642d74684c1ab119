/* stacktrace --record; see record.h.  The options are taken out of
   argv before stacktrace's own are parsed, as the live unwinder's are,
   so -o, --stats-file, -v and the rest work beside them.

   Events are opened per CPU: the kernel refuses to map the ring of an
   inherited event that follows one task on every CPU (cpu == -1), and
   inherit is what makes the children of a recorded process recorded too.
   So: -a, one event per online CPU for every process (pid -1); a
   command, one per CPU for the child, inherited, enabled by the kernel
   at its exec (enable_on_exec: nothing of stacktrace's own code in the
   child is recorded); -p, one per CPU for each thread of each process,
   inherited, the events of a CPU writing to the ring of its first
   (PERF_EVENT_IOC_SET_OUTPUT, which perf does too): one ring per CPU
   whatever the number of threads.  */
#include "config.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <stacktrace-1/stacktrace.h>

#include "command-error.h"
#include "live.h"
#include "record-child.h"
#include "record.h"

/* The kernel's largest user stack copy (a record's size is 16 bits).  */
#define STACK_SIZE_MAX 65528
/* How often -p asks whether its processes are still there.  */
#define ALIVE_CHECK_NS (100 * 1000000ll)
/* The ring reader's timer between passes: a quarter of the time a ring
   takes to fill at the rate, from 10 ms (the Sysprof mode's) to 100 ms.
   Every pass wakes both threads and flushes the output; the kernel
   still wakes the reader when a ring is half full.  */
#define POLL_MS_MIN 10
#define POLL_MS_MAX 100

struct StRecordRun
{
  gboolean record;
  gboolean all_cpus;
  char *pids_arg;
  char *event;
  char *freq_arg;
  char *period_arg;
  int stack_size;
  int mmap_pages;
  char **command;              /* after "--", or NULL */
  gboolean output_format_given;
  char **argv;                 /* what is left for stacktrace's options
                                  (owned) ... */
  char **argv_view;            /* ... and the array handed out, which
                                  stacktrace's parser rearranges */

  GArray *pids;                /* int: -p */
  uint64_t freq, period;
  StLiveEvents *events;
  int *cpus;
  guint n_cpus;
  GArray *fds;                 /* int: every event */
  GArray *fd_cpu;              /* guint: its index in cpus */
  GArray *rings;               /* StLiveRing: the events whose ring is read */
  guint pages;                 /* asked for */

  StRecordChild *child;        /* the command, or NULL */

  StLiveSource *source;
  int stop_fd;                 /* eventfd: a stop signal came */
  int child_fd;                /* pidfd of the command, or -1 */
  int stop_poll;               /* epoll of both: the ring thread's stop
                                  fd, or -1 (then stop_fd is) */
  double scan_ms;
  int64_t next_alive_check;
  gboolean (*signal_stopping) (void);
};

/* The recording the ring thread's stop question is about (there is one
   per process: the question takes no data).  */
static StRecordRun *current;

static int64_t
monotonic_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The index of the first "--" in ARGV, or ARGC.  */
static int
double_dash (int argc, char **argv)
{
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--") == 0)
      return i;
  return argc;
}

gboolean
st_record_wanted (int argc, char **argv)
{
  int end = double_dash (argc, argv);

  for (int i = 1; i < end; i++)
    if (strcmp (argv[i], "--record") == 0)
      return TRUE;
  return FALSE;
}

static gboolean
parse_u64 (const char *option, const char *value, uint64_t *out,
           GError **error)
{
  char *end;
  guint64 n;

  errno = 0;
  n = g_ascii_isdigit (value[0]) ? g_ascii_strtoull (value, &end, 10) : 0;
  if (!g_ascii_isdigit (value[0]) || errno != 0 || *end != '\0' || n == 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "%s needs a number > 0 (got '%s')", option, value);
      return FALSE;
    }
  *out = n;
  return TRUE;
}

static gboolean
parse_pids (StRecordRun *rec, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (rec->pids_arg, ",", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      uint64_t pid;

      if (!parse_u64 ("-p", parts[i], &pid, error))
        return FALSE;
      if (pid > G_MAXINT32)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "-p: no process can have the pid %s", parts[i]);
          return FALSE;
        }
      int p = (int) pid;
      g_array_append_val (rec->pids, p);
    }
  return TRUE;
}

static gboolean
check_options (StRecordRun *rec, GError **error)
{
  uint64_t max_rate;
  g_autofree char *text = NULL;

  if (rec->freq_arg != NULL && rec->period_arg != NULL)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                   "give -F HZ or -c PERIOD, not both");
      return FALSE;
    }
  if ((rec->freq_arg != NULL && !parse_u64 ("-F", rec->freq_arg, &rec->freq,
                                            error))
      || (rec->period_arg != NULL
          && !parse_u64 ("-c", rec->period_arg, &rec->period, error))
      || (rec->pids_arg != NULL && !parse_pids (rec, error)))
    return FALSE;
  if (rec->freq == 0 && rec->period == 0)
    rec->freq = ST_LIVE_DEFAULT_FREQ;
  if (rec->freq > 0
      && g_file_get_contents ("/proc/sys/kernel/perf_event_max_sample_rate",
                              &text, NULL, NULL)
      && (max_rate = g_ascii_strtoull (text, NULL, 10)) > 0
      && rec->freq > max_rate)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "-F %" G_GUINT64_FORMAT ": above the kernel's limit, "
                   "kernel.perf_event_max_sample_rate = %" G_GUINT64_FORMAT,
                   rec->freq, max_rate);
      return FALSE;
    }
  if (rec->stack_size < 8 || rec->stack_size > STACK_SIZE_MAX
      || rec->stack_size % 8 != 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--stack-size needs a multiple of 8 from 8 to %d bytes "
                   "(got %d)", STACK_SIZE_MAX, rec->stack_size);
      return FALSE;
    }
  if (rec->mmap_pages < 0
      || (rec->mmap_pages & (rec->mmap_pages - 1)) != 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--mmap-pages needs a power of two (got %d)",
                   rec->mmap_pages);
      return FALSE;
    }
  if (rec->all_cpus && rec->pids->len > 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                   "give -a or -p, not both");
      return FALSE;
    }
  if (!rec->all_cpus && rec->pids->len == 0 && rec->command == NULL)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                   "--record needs what to record: -a, -p PID[,PID] or a "
                   "command after --");
      return FALSE;
    }
  return TRUE;
}

StRecordRun *
st_record_parse (int *argc, char ***argv, GError **error)
{
  StRecordRun *rec = g_new0 (StRecordRun, 1);
  int end = double_dash (*argc, *argv);
  int n;
  GOptionEntry entries[] = {
    { "record", 0, 0, G_OPTION_ARG_NONE, &rec->record,
      "Open the perf events and unwind as they come", NULL },
    { "all-cpus", 'a', 0, G_OPTION_ARG_NONE, &rec->all_cpus,
      "Record the whole system", NULL },
    { "pid", 'p', 0, G_OPTION_ARG_STRING, &rec->pids_arg,
      "Record these processes and their new children", "PID[,PID]" },
    { "freq", 'F', 0, G_OPTION_ARG_STRING, &rec->freq_arg,
      "Samples per second (default 999)", "HZ" },
    { "count", 'c', 0, G_OPTION_ARG_STRING, &rec->period_arg,
      "One sample every PERIOD events", "PERIOD" },
    { "event", 'e', 0, G_OPTION_ARG_STRING, &rec->event,
      "cpu-clock (default), task-clock, cycles, instructions", "EVENT" },
    { "stack-size", 0, 0, G_OPTION_ARG_INT, &rec->stack_size,
      "Bytes of user stack copied per sample (default 8192)", "N" },
    { "mmap-pages", 0, 0, G_OPTION_ARG_INT, &rec->mmap_pages,
      "Data pages per CPU ring (a power of two)", "N" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new (NULL);
  GOptionGroup *group = g_option_group_new ("record", "--record options",
                                            "Show the --record options",
                                            rec, NULL);

  rec->stack_size = ST_LIVE_DEFAULT_STACK_SIZE;
  rec->stop_fd = rec->child_fd = rec->stop_poll = -1;
  rec->pids = g_array_new (FALSE, FALSE, sizeof (int));
  rec->fds = g_array_new (FALSE, FALSE, sizeof (int));
  rec->fd_cpu = g_array_new (FALSE, FALSE, sizeof (guint));
  rec->rings = g_array_new (FALSE, FALSE, sizeof (StLiveRing));
  if (end + 1 < *argc)
    {
      rec->command = g_new0 (char *, *argc - end);
      for (int i = end + 1; i < *argc; i++)
        rec->command[i - end - 1] = g_strdup ((*argv)[i]);
    }
  else if (end < *argc)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                   "no command after --");
      goto fail;
    }
  for (int i = 1; i < end; i++)
    if (strcmp ((*argv)[i], "--output-format") == 0
        || g_str_has_prefix ((*argv)[i], "--output-format="))
      rec->output_format_given = TRUE;
  /* Parsed on a copy of what comes before "--": GOption would take the
     command's own options for ours.  */
  rec->argv = g_new0 (char *, end + 1);
  for (int i = 0; i < end; i++)
    rec->argv[i] = g_strdup ((*argv)[i]);
  g_option_group_add_entries (group, entries);
  g_option_context_set_main_group (ctx, group);
  g_option_context_set_ignore_unknown_options (ctx, TRUE);
  g_option_context_set_help_enabled (ctx, FALSE);
  /* (The strv form frees what it takes out.)  */
  if (!g_option_context_parse_strv (ctx, &rec->argv, error)
      || !check_options (rec, error))
    goto fail;
  n = (int) g_strv_length (rec->argv);
  rec->argv_view = g_memdup2 (rec->argv, sizeof (char *) * (gsize) (n + 1));
  *argc = n;
  *argv = rec->argv_view;
  return rec;

fail:
  st_record_free (rec);
  return NULL;
}

static gboolean
open_one (StRecordRun *rec, int pid, guint cpu_index, gboolean owner,
          GError **error)
{
  int fd;
  int rc = st_live_events_open (rec->events, pid, rec->cpus[cpu_index], &fd);

  if (rc != ST_OK)
    {
      /* An I/O error (not allowed, no such process) or an event this
         machine does not have: -p tells them apart.  */
      g_set_error_literal (error, ST_COMMAND_ERROR,
                           rc == ST_E_IO ? ST_COMMAND_ERROR_IO
                                         : ST_COMMAND_ERROR_FAILED,
                           st_live_events_error (rec->events));
      return FALSE;
    }
  g_array_append_val (rec->fds, fd);
  g_array_append_val (rec->fd_cpu, cpu_index);
  if (owner)
    {
      StLiveRing r = { fd, rec->cpus[cpu_index] };
      g_array_append_val (rec->rings, r);
    }
  return TRUE;
}

/* The threads of process PID, for -p.  */
static GArray *
threads_of (int pid, GError **error)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/task", pid);
  GDir *dir = g_dir_open (path, 0, NULL);
  GArray *tids = g_array_new (FALSE, FALSE, sizeof (int));
  const char *name;

  if (dir == NULL)
    {
      g_set_error (error, ST_COMMAND_ERROR, ST_COMMAND_ERROR_IO,
                   "-p %d: no such process",
                   pid);
      g_array_free (tids, TRUE);
      return NULL;
    }
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      int tid = atoi (name);
      if (tid > 0)
        g_array_append_val (tids, tid);
    }
  g_dir_close (dir);
  return tids;
}

/* -p: every thread on every CPU; the first event of each CPU owns its
   ring, the others are pointed at it once it is mapped.  A thread that
   ends meanwhile is skipped.  */
static gboolean
open_processes (StRecordRun *rec, GError **error)
{
  for (guint p = 0; p < rec->pids->len; p++)
    {
      int pid = g_array_index (rec->pids, int, p);
      g_autoptr (GArray) tids = threads_of (pid, error);
      guint opened = 0;

      if (tids == NULL)
        return FALSE;
      for (guint t = 0; t < tids->len; t++)
        {
          int tid = g_array_index (tids, int, t);
          g_autoptr (GError) local = NULL;
          guint c;

          for (c = 0; c < rec->n_cpus; c++)
            if (!open_one (rec, tid, c, rec->rings->len < rec->n_cpus,
                           &local))
              break;
          if (c == rec->n_cpus)
            opened++;
          else if (!g_error_matches (local, ST_COMMAND_ERROR,
                                     ST_COMMAND_ERROR_IO)
                   || kill (tid, 0) == 0)
            {
              g_propagate_error (error, g_steal_pointer (&local));
              return FALSE;
            }
        }
      if (opened == 0)
        {
          g_set_error (error, ST_COMMAND_ERROR, ST_COMMAND_ERROR_IO,
                       "-p %d: no such process", pid);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
open_events (StRecordRun *rec, GError **error)
{
  if (rec->pids->len > 0)
    return open_processes (rec, error);
  for (guint c = 0; c < rec->n_cpus; c++)
    if (!open_one (rec, rec->all_cpus ? -1 : st_record_child_pid (rec->child),
                   c, TRUE, error))
      return FALSE;
  return TRUE;
}

/* -p's events beyond the first of each CPU write to that one's ring.  */
static gboolean
share_rings (StRecordRun *rec, GError **error)
{
  for (guint i = rec->rings->len; i < rec->fds->len; i++)
    {
      int fd = g_array_index (rec->fds, int, i);
      int owner = g_array_index (rec->rings, StLiveRing,
                                 g_array_index (rec->fd_cpu, guint, i)).fd;

      if (ioctl (fd, PERF_EVENT_IOC_SET_OUTPUT, owner) != 0)
        {
          g_set_error (error, ST_COMMAND_ERROR, ST_COMMAND_ERROR_IO,
                       "cannot point a perf event at its CPU's ring: %s",
                       g_strerror (errno));
          return FALSE;
        }
    }
  return TRUE;
}

static void
set_events (StRecordRun *rec, unsigned long request)
{
  for (guint i = 0; i < rec->fds->len; i++)
    ioctl (g_array_index (rec->fds, int, i), request, 0);
}

/* Whether process PID still runs (not gone, not a zombie).  */
static gboolean
process_alive (int pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", pid);
  g_autofree char *text = NULL;
  const char *paren;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;
  paren = strrchr (text, ')');
  return paren == NULL || (paren[1] == ' ' && paren[2] != 'Z'
                           && paren[2] != 'X');
}

/* Asked by the ring thread every pass: a stop signal, the command's
   end, or (-p without a command) the end of every process followed.
   Stopping disables the events first, so the last pass reads all.  */
static gboolean
record_stopping (void)
{
  StRecordRun *rec = current;
  gboolean stop = rec->signal_stopping != NULL && rec->signal_stopping ();

  if (rec->child != NULL)
    stop = st_record_child_exited (rec->child) || stop;
  else if (!stop && rec->pids->len > 0
           && monotonic_ns () >= rec->next_alive_check)
    {
      rec->next_alive_check = monotonic_ns () + ALIVE_CHECK_NS;
      stop = TRUE;
      for (guint i = 0; i < rec->pids->len && stop; i++)
        stop = !process_alive (g_array_index (rec->pids, int, i));
    }
  if (stop)
    set_events (rec, PERF_EVENT_IOC_DISABLE);
  return stop;
}

/* What the kernel will not say about the processes that exist: -a, the
   whole of /proc (and the mount tables, for a capture); -p, those
   processes; a command has not run yet (its exec is recorded).  Then a
   name for each of their threads, as perf names them (the walk names a
   process by its command line, as Sysprof does); the main thread's too
   for perf.data output (one name for the whole process, as perf's).  */
static void
scan_processes (StRecordRun *rec, gboolean perf_output)
{
  int64_t now = monotonic_ns ();

  if (rec->all_cpus)
    st_live_source_scan_all (rec->source);
  else
    for (guint i = 0; i < rec->pids->len; i++)
      st_live_source_scan_process (rec->source,
                                   g_array_index (rec->pids, int, i));
  if (rec->all_cpus || rec->pids->len > 0)
    st_live_source_name_threads (rec->source, perf_output);
  rec->scan_ms = (double) (monotonic_ns () - now) / 1e6;
}

/* Data pages per ring: --mmap-pages, or half a second at the rate, all
   rings within the ring source's budget.  */
static guint
ring_pages (const StRecordRun *rec)
{
  long page = sysconf (_SC_PAGESIZE);
  uint64_t rate = st_live_events_rate (rec->events);
  guint pages;

  if (rec->mmap_pages > 0)
    return (guint) rec->mmap_pages;
  pages = st_live_ring_pages (rate, (uint32_t) rec->stack_size, page);
  while (pages > 8
         && (uint64_t) pages * (uint64_t) page * MAX (rec->n_cpus, 1)
            > ST_LIVE_RING_BUDGET)
    pages /= 2;
  return pages;
}

static int
poll_ms (const StRecordRun *rec)
{
  uint64_t rate = st_live_events_rate (rec->events);
  double fill_ms;

  if (rate == 0)
    return POLL_MS_MIN;   /* a hardware event's period: rate unknown */
  fill_ms = (double) rec->pages * (double) sysconf (_SC_PAGESIZE) * 1e3
            / ((double) rate * (double) (rec->stack_size + 768));
  return (int) CLAMP (fill_ms / 4, POLL_MS_MIN, POLL_MS_MAX);
}

/* What ends the ring thread's wait at once rather than at its next
   timer (up to POLL_MS_MAX): an eventfd that a stop signal writes
   (src/live.h), and the command's pidfd (readable once it ended),
   both in one epoll fd, which poll() sees readable when either is.
   -1 where none can be made: the thread's question every pass
   (record_stopping) still ends the run.  */
static int
stop_fd (StRecordRun *rec)
{
  struct epoll_event ev = { .events = EPOLLIN };

  rec->stop_fd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);
  st_live_set_wake_fd (rec->stop_fd);
#ifdef SYS_pidfd_open
  if (rec->child != NULL)
    rec->child_fd = (int) syscall (SYS_pidfd_open,
                                   st_record_child_pid (rec->child), 0);
#endif
  if (rec->child_fd < 0 || rec->stop_fd < 0)
    return rec->stop_fd;
  rec->stop_poll = epoll_create1 (EPOLL_CLOEXEC);
  if (rec->stop_poll < 0
      || epoll_ctl (rec->stop_poll, EPOLL_CTL_ADD, rec->stop_fd, &ev) != 0
      || epoll_ctl (rec->stop_poll, EPOLL_CTL_ADD, rec->child_fd, &ev) != 0)
    {
      if (rec->stop_poll >= 0)
        close (rec->stop_poll);
      rec->stop_poll = -1;
      return rec->stop_fd;
    }
  return rec->stop_poll;
}

/* The online CPUs into rec->cpus; FALSE with the message in
   rec->events.  */
static gboolean
online_cpus (StRecordRun *rec)
{
  size_t n = 0, max;

  if (st_live_events_online_cpus (rec->events, NULL, 0, &n) != ST_OK)
    return FALSE;
  max = MIN (n, (size_t) G_MAXUINT);
  rec->cpus = g_new0 (int, MAX (max, 1));
  if (st_live_events_online_cpus (rec->events, rec->cpus, max, &n) != ST_OK)
    return FALSE;
  rec->n_cpus = (guint) MIN (n, max);
  return TRUE;
}

gboolean
st_record_start (StRecordRun *rec, StOptions *opts, gboolean (*stopping) (void),
                 gboolean (*before_threads) (int child_pid, void *data),
                 void *data, GError **error)
{
  StLiveEventSpec spec = {
    .event = rec->event,
    .freq = rec->freq,
    .period = rec->period,
    .stack_size = (uint32_t) rec->stack_size,
    .inherit = !rec->all_cpus,
    .enable_on_exec = !rec->all_cpus && rec->pids->len == 0,
  };
  int stream_fd;

  if (opts->input != NULL || opts->input_fd >= 0
      || opts->format != ST_FILE_FORMAT_AUTO)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                   "--record reads its own perf events: no input "
                   "(-i, --input-fd, -f)");
      return FALSE;
    }
  /* Refused before anything runs, not after the command started.  */
  if (opts->output == NULL && opts->output_fd < 0 && opts->mode != ST_RUN_NONE
      && isatty (STDOUT_FILENO))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                   "--record writes its output to standard output, a "
                   "terminal here: give -o PATH (e.g. -o out.data)");
      return FALSE;
    }
  rec->events = st_live_events_new ();
  if (st_live_events_set_spec (rec->events, &spec) != ST_OK)
    {
      /* An unknown -e: a usage error.  */
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           st_live_events_error (rec->events));
      return FALSE;
    }
  if (!online_cpus (rec))
    {
      g_set_error_literal (error, ST_COMMAND_ERROR, ST_COMMAND_ERROR_IO,
                           st_live_events_error (rec->events));
      return FALSE;
    }
  if (rec->command != NULL
      && (rec->child = st_record_child_start (rec->command, error)) == NULL)
    return FALSE;
  if (!open_events (rec, error))
    return FALSE;
  rec->pages = ring_pages (rec);
  if (rec->mmap_pages > 0
      && (uint64_t) rec->mmap_pages * (uint64_t) sysconf (_SC_PAGESIZE)
         < (uint64_t) rec->stack_size + 1024)
    fprintf (stderr, "stacktrace: a ring of %d page(s) cannot hold a sample "
             "of %d bytes of stack: the kernel will drop them (LOST); give "
             "--mmap-pages more\n", rec->mmap_pages, rec->stack_size);
  rec->source = st_live_source_new ();
  if (st_live_source_open_events (rec->source,
                                  (const StLiveRing *) rec->rings->data,
                                  rec->rings->len, stop_fd (rec), rec->events,
                                  rec->pages) != ST_OK)
    {
      g_set_error_literal (error, ST_COMMAND_ERROR, ST_COMMAND_ERROR_FAILED,
                           st_live_source_error (rec->source));
      /* No source: nothing to count at the finish.  */
      g_clear_pointer (&rec->source, st_live_source_free);
      return FALSE;
    }
  if (!share_rings (rec, error))
    return FALSE;
  if (!rec->output_format_given)
    opts->output_format = opts->output != NULL
                          && g_str_has_suffix (opts->output, ".syscap")
                          ? ST_FILE_FORMAT_CAPTURE : ST_FILE_FORMAT_PERF;
  scan_processes (rec, opts->output_format == ST_FILE_FORMAT_PERF);
  current = rec;
  rec->signal_stopping = stopping;
  st_live_source_set_poll_ms (rec->source, poll_ms (rec));
  /* The events are open, their rings mapped, /proc walked and the
     command forked (held): the caller's last step before the first
     thread, the least-privilege sandbox (src/sandbox.h).  */
  if (before_threads != NULL
      && !before_threads (rec->child != NULL
                          ? (int) st_record_child_pid (rec->child) : 0,
                          data))
    {
      g_set_error (error, ST_COMMAND_ERROR, ST_COMMAND_ERROR_IO,
                   "the recording did not "
                   "start (said above)");
      return FALSE;
    }
  if (st_live_source_start (rec->source, record_stopping, &stream_fd)
      != ST_OK)
    {
      g_set_error_literal (error, ST_COMMAND_ERROR, ST_COMMAND_ERROR_FAILED,
                           st_live_source_error (rec->source));
      return FALSE;
    }
  if (!spec.enable_on_exec)
    set_events (rec, PERF_EVENT_IOC_ENABLE);
  if (rec->child != NULL && !st_record_child_release (rec->child, error))
    return FALSE;
  /* The stream comes through an in-process queue; the fd is polled.  */
  opts->input_fd = stream_fd;
  opts->input_read = st_live_source_read;
  opts->input_read_data = rec->source;
  opts->format = ST_FILE_FORMAT_PERF;
  return TRUE;
}

const void *
st_record_mounts (StRecordRun *rec, size_t *len)
{
  if (rec->source == NULL)
    {
      *len = 0;
      return NULL;
    }
  return st_live_source_mounts (rec->source, len);
}

static void
print_lost (const StRecordRun *rec, const StLiveCounts *c, FILE *out)
{
  long page = sysconf (_SC_PAGESIZE);

  if (c->lost_records == 0)
    return;
  fprintf (out, "stacktrace: the kernel dropped %" G_GUINT64_FORMAT
           " sample(s) or record(s) (%" G_GUINT64_FORMAT " LOST records, "
           "written to the output): the rings (%u pages, %u KiB per CPU) "
           "filled faster than they were read",
           c->lost_events, c->lost_records, c->ring_pages,
           (unsigned) ((uint64_t) c->ring_pages * (uint64_t) page / 1024));
  if ((uint64_t) c->ring_pages * (uint64_t) page
      < (uint64_t) rec->stack_size + 1024)
    fprintf (out, "; a sample of %d bytes of stack does not fit one at all",
             rec->stack_size);
  fprintf (out, "; give more --mmap-pages (%u or more), or a lower -F or "
           "--stack-size\n", c->ring_pages * 4 > 2048 ? 2048
                                                     : c->ring_pages * 4);
}

static double
cpu_ms (const struct rusage *ru)
{
  return (double) (ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1e3
         + (double) (ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e3;
}

/* What the recording cost: stacktrace's CPU (every thread: the rings,
   the unwinding, the output) per sample, and the command's.  */
static void
print_cpu (const StRecordRun *rec, uint64_t samples, FILE *out)
{
  struct rusage self, children;

  if (getrusage (RUSAGE_SELF, &self) != 0
      || getrusage (RUSAGE_CHILDREN, &children) != 0)
    return;
  fprintf (out, "stacktrace: CPU: %.1f ms for the recording (%.1f us per "
           "sample)", cpu_ms (&self),
           samples > 0 ? cpu_ms (&self) * 1e3 / (double) samples : 0.0);
  if (rec->child != NULL)
    fprintf (out, ", %.1f ms for %s", cpu_ms (&children),
             st_record_child_name (rec->child));
  fputc ('\n', out);
}

void
st_record_finish (StRecordRun *rec, FILE *out, gboolean quiet)
{
  StLiveCounts c = { 0 };
  unsigned fallbacks = st_live_events_fallbacks (rec->events);
  const char *problem;

  if (rec->source != NULL)
    st_live_source_stop (rec->source);
  if (rec->child != NULL)
    st_record_child_end (rec->child);
  set_events (rec, PERF_EVENT_IOC_DISABLE);
  if (rec->source == NULL)
    return;
  st_live_source_get_counts (rec->source, &c);
  print_lost (rec, &c, out);
  problem = st_live_source_first_problem (rec->source);
  if (problem != NULL)
    fprintf (out, "stacktrace: %" G_GUINT64_FORMAT " ring record(s) did not "
             "fit and %" G_GUINT64_FORMAT " pass(es) were given up (%"
             G_GUINT64_FORMAT " bytes); the first: %s\n", c.misfits,
             c.ring_problems, c.dropped_bytes, problem);
  if (rec->child != NULL)
    st_record_child_report (rec->child, out);
  if (quiet)
    return;
  fprintf (out, "stacktrace: recorded %s with %u event(s), %s at %"
           G_GUINT64_FORMAT "%s, %d bytes of stack%s%s; %u ring(s) of %u "
           "pages; %" G_GUINT64_FORMAT " records (%" G_GUINT64_FORMAT
           " samples) in %" G_GUINT64_FORMAT " passes, at most %.1f MiB "
           "waiting for the unwinder, samples cut to their filled stack "
           "(%.1f of %.1f MiB passed on); %u processes and %u mappings "
           "from /proc at start (%.1f ms)\n",
           rec->all_cpus ? "the system" : rec->pids->len > 0 ? "-p"
                                                             : rec->command[0],
           rec->fds->len, rec->event != NULL ? rec->event : "cpu-clock",
           rec->freq > 0 ? rec->freq : rec->period,
           rec->freq > 0 ? " Hz" : " events per sample", rec->stack_size,
           (fallbacks & ST_LIVE_FALLBACK_BUILD_ID)
           ? ", no build-ids from the kernel (before Linux 5.12)" : "",
           (fallbacks & ST_LIVE_FALLBACK_KERNEL)
           ? ", user space only (kernel.perf_event_paranoid)" : "",
           rec->rings->len, c.ring_pages, c.records, c.samples, c.passes,
           (double) c.queue_peak / (1 << 20),
           (double) c.stack_bytes_kept / (1 << 20),
           (double) c.stack_bytes / (1 << 20), c.scan_processes,
           c.scan_maps, rec->scan_ms);
  if (c.late_scans > 0)
    fprintf (out, "stacktrace: %" G_GUINT64_FORMAT " process(es) that "
             "started before the events were enabled read from /proc at "
             "their first sample or mapping (%" G_GUINT64_FORMAT
             " mappings)\n", c.late_scans, c.late_maps);
  print_cpu (rec, c.samples, out);
}

void
st_record_free (StRecordRun *rec)
{
  if (rec == NULL)
    return;
  if (rec->source != NULL)
    st_live_source_stop (rec->source);
  st_record_child_free (rec->child);
  if (current == rec)
    current = NULL;
  st_live_source_free (rec->source);
  if (rec->stop_fd >= 0)
    {
      st_live_set_wake_fd (-1);
      close (rec->stop_fd);
    }
  if (rec->child_fd >= 0)
    close (rec->child_fd);
  if (rec->stop_poll >= 0)
    close (rec->stop_poll);
  st_live_events_free (rec->events);
  for (guint i = 0; i < rec->fds->len; i++)
    close (g_array_index (rec->fds, int, i));
  g_array_free (rec->pids, TRUE);
  g_array_free (rec->fds, TRUE);
  g_array_free (rec->fd_cpu, TRUE);
  g_array_free (rec->rings, TRUE);
  g_free (rec->cpus);
  g_free (rec->pids_arg);
  g_free (rec->event);
  g_free (rec->freq_arg);
  g_free (rec->period_arg);
  g_strfreev (rec->command);
  g_strfreev (rec->argv);
  g_free (rec->argv_view);
  g_free (rec);
}
