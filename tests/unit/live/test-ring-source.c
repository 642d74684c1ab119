/* Unit tests: the time the walk of /proc is given (st_ring_source_
   opened_at) precedes every record of the rings.  The live unwinder
   used to take it after the rings were mapped: a process that ran
   between the two (a workload that exec'd before the mapping, whose
   ld.so then mapped its libraries and was sampled) had records in the
   rings older than the walk's, and in time order its first samples came
   before the walk's mappings of it, unwound without its executable.
   Here that interleaving is forced: a child maps a file when told, once
   before the ring is mapped (the kernel drops that record: no buffer)
   and once after, before the time the old code would have taken.  Needs
   perf_event_open (exit 77 where it is not allowed).  */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "format/reader.h"
#include "live/ring-source.h"
#include "live/sysprof-layout.h"

static int64_t
monotonic_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The child: for every byte on CMD, maps FILE executable (an MMAP2
   record), then answers on ACK.  Ends at the end of CMD.  */
static void G_GNUC_NORETURN
child_main (int cmd, int ack, int file)
{
  char c;

  while (read (cmd, &c, 1) == 1)
    {
      if (mmap (NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, file, 0)
          == MAP_FAILED)
        _exit (1);
      if (write (ack, &c, 1) != 1)
        _exit (1);
    }
  _exit (0);
}

typedef struct
{
  pid_t pid;
  int cmd, ack;
} Child;

static void
child_map (const Child *c)
{
  char byte = 'm';

  g_assert_cmpint (write (c->cmd, &byte, 1), ==, 1);
  g_assert_cmpint (read (c->ack, &byte, 1), ==, 1);
}

/* An event on the child as Sysprof opens them (its clock, the records
   of mappings), enabled.  -1 with errno set when not allowed.  */
static int
open_event_waking (pid_t pid, uint32_t wakeup_events)
{
  struct perf_event_attr attr;

  memset (&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.sample_period = 1000000;
  attr.sample_type = ST_SYSPROF_SAMPLE_TYPE;
  attr.sample_regs_user = ST_SYSPROF_REGS_X86_64;
  attr.sample_stack_user = 8192;
  attr.disabled = 1;
  attr.mmap = 1;
  attr.mmap2 = 1;
  attr.comm = 1;
  attr.task = 1;
  attr.sample_id_all = 1;
  attr.use_clockid = 1;
  attr.clockid = CLOCK_MONOTONIC;
  attr.wakeup_events = wakeup_events;
  int fd = (int) syscall (SYS_perf_event_open, &attr, pid, -1, -1,
                          PERF_FLAG_FD_CLOEXEC);
  if (fd >= 0 && ioctl (fd, PERF_EVENT_IOC_ENABLE, 0) != 0)
    {
      int err = errno;
      close (fd);
      errno = err;
      return -1;
    }
  return fd;
}

static int
open_event (pid_t pid)
{
  return open_event_waking (pid, 0);
}

static gboolean stop_now;
static gboolean skipped;

static gboolean
stopping (void)
{
  return g_atomic_int_get (&stop_now);
}

/* The reader of S's STREAM, as the live unwinder makes it.  */
static StReader *
read_stream (StRingSource *s, int stream)
{
  GError *error = NULL;
  StReader *r = st_reader_new_pulled (stream, st_ring_source_read, s,
                                      ST_FORMAT_PERF, 0, NULL, NULL, &error);
  g_assert_no_error (error);
  return r;
}

static void
test_walk_time (void)
{
  int cmd[2], ack[2];
  int file = open ("/proc/self/exe", O_RDONLY | O_CLOEXEC);

  g_assert_cmpint (file, >=, 0);
  g_assert_cmpint (pipe (cmd), ==, 0);
  g_assert_cmpint (pipe (ack), ==, 0);
  pid_t pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      close (cmd[1]);
      close (ack[0]);
      child_main (cmd[0], ack[1], file);
    }
  close (cmd[0]);
  close (ack[1]);
  Child child = { pid, cmd[1], ack[0] };

  int fd = open_event (pid);
  if (fd < 0)
    {
      int err = errno;
      close (child.cmd);
      waitpid (pid, NULL, 0);
      /* ENOSYS: a kernel without perf events, or qemu-user.  */
      g_assert_true (err == EACCES || err == EPERM || err == ENOENT
                     || err == ENODEV || err == EOPNOTSUPP || err == EINVAL
                     || err == ENOSYS);
      g_test_skip ("perf events not allowed here");
      skipped = TRUE;
      return;
    }

  /* Before the ring is mapped: the kernel has nowhere to put it.  */
  child_map (&child);
  int64_t before = monotonic_ns ();
  StRingFd ring = { fd, 0 };
  GError *error = NULL;
  StRingSource *s = st_ring_source_new (&ring, 1, -1, 8192, &error);
  g_assert_no_error (error);
  int64_t opened_at = st_ring_source_opened_at (s);
  g_assert_cmpint (opened_at, >=, before);

  /* After the mapping, before the walk would be timed the old way (the
     time just after _new): a record the rings hold that the walk's
     time must not follow.  */
  child_map (&child);
  int64_t old_walk_time = monotonic_ns ();

  /* Known, as the walk would have made it: no reading of its /proc.  */
  g_hash_table_insert (st_ring_source_known_pids (s), GINT_TO_POINTER (pid),
                       NULL);
  int stream = st_ring_source_start (s, stopping, &error);
  g_assert_no_error (error);
  g_atomic_int_set (&stop_now, TRUE);

  StReader *r = read_stream (s, stream);
  StEvent ev;
  guint n_maps = 0;
  int rc;
  while ((rc = st_reader_next (r, &ev, &error)) > 0)
    if (ev.kind == ST_EVENT_MAP && ev.pid == pid)
      {
        n_maps++;
        /* The second mapping only, newer than the walk's time, but
           older than the old one.  */
        g_assert_cmpint (ev.time, >, opened_at);
        g_assert_cmpint (ev.time, <, old_walk_time);
      }
  g_assert_no_error (error);
  g_assert_cmpint (rc, ==, 0);
  g_assert_cmpuint (n_maps, ==, 1);
  st_reader_free (r);
  st_ring_source_stop (s);

  StRingSourceCounts counts;
  st_ring_source_counts (s, &counts);
  g_assert_cmpuint (counts.misfits, ==, 0);
  g_assert_cmpuint (counts.late_scans, ==, 0);
  st_ring_source_free (s);
  close (fd);
  close (child.cmd);
  close (child.ack);
  int status;
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  close (file);
}

/* The child of test_stop_budget: waits for a byte on CMD, then spends
   about 100 ms of CPU (a hundred samples at 1 ms) and ends.  */
static void G_GNUC_NORETURN
spin_main (int cmd)
{
  struct timespec ts;
  char c;
  volatile uint64_t sink = 0;

  if (read (cmd, &c, 1) != 1)
    _exit (1);
  do
    {
      for (int i = 0; i < 100000; i++)
        sink += (uint64_t) i;
      clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
    }
  while (ts.tv_nsec < 100000000 && ts.tv_sec == 0);
  _exit (0);
}

/* A child running spin_main, started by a byte on *CMD_W.  */
static pid_t
start_spinner (int *cmd_w)
{
  int cmd[2];

  g_assert_cmpint (pipe (cmd), ==, 0);
  pid_t pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      close (cmd[1]);
      spin_main (cmd[0]);
    }
  close (cmd[0]);
  *cmd_w = cmd[1];
  return pid;
}

/* A reader that begins after the stop's budget is spent (the ring holds
   a hundred samples, the stop comes at once, the budget is 1 ms): the
   samples it is not handed are counted, the LOST record at the end of
   the stream says how many, every other record is handed, and none is
   handed in part (the stream stays whole: the reader sees no damage).
   Whether the stop came before the reader began is up to the
   scheduler: the sums hold either way.  */
static void
test_stop_budget (void)
{
  int cmd_w;
  GError *error = NULL;

  if (skipped)
    {
      g_test_skip ("perf events not allowed here");
      return;
    }
  pid_t pid = start_spinner (&cmd_w);
  int fd = open_event (pid);
  g_assert_cmpint (fd, >=, 0);
  StRingFd ring = { fd, 0 };
  StRingSource *s = st_ring_source_new (&ring, 1, -1, 8192, &error);
  g_assert_no_error (error);
  g_assert_cmpint (write (cmd_w, "g", 1), ==, 1);
  int status;
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);

  g_hash_table_insert (st_ring_source_known_pids (s), GINT_TO_POINTER (pid),
                       NULL);
  st_ring_source_set_stop_budget (s, 1);
  g_atomic_int_set (&stop_now, TRUE);
  int stream = st_ring_source_start (s, stopping, &error);
  g_assert_no_error (error);
  /* (Most likely past the budget by now.)  */
  g_usleep (50000);
  StReader *r = read_stream (s, stream);
  StEvent ev;
  uint64_t samples = 0, lost = 0, lost_records = 0, exits = 0;
  int rc;
  while ((rc = st_reader_next (r, &ev, &error)) > 0)
    if (ev.kind == ST_EVENT_STACK_USER || ev.kind == ST_EVENT_SAMPLE)
      samples++;
    else if (ev.kind == ST_EVENT_LOST)
      {
        lost_records++;
        lost += ev.lost.count;
      }
    else if (ev.kind == ST_EVENT_EXIT && ev.pid == pid)
      exits++;
  g_assert_no_error (error);
  g_assert_cmpint (rc, ==, 0);
  st_reader_free (r);
  st_ring_source_stop (s);

  StRingSourceCounts counts;
  st_ring_source_counts (s, &counts);
  g_test_message ("%" G_GUINT64_FORMAT " samples handed, %" G_GUINT64_FORMAT
                  " dropped", samples, counts.stop_dropped);
  g_assert_cmpuint (counts.samples, >, 0);
  g_assert_cmpuint (samples + counts.stop_dropped, ==, counts.samples);
  g_assert_cmpuint (lost, ==, counts.stop_dropped);
  g_assert_cmpuint (lost_records, ==, counts.stop_dropped > 0 ? 1 : 0);
  g_assert_cmpuint (counts.lost_events, ==, counts.stop_dropped);
  /* The child's end is not a sample: handed whatever the budget.  */
  g_assert_cmpuint (exits, ==, 1);
  st_ring_source_free (s);
  close (fd);
  close (cmd_w);
}

/* Passes are spaced (ST_RING_SOURCE_MIN_PASS_MS): with the kernel
   waking the reader at every sample, a hundred samples come in a few
   passes, not a hundred (without the spacing: one per sample, past the
   bound on a machine with time for the child), and every sample is
   handed.  The bound is loose (a pass per poll timer at most) and holds
   on a loaded machine: it is counted against the time the run took.  */
static void
test_pass_spacing (void)
{
  int cmd_w;
  GError *error = NULL;

  if (skipped)
    {
      g_test_skip ("perf events not allowed here");
      return;
    }
  g_atomic_int_set (&stop_now, FALSE);
  pid_t pid = start_spinner (&cmd_w);
  int fd = open_event_waking (pid, 1);
  g_assert_cmpint (fd, >=, 0);
  StRingFd ring = { fd, 0 };
  StRingSource *s = st_ring_source_new (&ring, 1, -1, 8192, &error);
  g_assert_no_error (error);
  g_hash_table_insert (st_ring_source_known_pids (s), GINT_TO_POINTER (pid),
                       NULL);
  int stream = st_ring_source_start (s, stopping, &error);
  g_assert_no_error (error);
  int64_t t0 = monotonic_ns ();
  g_assert_cmpint (write (cmd_w, "g", 1), ==, 1);
  int status;
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  g_atomic_int_set (&stop_now, TRUE);

  StReader *r = read_stream (s, stream);
  StEvent ev;
  uint64_t samples = 0;
  int rc;
  while ((rc = st_reader_next (r, &ev, &error)) > 0)
    if (ev.kind == ST_EVENT_STACK_USER && ev.pid == pid)
      samples++;
  g_assert_no_error (error);
  g_assert_cmpint (rc, ==, 0);
  int64_t ms = (monotonic_ns () - t0) / 1000000;
  st_reader_free (r);
  st_ring_source_stop (s);

  StRingSourceCounts counts;
  st_ring_source_counts (s, &counts);
  g_test_message ("%" G_GUINT64_FORMAT " samples in %" G_GUINT64_FORMAT
                  " passes, %" G_GINT64_FORMAT " ms", samples, counts.passes,
                  ms);
  g_assert_cmpuint (samples, ==, counts.samples);
  g_assert_cmpuint (samples, >=, 50);
  g_assert_cmpuint (counts.passes, <=, (uint64_t) ms / ST_RING_SOURCE_POLL_MS + 3);
  st_ring_source_free (s);
  close (fd);
  close (cmd_w);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ring-source/walk-time", test_walk_time);
  g_test_add_func ("/ring-source/stop-budget", test_stop_budget);
  g_test_add_func ("/ring-source/pass-spacing", test_pass_spacing);
  int rc = g_test_run ();
  return rc == 0 && skipped ? 77 : rc;
}
