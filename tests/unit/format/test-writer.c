/* The writer choice (format/writer.c): which writer an output format and
   an input format get, seen from the bytes written.

   perf.data in, perf.data out: the perf writer that copies the input
   (its records come out byte for byte, formats.md "perf.data");
   a capture (or nothing) in, perf.data out: the converter, whose output
   is a perf.data of its own that the perf reader reads back with the
   same events; a capture out, whatever comes in: a capture (magic
   0xFDCA975E), frames of a capture input copied byte for byte.  Only a
   capture has counters (CTRDEF 8 / CTRSET 9 frames).  An output format
   that is not one, a failed output.  Captures come from the
   capture-bytes builder, perf.data from the perf-stream builder.  */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "format/writer.h"
#include "util/domain.h"

#include "capture-bytes.h"
#include "perf-stream.h"
#include "test-io.h"

/* --- inputs -------------------------------------------------------------- */

/* Captures: the 256-byte header, then a FORK frame (32 bytes) per child,
   100 forking 200, 201, ...  */
#define FORKING_PARENT 100

static const AttrSpec perf_attr = {
  .sample_type = ST_PERF_SAMPLE_IP | ST_PERF_SAMPLE_TID
                 | ST_PERF_SAMPLE_TIME,
  .flags = ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL | ST_PERF_ATTR_FLAG_COMM,
};
static const uint64_t perf_ids[] = { 7 };

/* perf.data (pipe or file mode) with two COMM records; *COMMS gets their
   bytes.  */
static GByteArray *
perf_with_comms (gboolean pipe_mode, GByteArray **comms)
{
  AttrEntry entry = { &perf_attr, perf_ids, 1 };
  GByteArray *data = g_byte_array_new ();
  Trailer t = { 10, 10, 100, 7, 0, 0 };
  GByteArray *all;

  put_comm (data, &perf_attr, &t, TRUE, "prog");
  t.time = 200;
  t.tid = 11;
  put_comm (data, &perf_attr, &t, FALSE, "worker");
  all = pipe_mode ? make_pipe (&entry, 1, data)
                  : make_file (&entry, 1, data, NULL, 0, 0);
  *comms = data;
  return all;
}

/* --- running a writer ---------------------------------------------------- */

/* Reads INPUT (through a pipe) and writes every event to a writer of
   FORMAT into a regular file; the output's bytes.  WITH_READER FALSE:
   the writer gets no reader.  */
static GBytes *
convert (const GByteArray *input, StFormat format, gboolean with_reader,
         guint *n_written)
{
  GBytes *in_bytes = g_bytes_new (input->data, input->len);
  GError *error = NULL;
  Source src;
  Sink sink;
  StReader *reader;
  StWriter *writer;
  StEvent ev;
  int ret;

  source_open (&src, in_bytes, TRUE);
  sink_open (&sink, TRUE);
  reader = st_reader_new (src.fd, ST_FORMAT_AUTO, &error);
  g_assert_no_error (error);
  writer = st_writer_new (sink.fd, format, with_reader ? reader : NULL,
                          FALSE, &error);
  g_assert_no_error (error);
  g_assert_nonnull (writer);
  *n_written = 0;
  while ((ret = st_reader_next (reader, &ev, &error)) == 1)
    if (st_writer_event (writer, &ev))
      (*n_written)++;
  g_assert_cmpint (ret, ==, 0);
  g_assert_no_error (error);
  g_assert_true (st_writer_finish (writer, &error));
  g_assert_no_error (error);
  g_assert_false (st_writer_failed (writer));
  st_writer_free (writer);
  st_reader_free (reader);
  source_close (&src);
  g_bytes_unref (in_bytes);
  return sink_close (&sink);
}

/* The events of OUT read back (kinds, pids, comms), as a string.  */
static char *
events_of (GBytes *out, StFormat *format)
{
  GString *s = g_string_new (NULL);
  GError *error = NULL;
  Source src;
  StReader *reader;
  StEvent ev;
  int ret;

  source_open (&src, out, FALSE);
  reader = st_reader_new (src.fd, ST_FORMAT_AUTO, &error);
  g_assert_no_error (error);
  *format = st_reader_format (reader);
  while ((ret = st_reader_next (reader, &ev, &error)) == 1)
    switch (ev.kind)
      {
      case ST_EVENT_PROCESS:
        g_string_append_printf (s, "process %d/%d %s%s;", ev.pid, ev.tid,
                                ev.process.comm,
                                ev.process.exec ? " exec" : "");
        break;
      case ST_EVENT_FORK:
        g_string_append_printf (s, "fork %d->%d;", ev.fork.parent_pid,
                                ev.pid);
        break;
      default:
        break;
      }
  g_assert_cmpint (ret, ==, 0);
  g_assert_no_error (error);
  st_reader_free (reader);
  source_close (&src);
  return g_string_free (s, FALSE);
}

static gboolean
contains (GBytes *hay, const GByteArray *needle)
{
  gsize len;
  const uint8_t *p = g_bytes_get_data (hay, &len);

  return memmem (p, len, needle->data, needle->len) != NULL;
}

static uint32_t
magic_of (GBytes *out)
{
  gsize len;
  const uint8_t *p = g_bytes_get_data (out, &len);
  uint32_t magic;

  g_assert_cmpuint (len, >=, 8);
  memcpy (&magic, p, 4);
  return magic;
}

/* --- tests ------------------------------------------------------------- */

static void
test_perf_to_perf (void)
{
  /* The perf writer that copies its input: the COMM records, with their
     sample_id trailers for attr id 7, come out byte for byte.  */
  for (int pipe_mode = 0; pipe_mode <= 1; pipe_mode++)
    {
      GByteArray *comms;
      GByteArray *in = perf_with_comms (pipe_mode, &comms);
      guint n;
      GBytes *out = convert (in, ST_FORMAT_PERF, TRUE, &n);
      StFormat format;
      g_autofree char *events = events_of (out, &format);

      g_assert_cmpmem (g_bytes_get_data (out, NULL), 8, "PERFILE2", 8);
      g_assert_true (contains (out, comms));
      g_assert_cmpint (format, ==, ST_FORMAT_PERF);
      g_assert_cmpstr (events, ==,
                       "process 10/10 prog exec;process 10/11 worker;");
      g_bytes_unref (out);
      g_byte_array_unref (in);
      g_byte_array_unref (comms);
    }
}

static void
test_capture_to_perf (void)
{
  /* The converter: a perf.data of its own (its own attribute), the same
     events.  Also without a reader.  */
  GByteArray *in = capture_with_forks (2, FORKING_PARENT, 0);
  guint n;
  GBytes *out = convert (in, ST_FORMAT_PERF, TRUE, &n);
  StFormat format;
  g_autofree char *events = events_of (out, &format);

  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpmem (g_bytes_get_data (out, NULL), 8, "PERFILE2", 8);
  g_assert_cmpint (format, ==, ST_FORMAT_PERF);
  g_assert_cmpstr (events, ==, "fork 100->200;fork 100->201;");
  g_bytes_unref (out);

  out = convert (in, ST_FORMAT_PERF, FALSE, &n);
  g_assert_cmpuint (n, ==, 2);
  g_clear_pointer (&events, g_free);
  events = events_of (out, &format);
  g_assert_cmpint (format, ==, ST_FORMAT_PERF);
  g_assert_cmpstr (events, ==, "fork 100->200;fork 100->201;");
  g_bytes_unref (out);
  g_byte_array_unref (in);
}

static void
test_to_capture (void)
{
  /* A capture input: its frames byte for byte after a header.  */
  GByteArray *in = capture_with_forks (2, FORKING_PARENT, 0);
  GByteArray *frames = g_byte_array_new ();
  guint n;
  GBytes *out = convert (in, ST_FORMAT_SYSPROF, TRUE, &n);
  StFormat format;
  g_autofree char *events = events_of (out, &format);

  g_byte_array_append (frames, in->data + 256, in->len - 256);
  g_assert_cmphex (magic_of (out), ==, CAPTURE_MAGIC);
  g_assert_cmpuint (g_bytes_get_size (out), ==, in->len);
  g_assert_true (contains (out, frames));
  g_assert_cmpstr (events, ==, "fork 100->200;fork 100->201;");
  g_bytes_unref (out);
  g_byte_array_unref (frames);
  g_byte_array_unref (in);

  /* perf.data in (both modes), with and without the reader: converted
     to frames.  */
  for (int pipe_mode = 0; pipe_mode <= 1; pipe_mode++)
    for (int with_reader = 0; with_reader <= 1; with_reader++)
      {
        GByteArray *comms;
        g_autofree char *perf_events = NULL;

        in = perf_with_comms (pipe_mode, &comms);
        out = convert (in, ST_FORMAT_SYSPROF, with_reader, &n);
        perf_events = events_of (out, &format);
        g_assert_cmphex (magic_of (out), ==, CAPTURE_MAGIC);
        g_assert_cmpint (format, ==, ST_FORMAT_SYSPROF);
        g_assert_false (contains (out, comms));
        g_assert_true (g_str_has_prefix (perf_events, "process 10/"));
        g_assert_nonnull (strstr (perf_events, "prog"));
        g_bytes_unref (out);
        g_byte_array_unref (in);
        g_byte_array_unref (comms);
      }
}

/* Whether OUT, a capture, has a frame of TYPE.  */
static gboolean
has_frame (GBytes *out, uint8_t type)
{
  gsize len;
  const uint8_t *p = g_bytes_get_data (out, &len);

  for (gsize at = 256; at + 24 <= len;)
    {
      uint16_t frame_len;

      memcpy (&frame_len, p + at, 2);
      if (p[at + 16] == type)
        return TRUE;
      if (frame_len < 24)
        break;
      at += frame_len;
    }
  return FALSE;
}

static void
test_counters (void)
{
  const StProgressCounters c = { 10, 7, 2, 1, 3, 0 };

  for (int perf = 0; perf <= 1; perf++)
    {
      GError *error = NULL;
      Sink sink;
      StWriter *w;
      GBytes *out;

      sink_open (&sink, TRUE);
      w = st_writer_new (sink.fd, perf ? ST_FORMAT_PERF : ST_FORMAT_SYSPROF,
                         NULL, FALSE, &error);
      g_assert_no_error (error);
      g_assert_true (st_writer_has_counters (w) == !perf);
      /* The first time defines them (with their values), the next ones
         set them.  */
      g_assert_true (st_writer_counters (w, 5000, &c) == !perf);
      g_assert_true (st_writer_counters (w, 6000, &c) == !perf);
      g_assert_true (st_writer_finish (w, &error));
      g_assert_no_error (error);
      st_writer_free (w);
      out = sink_close (&sink);
      if (!perf)
        {
          g_assert_true (has_frame (out, CAPTURE_CTRDEF));
          g_assert_true (has_frame (out, CAPTURE_CTRSET));
        }
      g_bytes_unref (out);
    }
}

static void
test_unsupported_format (void)
{
  static const struct
  {
    StFormat format;
    const char *message;
  } cases[] = {
    { ST_FORMAT_AUTO,
      "output format 'auto' is not supported; use sysprof or perf" },
    { (StFormat) 3,
      "output format 'unknown' is not supported; use sysprof or perf" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GError *error = NULL;
      int fds[2];

      g_assert_no_errno (pipe (fds));
      g_assert_null (st_writer_new (fds[1], cases[i].format, NULL, FALSE,
                                    &error));
      g_assert_error (error, ST_ERROR, ST_ERROR_UNSUPPORTED);
      g_assert_cmpstr (error->message, ==, cases[i].message);
      g_clear_error (&error);
      close (fds[0]);
      close (fds[1]);
    }
}

static void
test_failed_output (void)
{
  /* The output's reader is gone: the writer says it failed after the
     flush, and stays failed; finishing reports it.  */
  for (int perf = 0; perf <= 1; perf++)
    {
      GByteArray *in = capture_with_forks (1, FORKING_PARENT, 0);
      GBytes *in_bytes = g_bytes_new (in->data, in->len);
      GError *error = NULL;
      Source src;
      StReader *reader;
      StWriter *w;
      StEvent ev;
      int fds[2];

      source_open (&src, in_bytes, FALSE);
      reader = st_reader_new (src.fd, ST_FORMAT_AUTO, &error);
      g_assert_no_error (error);
      g_assert_no_errno (pipe (fds));
      close (fds[0]);
      w = st_writer_new (fds[1], perf ? ST_FORMAT_PERF : ST_FORMAT_SYSPROF,
                         reader, FALSE, &error);
      g_assert_no_error (error);
      g_assert_false (st_writer_failed (w));
      g_assert_cmpint (st_reader_next (reader, &ev, &error), ==, 1);
      st_writer_event (w, &ev);
      g_assert_false (st_writer_finish (w, &error));
      g_assert_nonnull (error);
      g_assert_true (st_writer_failed (w));
      st_writer_flush (w);
      g_assert_true (st_writer_failed (w));
      g_clear_error (&error);
      st_writer_free (w);
      close (fds[1]);
      st_reader_free (reader);
      source_close (&src);
      g_bytes_unref (in_bytes);
      g_byte_array_unref (in);
    }
}

int
main (int argc, char **argv)
{
  signal (SIGPIPE, SIG_IGN);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/writer/perf-to-perf", test_perf_to_perf);
  g_test_add_func ("/writer/capture-to-perf", test_capture_to_perf);
  g_test_add_func ("/writer/to-capture", test_to_capture);
  g_test_add_func ("/writer/counters", test_counters);
  g_test_add_func ("/writer/unsupported-format", test_unsupported_format);
  g_test_add_func ("/writer/failed-output", test_failed_output);
  return g_test_run ();
}
