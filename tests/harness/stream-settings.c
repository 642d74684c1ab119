/* A stream set up as the stacktrace command sets its own, through the
   public header alone: the input opened by the caller and its header
   read before the run (st_stream_open_input), the output in the
   input's format (ST_FILE_FORMAT_AUTO), the chains into a descriptor,
   the command's other settings, a check and an idle function, frames
   put first into the output, and the run's outcome.  For
   integration/library-stream.sh, which compares the files with the
   command's.

     stream-settings [--symfs DIR] [--no-demangle] [--no-host-files]
                     [--truncate-stack N] [--no-counters]
                     [--counters-interval MS] [--stop-after N]
                     [--frame TEXT] IN OUT CHAINS

   --stop-after N: the check function stops the run at its Nth call.
   --frame TEXT: a FILE_CHUNK frame holding TEXT put first.
   Prints the input's format, the outcome and the check's calls.  */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stacktrace-1/stacktrace.h>

static int failed;

#define CHECK(cond) \
  do { if (!(cond)) { fprintf (stderr, "stream-settings: %s:%d: %s\n", \
                               __FILE__, __LINE__, #cond); failed = 1; } } \
  while (0)

typedef struct
{
  StStream *stream;
  long calls;
  long stop_at;              /* 0: never */
  long offset_back;          /* the input offset went backwards */
  uint64_t last_offset;
} Check;

static int
on_check (void *user_data)
{
  Check *c = user_data;
  uint64_t offset = st_stream_get_input_offset (c->stream);

  if (offset < c->last_offset)
    c->offset_back++;
  c->last_offset = offset;
  c->calls++;
  return c->stop_at == 0 || c->calls < c->stop_at;
}

static void
on_idle (void *user_data)
{
  (*(long *) user_data)++;
}

static void
on_message (StMessageKind kind, const char *message, void *user_data)
{
  (void) kind;
  (void) user_data;
  fprintf (stderr, "stream-settings: %s\n", message);
}

/* A FILE_CHUNK frame (Sysprof's layout: the frame, a word with is_last
   and the data's length, a 256-byte path, the data), 8-byte aligned.  */
static size_t
file_chunk (unsigned char *buf, size_t size, const char *text)
{
  size_t n = strlen (text), len = (24 + 4 + 256 + n + 7) / 8 * 8;
  uint16_t len16 = (uint16_t) len;
  uint32_t word = 1u | ((uint32_t) n << 16);

  if (len > size || n > 0xffff)
    return 0;
  memset (buf, 0, len);
  memcpy (buf, &len16, 2);
  buf[16] = 13;                      /* FILE_CHUNK */
  memcpy (buf + 24, &word, 4);
  strcpy ((char *) buf + 28, "/stream-settings/mountinfo");
  memcpy (buf + 28 + 256, text, n);
  return len;
}

/* --pull: the input read through a function, as a transport of the
   caller's own would give it, with a pipe that is always readable as
   the descriptor polled.  */
typedef struct
{
  int fd;
  unsigned long calls;
} Pull;

static ssize_t
pull_read (void *data, void *buf, size_t len)
{
  Pull *pull = data;

  pull->calls++;
  return read (pull->fd, buf, len);
}

int
main (int argc, char **argv)
{
  const char *symfs = NULL, *frame_text = NULL;
  int demangle = 1, host_files = 1, counters = 1, pulled = 0;
  Pull pull = { -1, 0 };
  unsigned interval = 0;
  uint64_t truncate = 0;
  Check check = { 0 };
  long idle = 0;
  int arg = 1, rc_load;

  for (; arg < argc && strncmp (argv[arg], "--", 2) == 0; arg++)
    {
      const char *o = argv[arg];
      if (strcmp (o, "--pull") == 0)
        pulled = 1;
      else if (strcmp (o, "--no-demangle") == 0)
        demangle = 0;
      else if (strcmp (o, "--no-host-files") == 0)
        host_files = 0;
      else if (strcmp (o, "--no-counters") == 0)
        counters = 0;
      else if (arg + 1 < argc && strcmp (o, "--symfs") == 0)
        symfs = argv[++arg];
      else if (arg + 1 < argc && strcmp (o, "--truncate-stack") == 0)
        truncate = strtoull (argv[++arg], NULL, 10);
      else if (arg + 1 < argc && strcmp (o, "--counters-interval") == 0)
        interval = (unsigned) strtoul (argv[++arg], NULL, 10);
      else if (arg + 1 < argc && strcmp (o, "--stop-after") == 0)
        check.stop_at = strtol (argv[++arg], NULL, 10);
      else if (arg + 1 < argc && strcmp (o, "--frame") == 0)
        frame_text = argv[++arg];
      else
        break;
    }
  if (arg != argc - 3)
    {
      fprintf (stderr, "usage: stream-settings [OPTIONS] IN OUT CHAINS\n");
      return 2;
    }
  int in_fd = open (argv[arg], O_RDONLY | O_CLOEXEC);
  int chains_fd = open (argv[arg + 2], O_WRONLY | O_CREAT | O_TRUNC
                                       | O_CLOEXEC, 0644);
  if (in_fd < 0 || chains_fd < 0)
    {
      perror ("stream-settings");
      return 1;
    }

  st_install_mapped_file_guard ();
  rc_load = st_load_debuginfod ();
  CHECK (rc_load == ST_OK || rc_load == ST_E_UNSUPPORTED);
  StStream *s = st_stream_new ();
  StStreamOutcome outcome;
  check.stream = s;
  CHECK (st_stream_get_outcome (s, &outcome) == ST_E_INVALID);  /* no run */
  CHECK (st_stream_get_input_format (s) == ST_FILE_FORMAT_AUTO);
  CHECK (st_stream_abandon_output (s) == ST_E_INVALID);   /* not running */
  if (pulled)
    {
      int ready[2];
      CHECK (pipe (ready) == 0 && write (ready[1], "", 1) == 1);
      pull.fd = in_fd;
      CHECK (st_stream_set_input_pull (s, -1, pull_read, &pull,
                                       ST_FILE_FORMAT_AUTO) == ST_E_INVALID);
      CHECK (st_stream_set_input_pull (s, ready[0], pull_read, &pull,
                                       ST_FILE_FORMAT_AUTO) == ST_OK);
    }
  else
    CHECK (st_stream_set_input_fd (s, in_fd, ST_FILE_FORMAT_AUTO) == ST_OK);
  CHECK (st_stream_set_output_path (s, argv[arg + 1], ST_FILE_FORMAT_AUTO)
         == ST_OK);
  CHECK (st_stream_set_chains_fd (s, chains_fd) == ST_OK);
  CHECK (st_stream_set_symfs (s, symfs) == ST_OK);
  CHECK (st_stream_set_demangle (s, demangle) == ST_OK);
  CHECK (st_stream_set_host_files (s, host_files) == ST_OK);
  CHECK (st_stream_set_truncate_stack (s, truncate) == ST_OK);
  CHECK (st_stream_set_counters (s, counters, interval) == ST_OK);
  CHECK (st_stream_set_message_func (s, on_message, NULL) == ST_OK);
  CHECK (st_stream_set_check_func (s, on_check, &check, 0) == ST_OK);
  CHECK (st_stream_set_idle_func (s, on_idle, &idle) == ST_OK);
  /* Not whole frames: refused.  */
  unsigned char bad[30] = { 3 };
  CHECK (st_stream_add_output_frames (s, bad, sizeof bad) == ST_E_INVALID);
  CHECK (st_stream_add_output_frames (s, bad, 8) == ST_E_INVALID);
  if (frame_text != NULL)
    {
      unsigned char buf[4096];
      size_t len = file_chunk (buf, sizeof buf, frame_text);
      CHECK (len > 0);
      CHECK (st_stream_add_output_frames (s, buf, len) == ST_OK);
    }

  int rc = st_stream_open_input (s);
  if (rc != ST_OK)
    {
      fprintf (stderr, "stream-settings: %s\n", st_stream_error (s));
      return 1;
    }
  CHECK (st_stream_open_input (s) == ST_E_INVALID);      /* only once */
  CHECK (st_stream_set_input_fd (s, in_fd, ST_FILE_FORMAT_AUTO)
         == ST_E_INVALID);                               /* opened */
  StFileFormat format = st_stream_get_input_format (s);
  CHECK (format == ST_FILE_FORMAT_PERF || format == ST_FILE_FORMAT_CAPTURE);
  printf ("input=%s\n", format == ST_FILE_FORMAT_PERF ? "perf" : "capture");

  rc = st_stream_run (s);
  if (rc != ST_OK && rc != ST_E_CANCELLED)
    fprintf (stderr, "stream-settings: %s\n", st_stream_error (s));
  CHECK (st_stream_get_outcome (s, &outcome) == ST_OK);
  CHECK (outcome.input_bytes == st_stream_get_input_offset (s));
  CHECK (check.offset_back == 0);
  CHECK (check.calls > 0);
  CHECK ((rc == ST_E_CANCELLED) == (outcome.stopped != 0));
  printf ("result=%s\n", st_result_name (rc));
  printf ("output_whole=%d\nbroken_pipe=%d\nabandoned=%d\nstopped=%d\n"
          "chains_whole=%d\n", outcome.output_whole, outcome.broken_pipe,
          outcome.abandoned, outcome.stopped, outcome.chains_whole);
  printf ("started=%d\nfailed=%d\n", outcome.started, outcome.failed);
  printf ("pull_calls=%lu\n", pull.calls);
  printf ("check_calls=%ld\n", check.calls);
  st_stream_free (s);
  close (in_fd);
  close (chains_fd);
  return failed || (rc != ST_OK && rc != ST_E_CANCELLED);
}
