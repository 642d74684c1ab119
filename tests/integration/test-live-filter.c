/* stacktrace as a recorder runs it: forked with a pipe in and a pipe out
   on descriptors 7 and 8 (--input-fd/--output-fd), the committed fixture
   capture streamed in uneven chunks with pauses while the output is read
   concurrently.  Cases: the whole stream (the frames equal those of a
   batch run), SIGINT and SIGTERM mid-stream (the first reads on to the
   end of the input, the second stops cleanly after the last whole
   frame), SIGINT inherited as ignored (kept), SIGUSR1 (a summary on stderr while running), the reader
   closing its end (one message, exit status 1), and the --stats-file
   being rewritten while the input stalls.  These are liveness checks
   with generous time limits, not timings.

   Environment: STACKTRACE (the command), TESTS_DATA (tests/data).  */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <pthread.h>
#include <glib/gstdio.h>

#include "format/capture-types.h"

/* Where the child finds its pipes.  */
#define CHILD_IN_FD  7
#define CHILD_OUT_FD 8

/* How long a liveness check may wait: an upper bound only (every wait
   ends at its event), for a machine loaded far beyond its cores (5 s
   ran out under ASan at load 13 on 2 cores).  */
#define PATIENCE_US (60 * G_USEC_PER_SEC)

static const char *stacktrace;
static char *fixture_dir;
static uint8_t *fixture;
static gsize fixture_len;
static GByteArray *batch_output;   /* the same input, run from a file */
static gboolean child_ignores_sigint;   /* start it with SIGINT ignored */

/* --- the child and its pipes ------------------------------------------ */

typedef struct
{
  GPid pid;
  int in_fd;             /* our write end of its input */
  int out_fd;            /* our read end of its output */
  char *dir;             /* scratch: stderr, stats file */
  char *err_path;
  GThread *feeder;
  GThread *reader;

  /* pthreads, not GLib's futex-based locks, which ThreadSanitizer (the
     tsan suite) cannot see.  */
  pthread_mutex_t lock;
  pthread_cond_t changed;
  gsize fed;             /* input bytes written */
  gsize stall_at;        /* the feeder waits here until released */
  gboolean released;
  gboolean feed_failed;  /* EPIPE: the child went away */
  GByteArray *output;
  gboolean output_eof;
} Child;

/* As g_cond_wait_until: FALSE once DEADLINE (g_get_monotonic_time's
   microseconds) has passed.  */
static gboolean
cond_wait_until (pthread_cond_t *cond, pthread_mutex_t *lock, gint64 deadline)
{
  struct timespec ts = { deadline / G_USEC_PER_SEC,
                         (deadline % G_USEC_PER_SEC) * 1000 };

  return pthread_cond_timedwait (cond, lock, &ts) != ETIMEDOUT;
}

/* Uneven chunks, a pause every third: the child sees partial frames and
   an input that comes and goes.  */
static gpointer
feed (gpointer data)
{
  static const gsize chunks[] = { 1, 7, 4093, 13, 65537, 3, 24, 99991, 5,
                                  512 };
  Child *c = data;
  gsize done = 0;
  guint k = 0;

  while (done < fixture_len)
    {
      gsize n = MIN (chunks[k % G_N_ELEMENTS (chunks)], fixture_len - done);

      pthread_mutex_lock (&c->lock);
      while (done >= c->stall_at && !c->released)
        pthread_cond_wait (&c->changed, &c->lock);
      if (!c->released)
        n = MIN (n, c->stall_at - done);
      pthread_mutex_unlock (&c->lock);

      ssize_t w = write (c->in_fd, fixture + done, n);
      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0)
        {
          pthread_mutex_lock (&c->lock);
          c->feed_failed = TRUE;
          pthread_mutex_unlock (&c->lock);
          break;
        }
      done += (gsize) w;
      pthread_mutex_lock (&c->lock);
      c->fed = done;
      pthread_cond_broadcast (&c->changed);
      pthread_mutex_unlock (&c->lock);
      if (k++ % 3 == 0)
        g_usleep (5000);
    }
  close (c->in_fd);
  c->in_fd = -1;
  return NULL;
}

static gpointer
read_output (gpointer data)
{
  Child *c = data;
  uint8_t buf[65536];

  for (;;)
    {
      ssize_t n = read (c->out_fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR)
        continue;
      pthread_mutex_lock (&c->lock);
      if (n <= 0)
        c->output_eof = TRUE;
      else
        g_byte_array_append (c->output, buf, (guint) n);
      pthread_cond_broadcast (&c->changed);
      pthread_mutex_unlock (&c->lock);
      if (n <= 0)
        break;
    }
  return NULL;
}

/* Moves FD to TARGET in the child, whatever numbers the pipes got.  */
static void
move_fd (int fd, int target)
{
  if (fd == target)
    fcntl (fd, F_SETFD, 0);
  else if (dup2 (fd, target) < 0)
    _exit (127);
}

/* Starts stacktrace on the fixture with EXTRA arguments (NULL-ended);
   the feeder stops after STALL_AT input bytes until child_release.
   READ_OUTPUT: whether to read its output (FALSE: the caller closes it).  */
static Child *
child_start (const char *const *extra, gsize stall_at, gboolean read_out)
{
  Child *c = g_new0 (Child, 1);
  GError *error = NULL;
  int in[2], out[2];

  c->dir = g_dir_make_tmp ("st-live-XXXXXX", &error);
  g_assert_no_error (error);
  c->err_path = g_build_filename (c->dir, "stderr", NULL);
  c->stall_at = stall_at;
  c->output = g_byte_array_new ();
  pthread_condattr_t attr;
  pthread_condattr_init (&attr);
  /* g_get_monotonic_time's clock: the deadlines are in it.  */
  pthread_condattr_setclock (&attr, CLOCK_MONOTONIC);
  pthread_mutex_init (&c->lock, NULL);
  pthread_cond_init (&c->changed, &attr);
  pthread_condattr_destroy (&attr);

  g_assert_no_errno (pipe2 (in, O_CLOEXEC));
  g_assert_no_errno (pipe2 (out, O_CLOEXEC));
  int err = open (c->err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                  0644);
  g_assert_cmpint (err, >=, 0);

  GPtrArray *argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (char *) stacktrace);
  g_ptr_array_add (argv, (char *) "--input-fd=7");
  g_ptr_array_add (argv, (char *) "--output-fd=8");
  g_ptr_array_add (argv, (char *) "--symfs");
  g_ptr_array_add (argv, fixture_dir);
  for (guint i = 0; extra != NULL && extra[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) extra[i]);
  g_ptr_array_add (argv, NULL);

  c->pid = fork ();
  g_assert_cmpint (c->pid, >=, 0);
  if (c->pid == 0)
    {
      /* Out of the way of 7 and 8 first, then into place.  */
      int r = fcntl (in[0], F_DUPFD, 20), w = fcntl (out[1], F_DUPFD, 20);
      int e = fcntl (err, F_DUPFD, 20);
      int devnull = fcntl (open ("/dev/null", O_RDWR), F_DUPFD, 20);

      move_fd (r, CHILD_IN_FD);
      move_fd (w, CHILD_OUT_FD);
      move_fd (devnull, STDIN_FILENO);
      move_fd (devnull, STDOUT_FILENO);
      move_fd (e, STDERR_FILENO);
      signal (SIGPIPE, SIG_DFL);
      /* make check may run with SIGINT ignored (a background job), which
         stacktrace would keep.  */
      signal (SIGINT, child_ignores_sigint ? SIG_IGN : SIG_DFL);
      execv (stacktrace, (char **) argv->pdata);
      _exit (127);
    }
  g_ptr_array_free (argv, TRUE);
  close (in[0]);
  close (out[1]);
  close (err);
  c->in_fd = in[1];
  c->out_fd = out[0];
  c->feeder = g_thread_new ("feeder", feed, c);
  if (read_out)
    c->reader = g_thread_new ("reader", read_output, c);
  return c;
}

static void
child_release (Child *c)
{
  pthread_mutex_lock (&c->lock);
  c->released = TRUE;
  pthread_cond_broadcast (&c->changed);
  pthread_mutex_unlock (&c->lock);
}

/* Waits (at most PATIENCE_US) until the feeder has stalled and the child
   has written at least MIN_OUTPUT bytes.  */
static void
child_wait_stalled (Child *c, gsize min_output)
{
  gint64 deadline = g_get_monotonic_time () + PATIENCE_US;

  pthread_mutex_lock (&c->lock);
  while ((c->fed < c->stall_at || c->output->len < min_output)
         && cond_wait_until (&c->changed, &c->lock, deadline))
    ;
  g_assert_cmpuint (c->fed, ==, c->stall_at);
  g_assert_cmpuint (c->output->len, >=, min_output);
  pthread_mutex_unlock (&c->lock);
}

/* Joins the threads and reaps the child; returns its wait status.  */
static int
child_finish (Child *c)
{
  int status = 0;

  child_release (c);
  g_thread_join (c->feeder);
  if (c->reader != NULL)
    g_thread_join (c->reader);
  g_assert_cmpint (waitpid (c->pid, &status, 0), ==, c->pid);
  return status;
}

static char *
child_stderr (Child *c)
{
  char *text = NULL;

  g_assert_true (g_file_get_contents (c->err_path, &text, NULL, NULL));
  return text;
}

static void
child_free (Child *c)
{
  char *argv[] = { (char *) "rm", (char *) "-rf", c->dir, NULL };

  g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL,
                NULL, NULL, NULL);
  if (c->out_fd >= 0)
    close (c->out_fd);
  g_byte_array_unref (c->output);
  pthread_mutex_destroy (&c->lock);
  pthread_cond_destroy (&c->changed);
  g_free (c->err_path);
  g_free (c->dir);
  g_free (c);
}

static void
assert_exited (int status, int code)
{
  if (!WIFEXITED (status))
    g_error ("stacktrace did not exit normally (status 0x%x%s)", status,
             WIFSIGNALED (status) ? ", killed by a signal" : "");
  g_assert_cmpint (WEXITSTATUS (status), ==, code);
}

/* --- checking the output ---------------------------------------------- */

typedef struct
{
  const uint8_t *data;
  guint len;
  guint type;
} Frame;

/* The frames of a capture; fails unless it is a whole number of them
   after a 256-byte header.  */
static GArray *
split_frames (const GByteArray *capture)
{
  GArray *frames = g_array_new (FALSE, FALSE, sizeof (Frame));
  gsize off = ST_CAPTURE_HEADER_SIZE;

  g_assert_cmpuint (capture->len, >=, ST_CAPTURE_HEADER_SIZE);
  g_assert_cmpmem (capture->data, 4, "\x5e\x97\xca\xfd", 4);
  while (off < capture->len)
    {
      StCaptureFrame f;

      g_assert_cmpuint (capture->len - off, >=, sizeof f);
      memcpy (&f, capture->data + off, sizeof f);
      g_assert_cmpuint (f.len, >=, sizeof f);
      g_assert_cmpuint (f.len % 8, ==, 0);
      g_assert_cmpuint (f.len, <=, capture->len - off);
      Frame fr = { capture->data + off, f.len, f.type };
      g_array_append_val (frames, fr);
      off += f.len;
    }
  return frames;
}

/* Counters, and the LOG line that follows each set of them ("Unwinding:
   ...", domain stacktrace): written at times that depend on the run.  */
static gboolean
is_counter (const Frame *f)
{
  const StCaptureLog *log = (const StCaptureLog *) f->data;

  if (f->type == ST_CAPTURE_CTRDEF || f->type == ST_CAPTURE_CTRSET)
    return TRUE;
  return f->type == ST_CAPTURE_LOG && f->len > sizeof *log + 11
         && strncmp (log->domain, "stacktrace", sizeof log->domain) == 0
         && memcmp (log->message, "Unwinding: ", 11) == 0;
}

/* Every frame of LIVE but counters (and their LOG lines) equals the frame at the same place in
   the batch output (counters left out of both): the live run wrote a
   prefix of what the batch run wrote.  Returns how many.  */
static guint
assert_prefix_of_batch (const GByteArray *live)
{
  GArray *a = split_frames (live), *b = split_frames (batch_output);
  guint i = 0, j = 0, n = 0;

  for (;;)
    {
      while (i < a->len && is_counter (&g_array_index (a, Frame, i)))
        i++;
      while (j < b->len && is_counter (&g_array_index (b, Frame, j)))
        j++;
      if (i == a->len)
        break;
      g_assert_cmpuint (j, <, b->len);
      const Frame *x = &g_array_index (a, Frame, i);
      const Frame *y = &g_array_index (b, Frame, j);
      g_assert_cmpmem (x->data, x->len, y->data, y->len);
      i++, j++, n++;
    }
  g_array_unref (a);
  g_array_unref (b);
  return n;
}

static guint
count_type (const GByteArray *capture, guint type)
{
  GArray *frames = split_frames (capture);
  guint n = 0;

  for (guint i = 0; i < frames->len; i++)
    n += g_array_index (frames, Frame, i).type == type;
  g_array_unref (frames);
  return n;
}

static guint
count_lines_with (const char *text, const char *needle)
{
  guint n = 0;

  for (const char *p = text; (p = strstr (p, needle)) != NULL; p++)
    n++;
  return n;
}

/* --- the cases --------------------------------------------------------- */

static void
test_stream (void)
{
  Child *c = child_start (NULL, G_MAXSIZE, TRUE);
  int status = child_finish (c);
  g_autofree char *err = child_stderr (c);

  assert_exited (status, 0);
  g_assert_true (c->output_eof);
  /* The same frames as from a file, counters included (they depend on
     sample times only), after the header (end_time is patched only in a
     file).  */
  g_assert_cmpuint (c->output->len, ==, batch_output->len);
  g_assert_cmpmem (c->output->data + ST_CAPTURE_HEADER_SIZE,
                   c->output->len - ST_CAPTURE_HEADER_SIZE,
                   batch_output->data + ST_CAPTURE_HEADER_SIZE,
                   batch_output->len - ST_CAPTURE_HEADER_SIZE);
  g_assert_cmpuint (count_type (c->output, ST_CAPTURE_SAMPLE), >=, 299);
  g_assert_cmpuint (count_type (c->output, ST_CAPTURE_STACK_USER), ==, 0);
  g_assert_cmpuint (count_type (c->output, ST_CAPTURE_CTRDEF), ==, 1);
  g_assert_cmpuint (count_type (c->output, ST_CAPTURE_CTRSET), >=, 1);
  g_assert_nonnull (strstr (err, "299 samples, 299 unwound to the root"));
  child_free (c);
}

/* Stops mid-stream, inside a frame: what was written so far is whole
   frames, a prefix of the batch output.  */
/* Waits until the child's stderr holds NEEDLE (a liveness bound only:
   2 x PATIENCE_US, for a machine busy with other builds).  */
static void
wait_stderr (Child *c, const char *needle)
{
  gint64 deadline = g_get_monotonic_time () + 2 * PATIENCE_US;

  for (;;)
    {
      g_autofree char *err = child_stderr (c);
      if (strstr (err, needle) != NULL)
        return;
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_usleep (10000);
    }
}

/* The input is a pipe: the first signal lets the writer finish (the
   input is read to its end), the second stops at once.  */
static void
stop_by_signal (int sig, const char *name)
{
  g_autofree char *dir = g_dir_make_tmp ("st-live-stop-XXXXXX", NULL);
  g_autofree char *stats = g_build_filename (dir, "run.stats", NULL);
  const char *const extra[] = { "--stats-file", stats, NULL };
  Child *c = child_start (extra, fixture_len / 2 + 3, TRUE);

  child_wait_stalled (c, ST_CAPTURE_HEADER_SIZE + 1);

  g_assert_no_errno (kill (c->pid, sig));
  wait_stderr (c, "reading the input to its end");
  g_assert_no_errno (kill (c->pid, sig));
  /* No more input is needed for it to end.  */
  gint64 deadline = g_get_monotonic_time () + PATIENCE_US;
  pthread_mutex_lock (&c->lock);
  while (!c->output_eof && cond_wait_until (&c->changed, &c->lock, deadline))
    ;
  g_assert_true (c->output_eof);
  pthread_mutex_unlock (&c->lock);

  int status = child_finish (c);
  g_autofree char *err = child_stderr (c);
  g_autofree char *stopped = g_strdup_printf ("stopped by %s at input offset",
                                              name);
  assert_exited (status, 0);
  g_assert_nonnull (strstr (err, stopped));
  g_assert_nonnull (strstr (err, "stacktrace: total:"));
  guint n = assert_prefix_of_batch (c->output);
  g_assert_cmpuint (n, >, 10);
  g_assert_cmpuint (n, <, count_type (batch_output, ST_CAPTURE_SAMPLE));
  g_autofree char *final = NULL;
  g_assert_true (g_file_get_contents (stats, &final, NULL, NULL));
  g_assert_nonnull (strstr (final, "\nstate=stopped\n"));
  g_unlink (stats);
  g_rmdir (dir);
  child_free (c);
}

static void
test_sigint (void)
{
  stop_by_signal (SIGINT, "SIGINT");
}

static void
test_sigterm (void)
{
  stop_by_signal (SIGTERM, "SIGTERM");
}

/* One signal, then the writer finishes: every frame is written, exit
   status 0, state=stopped.  */
static void
test_sigint_drains (void)
{
  g_autofree char *dir = g_dir_make_tmp ("st-live-drain-XXXXXX", NULL);
  g_autofree char *stats = g_build_filename (dir, "run.stats", NULL);
  const char *const extra[] = { "--stats-file", stats, NULL };
  Child *c = child_start (extra, fixture_len / 2 + 3, TRUE);

  child_wait_stalled (c, ST_CAPTURE_HEADER_SIZE + 1);
  g_assert_no_errno (kill (c->pid, SIGINT));
  wait_stderr (c, "reading the input to its end");
  int status = child_finish (c);   /* feeds the rest, then closes */
  g_autofree char *err = child_stderr (c);
  assert_exited (status, 0);
  g_assert_nonnull (strstr (err, "after reading the input to its end"));
  assert_prefix_of_batch (c->output);
  g_assert_cmpuint (count_type (c->output, ST_CAPTURE_SAMPLE), ==,
                    count_type (batch_output, ST_CAPTURE_SAMPLE));
  g_autofree char *final = NULL;
  g_assert_true (g_file_get_contents (stats, &final, NULL, NULL));
  g_assert_nonnull (strstr (final, "\nstate=stopped\n"));
  g_unlink (stats);
  g_rmdir (dir);
  child_free (c);
}

/* SIGINT inherited as ignored stays ignored: the run goes on to the end
   (state=finished).  */
static void
test_sigint_ignored (void)
{
  child_ignores_sigint = TRUE;
  Child *c = child_start (NULL, fixture_len / 2 + 3, TRUE);
  child_ignores_sigint = FALSE;

  child_wait_stalled (c, ST_CAPTURE_HEADER_SIZE + 1);
  g_assert_no_errno (kill (c->pid, SIGINT));
  g_assert_no_errno (kill (c->pid, SIGINT));
  int status = child_finish (c);
  g_autofree char *err = child_stderr (c);
  assert_exited (status, 0);
  g_assert_null (strstr (err, "stopped by"));
  g_assert_cmpuint (count_type (c->output, ST_CAPTURE_SAMPLE), ==,
                    count_type (batch_output, ST_CAPTURE_SAMPLE));
  child_free (c);
}

static void
test_sigusr1 (void)
{
  Child *c = child_start (NULL, fixture_len / 3, TRUE);
  g_autofree char *err = NULL;

  child_wait_stalled (c, ST_CAPTURE_HEADER_SIZE + 1);
  g_assert_no_errno (kill (c->pid, SIGUSR1));
  gint64 deadline = g_get_monotonic_time () + PATIENCE_US;
  for (;;)
    {
      err = child_stderr (c);
      if (strstr (err, "stacktrace: total:") != NULL
          || g_get_monotonic_time () > deadline)
        break;
      g_clear_pointer (&err, g_free);
      g_usleep (20000);
    }
  /* Still running, blocked on its input, and it said so.  (What it said
     is shown when it did not.)  */
  if (strstr (err, "stacktrace: total:") == NULL)
    g_printerr ("the child's standard error:\n%s\n", err);
  g_assert_nonnull (strstr (err, "statistics so far"));
  g_assert_nonnull (strstr (err, "stacktrace: total:"));
  g_assert_cmpint (waitpid (c->pid, NULL, WNOHANG), ==, 0);
  g_clear_pointer (&err, g_free);

  int status = child_finish (c);
  err = child_stderr (c);
  assert_exited (status, 0);
  g_assert_cmpuint (count_lines_with (err, "stacktrace: total:"), ==, 2);
  g_assert_nonnull (strstr (err, "299 samples, 299 unwound to the root"));
  assert_prefix_of_batch (c->output);
  g_assert_cmpuint (count_type (c->output, ST_CAPTURE_SAMPLE), ==,
                    count_type (batch_output, ST_CAPTURE_SAMPLE));
  child_free (c);
}

/* The reader goes away: one message, exit status 1, no signal death.  */
static void
test_epipe (void)
{
  Child *c = child_start (NULL, fixture_len / 4, FALSE);

  child_wait_stalled (c, 0);
  close (c->out_fd);
  c->out_fd = -1;

  int status = child_finish (c);
  g_autofree char *err = child_stderr (c);
  assert_exited (status, 1);
  g_assert_cmpuint (count_lines_with (err, "broken pipe"), ==, 1);
  g_assert_cmpuint (count_lines_with (err, "\n"), <=, 6);
  g_assert_nonnull (strstr (err, "stacktrace: total:"));
  child_free (c);
}

/* The stats file is rewritten about every second while nothing comes
   in; each snapshot is complete (renamed into place).  */
static void
test_stats_while_stalled (void)
{
  g_autofree char *dir = g_dir_make_tmp ("st-live-stats-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "run.stats", NULL);
  const char *const extra[] = { "--stats-file", path, NULL };
  Child *c = child_start (extra, fixture_len / 2, TRUE);
  guint changes = 0;
  g_autofree char *last = NULL;

  child_wait_stalled (c, ST_CAPTURE_HEADER_SIZE + 1);
  gint64 deadline = g_get_monotonic_time () + PATIENCE_US;
  while (changes < 2 && g_get_monotonic_time () < deadline)
    {
      char *now = NULL;

      if (g_file_get_contents (path, &now, NULL, NULL))
        {
          g_assert_true (g_str_has_prefix (now, "version=1\n"));
          g_assert_nonnull (strstr (now, "\ntop.count="));   /* whole */
          if (last != NULL && strcmp (now, last) != 0)
            changes++;
          g_free (last);
          last = now;
        }
      g_usleep (50000);
    }
  /* Two rewrites within the patience: the input stalled all along.  */
  g_assert_cmpuint (changes, >=, 2);
  g_assert_nonnull (strstr (last, "\nstate=running\n"));
  g_assert_null (strstr (last, "\nsamples=0\n"));

  int status = child_finish (c);
  assert_exited (status, 0);
  g_autofree char *final = NULL;
  g_assert_true (g_file_get_contents (path, &final, NULL, NULL));
  g_assert_nonnull (strstr (final, "\nstate=finished\n"));
  g_assert_nonnull (strstr (final, "\nsamples=299\n"));
  g_assert_nonnull (strstr (final, "\nunwound_to_root=299\n"));
  /* No temporary file left beside it.  */
  GDir *d = g_dir_open (dir, 0, NULL);
  guint entries = 0;
  while (g_dir_read_name (d) != NULL)
    entries++;
  g_dir_close (d);
  g_assert_cmpuint (entries, ==, 1);
  g_unlink (path);
  g_rmdir (dir);
  child_free (c);
}

/* The reference: the same input from a file, into a file.  */
static GByteArray *
run_batch (void)
{
  GError *error = NULL;
  g_autofree char *in = g_build_filename (fixture_dir, "fixture.syscap", NULL);
  g_autofree char *dir = g_dir_make_tmp ("st-live-batch-XXXXXX", &error);
  g_autofree char *out = g_build_filename (dir, "batch.syscap", NULL);
  const char *argv[] = { stacktrace, "-q", "-i", in, "-o", out, "--symfs",
                         fixture_dir, NULL };
  int status = 0;
  char *data = NULL;
  gsize len = 0;

  g_assert_no_error (error);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, 0, NULL, NULL,
                               NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_true (g_file_get_contents (out, &data, &len, &error));
  g_unlink (out);
  g_rmdir (dir);
  return g_byte_array_new_take ((guint8 *) data, len);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  signal (SIGPIPE, SIG_IGN);

  stacktrace = g_getenv ("STACKTRACE");
  const char *data = g_getenv ("TESTS_DATA");
  if (stacktrace == NULL || data == NULL)
    {
      g_test_message ("STACKTRACE and TESTS_DATA must be set (make check "
                      "does)");
      return 77;
    }
  fixture_dir = g_build_filename (data, "fixture", NULL);
  g_autofree char *capture = g_build_filename (fixture_dir, "fixture.syscap",
                                               NULL);
  g_assert_true (g_file_get_contents (capture, (char **) &fixture,
                                      &fixture_len, NULL));
  batch_output = run_batch ();

  g_test_add_func ("/live/stream", test_stream);
  g_test_add_func ("/live/sigint", test_sigint);
  g_test_add_func ("/live/sigterm", test_sigterm);
  g_test_add_func ("/live/sigint-drains", test_sigint_drains);
  g_test_add_func ("/live/sigint-ignored", test_sigint_ignored);
  g_test_add_func ("/live/sigusr1", test_sigusr1);
  g_test_add_func ("/live/epipe", test_epipe);
  g_test_add_func ("/live/stats-while-stalled", test_stats_while_stalled);
  int rc = g_test_run ();

  g_byte_array_unref (batch_output);
  g_free (fixture);
  g_free (fixture_dir);
  return rc;
}
