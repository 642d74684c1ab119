/* The public live level (live.h) through libstacktrace-1.so, where no
   perf event is needed: results and messages of wrong calls and of an
   unknown event, the rate a spec gives, the online CPUs read twice,
   rings that are not perf events refused, and a pacer over a file.
   The real rings are integration/record.sh's and live-unwinder.sh's.
   Uses the public header only.  */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include <stacktrace-1/stacktrace.h>

static void
test_events (void)
{
  StLiveEvents *ev = st_live_events_new ();
  StLiveEventSpec spec = { .event = "no-such-event", .freq = 999,
                           .stack_size = 8192 };
  int fd = -1;
  size_t n = 0, again = 0;
  int *cpus;

  g_assert_cmpstr (st_live_events_error (ev), ==, "");
  g_assert_cmpint (st_live_events_open (ev, -1, 0, &fd), ==, ST_E_INVALID);
  g_assert_cmpint (st_live_events_set_spec (ev, &spec), ==, ST_E_INVALID);
  g_assert_nonnull (strstr (st_live_events_error (ev), "no-such-event"));
  g_assert_cmpuint (st_live_events_rate (ev), ==, 0);

  spec.event = NULL;             /* cpu-clock */
  g_assert_cmpint (st_live_events_set_spec (ev, &spec), ==, ST_OK);
  g_assert_cmpuint (st_live_events_rate (ev), ==, 999);
  spec.freq = 0;
  spec.period = 250000;          /* ns per sample */
  g_assert_cmpint (st_live_events_set_spec (ev, &spec), ==, ST_OK);
  g_assert_cmpuint (st_live_events_rate (ev), ==, 4000);
  g_assert_cmpuint (st_live_events_fallbacks (ev), ==, 0);

  g_assert_cmpint (st_live_events_online_cpus (ev, NULL, 0, &n), ==, ST_OK);
  g_assert_cmpuint (n, >=, 1);
  cpus = g_new0 (int, n);
  g_assert_cmpint (st_live_events_online_cpus (ev, cpus, n, &again), ==,
                   ST_OK);
  g_assert_cmpuint (again, ==, n);
  g_assert_cmpint (cpus[0], >=, 0);
  g_free (cpus);

  g_assert_cmpuint (st_live_ring_pages (0, 8192, 4096), ==, 0);
  g_assert_cmpuint (st_live_ring_pages (999, 8192, 4096), >=, 8);
  g_assert_cmpuint (st_live_ring_pages (1000000, 65528, 4096), ==, 2048);
  st_live_events_free (ev);
}

static void
test_source_unopened (void)
{
  StLiveSource *src = st_live_source_new ();
  StLiveCounts counts;
  size_t len = 1;
  int poll_fd = -1;
  char buf[8];

  g_assert_cmpint (st_live_source_scan_all (src), ==, ST_E_INVALID);
  g_assert_cmpstr (st_live_source_error (src), !=, "");
  g_assert_cmpint (st_live_source_scan_process (src, getpid ()), ==,
                   ST_E_INVALID);
  g_assert_cmpint (st_live_source_start (src, NULL, &poll_fd), ==,
                   ST_E_INVALID);
  g_assert_cmpint (poll_fd, ==, -1);
  g_assert_cmpint (st_live_source_get_counts (src, &counts), ==,
                   ST_E_INVALID);
  g_assert_null (st_live_source_mounts (src, &len));
  g_assert_cmpuint (len, ==, 0);
  g_assert_null (st_live_source_first_problem (src));
  errno = 0;
  g_assert_cmpint (st_live_source_read (src, buf, sizeof buf), ==, -1);
  g_assert_cmpint (errno, ==, EINVAL);
  st_live_source_stop (src);
  st_live_source_free (src);
  st_live_source_free (NULL);
}

/* A pipe is no perf event: its "ring" cannot be mapped.  */
static void
test_source_not_a_ring (void)
{
  StLiveSource *src = st_live_source_new ();
  int p[2];
  StLiveRing ring;
  int rc;

  g_assert_cmpint (pipe (p), ==, 0);
  ring.fd = p[0];
  ring.cpu = 0;
  rc = st_live_source_open (src, &ring, 1, -1, 8192);
  g_assert_cmpint (rc, <, 0);
  g_assert_cmpstr (st_live_source_error (src), !=, "");
  g_assert_cmpint (st_live_source_scan_all (src), ==, ST_E_INVALID);
  st_live_source_free (src);
  /* The fds are the caller's.  */
  g_assert_cmpint (close (p[0]), ==, 0);
  g_assert_cmpint (close (p[1]), ==, 0);
}

static void
test_pacer_file (void)
{
  StLivePacer *pacer = st_live_pacer_new ();
  StLivePacerCounts counts;
  g_autofree char *path = NULL;
  int fd = g_file_open_tmp ("test-live-XXXXXX", &path, NULL);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (st_live_pacer_input_fd (pacer), ==, -1);
  g_assert_cmpint (st_live_pacer_get_counts (pacer, &counts), ==,
                   ST_E_INVALID);
  g_assert_cmpint (st_live_pacer_start (pacer, fd, -1), ==, ST_OK);
  g_assert_cmpint (st_live_pacer_start (pacer, fd, -1), ==, ST_E_INVALID);
  g_assert_cmpint (st_live_pacer_input_fd (pacer), >=, 0);
  st_live_pacer_finish (pacer);
  g_assert_cmpint (st_live_pacer_get_counts (pacer, &counts), ==, ST_OK);
  g_assert_cmpint (counts.mode, ==, ST_LIVE_PACER_UNPACED);
  g_assert_cmpuint (counts.frames, ==, 0);
  g_assert_cmpstr (st_live_pacer_mode_name (counts.mode), ==, "unpaced");
  g_assert_cmpstr (st_live_pacer_mode_name (ST_LIVE_PACER_PACKETS), ==,
                   "packets");
  g_assert_false (st_live_pacer_reader_gone (pacer));
  st_live_pacer_free (pacer);
  close (fd);
  g_unlink (path);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/api/live/events", test_events);
  g_test_add_func ("/api/live/source-unopened", test_source_unopened);
  g_test_add_func ("/api/live/source-not-a-ring", test_source_not_a_ring);
  g_test_add_func ("/api/live/pacer-file", test_pacer_file);
  return g_test_run ();
}
