/* Format detection and the reader facade (format/reader.c).

   The magics of formats.md: a Sysprof capture starts with the u32
   0xFDCA975E (little-endian), perf.data with "PERFILE2" (then the header
   size: 104 for a file, 16 for a pipe); their byte-swapped forms are
   recognized and refused by the format's reader.  Captures (256-byte
   header, 24-byte frame headers) come from the capture-bytes builder,
   perf.data from the perf-stream builder.  Input through a pipe in odd
   chunks and through a mapped file: detection, the events read behind
   the facade, empty, short and unknown input, a forced format, damage
   going to the handler set on the facade, what outlives an event, and a
   stop while the input stalls before its first byte.  */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "format/reader.h"
#include "util/domain.h"

#include "capture-bytes.h"
#include "perf-stream.h"
#include "test-io.h"

/* --- inputs from the builders ------------------------------------------- */

/* Captures of forks: frame i at 256 + 32 * i, 100 + i forking 200 + i at
   2000 + i.  */

static const AttrSpec perf_attr = {
  .sample_type = ST_PERF_SAMPLE_IP | ST_PERF_SAMPLE_TID
                 | ST_PERF_SAMPLE_TIME,
  .flags = ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL,
};
static const uint64_t perf_ids[] = { 7 };

static GByteArray *
perf_comms (gboolean pipe_mode)
{
  AttrEntry entry = { &perf_attr, perf_ids, 1 };
  GByteArray *data = g_byte_array_new ();
  Trailer t = { 10, 10, 100, 7, 0, 0 };
  GByteArray *all;

  put_comm (data, &perf_attr, &t, TRUE, "prog");
  t.time = 200;
  put_comm (data, &perf_attr, &t, FALSE, "worker");
  all = pipe_mode ? make_pipe (&entry, 1, data)
                  : make_file (&entry, 1, data, NULL, 0, 0);
  g_byte_array_unref (data);
  return all;
}

/* --- opening ------------------------------------------------------------- */

typedef struct
{
  Source src;
  GBytes *bytes;
  StReader *reader;
  GError *error;
} Opened;

static void
open_bytes (Opened *o, const void *data, size_t len, gboolean via_pipe,
            StFormat format)
{
  memset (o, 0, sizeof *o);
  o->bytes = g_bytes_new (data, len);
  source_open (&o->src, o->bytes, via_pipe);
  o->reader = st_reader_new (o->src.fd, format, &o->error);
}

static void
close_opened (Opened *o)
{
  st_reader_free (o->reader);
  source_close (&o->src);
  g_bytes_unref (o->bytes);
  g_clear_error (&o->error);
}

/* Opening LEN bytes of DATA fails with CODE and MESSAGE, through a pipe
   and through a file.  */
static void
assert_open_fails (const void *data, size_t len, StFormat format, int code,
                   const char *message)
{
  for (int via_pipe = 0; via_pipe <= 1; via_pipe++)
    {
      Opened o;

      open_bytes (&o, data, len, via_pipe, format);
      g_assert_null (o.reader);
      g_assert_error (o.error, ST_ERROR, code);
      g_assert_cmpstr (o.error->message, ==, message);
      close_opened (&o);
    }
}

/* --- tests ------------------------------------------------------------- */

static void
test_detect_capture (void)
{
  GByteArray *cap = capture_with_forks (2, 100, 1);

  for (int via_pipe = 0; via_pipe <= 1; via_pipe++)
    {
      Opened o;
      StEvent ev;

      open_bytes (&o, cap->data, cap->len, via_pipe, ST_FORMAT_AUTO);
      g_assert_no_error (o.error);
      g_assert_nonnull (o.reader);
      g_assert_cmpint (st_reader_format (o.reader), ==, ST_FORMAT_SYSPROF);
      g_assert_null (st_reader_perf (o.reader));
      g_assert_cmpmem (st_reader_capture_header (o.reader), 256, cap->data,
                       256);
      g_assert_cmpint (st_reader_fd (o.reader), ==, o.src.fd);
      g_assert_cmpuint (st_reader_offset (o.reader), ==, 256);
      for (guint i = 0; i < 2; i++)
        {
          g_assert_cmpint (st_reader_next (o.reader, &ev, &o.error), ==, 1);
          g_assert_cmpint (ev.kind, ==, ST_EVENT_FORK);
          g_assert_cmpint (ev.source, ==, ST_FORMAT_SYSPROF);
          g_assert_cmpuint (ev.offset, ==, 256 + 32 * i);
          g_assert_cmpint (ev.pid, ==, 200 + i);
          g_assert_cmpint (ev.fork.parent_pid, ==, 100 + i);
          g_assert_cmpint (ev.time, ==, 2000 + i);
          g_assert_cmpmem (ev.raw, ev.raw_len, cap->data + 256 + 32 * i, 32);
          /* A mapped file's bytes outlive the event; a pipe's do not.  */
          g_assert_true (st_reader_stable (ev.raw, ev.raw_len, o.reader)
                         == !via_pipe);
        }
      g_assert_cmpint (st_reader_next (o.reader, &ev, &o.error), ==, 0);
      g_assert_no_error (o.error);
      g_assert_cmpuint (st_reader_offset (o.reader), ==, cap->len);
      g_assert_cmpuint (st_reader_intact_end (o.reader), ==, G_MAXUINT64);
      close_opened (&o);
    }
  g_byte_array_unref (cap);
}

static void
test_detect_perf (void)
{
  for (int pipe_mode = 0; pipe_mode <= 1; pipe_mode++)
    {
      GByteArray *perf = perf_comms (pipe_mode);

      /* The header size after the magic: 104 (file) or 16 (pipe).  */
      g_assert_cmpmem (perf->data, 8, "PERFILE2", 8);
      g_assert_cmpuint (perf->data[8], ==, pipe_mode ? 16 : 104);
      for (int via_pipe = 0; via_pipe <= 1; via_pipe++)
        {
          Opened o;
          StEvent ev;

          open_bytes (&o, perf->data, perf->len, via_pipe, ST_FORMAT_AUTO);
          g_assert_no_error (o.error);
          g_assert_cmpint (st_reader_format (o.reader), ==, ST_FORMAT_PERF);
          g_assert_nonnull (st_reader_perf (o.reader));
          g_assert_null (st_reader_capture_header (o.reader));
          /* A pipe passes its HEADER_ATTR records on as events.  */
          for (guint i = 0; i < (guint) pipe_mode; i++)
            {
              g_assert_cmpint (st_reader_next (o.reader, &ev, &o.error), ==,
                               1);
              g_assert_cmpint (ev.kind, ==, ST_EVENT_OTHER);
              g_assert_cmpuint (st_perf_get_u32 (ev.raw), ==,
                                ST_PERF_RECORD_HEADER_ATTR);
            }
          g_assert_cmpint (st_reader_next (o.reader, &ev, &o.error), ==, 1);
          g_assert_cmpint (ev.kind, ==, ST_EVENT_PROCESS);
          g_assert_cmpint (ev.source, ==, ST_FORMAT_PERF);
          g_assert_cmpstr (ev.process.comm, ==, "prog");
          g_assert_true (ev.process.exec);
          g_assert_cmpint (st_reader_next (o.reader, &ev, &o.error), ==, 1);
          g_assert_cmpstr (ev.process.comm, ==, "worker");
          g_assert_cmpint (st_reader_next (o.reader, &ev, &o.error), ==, 0);
          g_assert_no_error (o.error);
          close_opened (&o);
        }
      g_byte_array_unref (perf);
    }
}

static void
test_empty_and_short (void)
{
  /* Fewer than the 8 bytes either magic needs, even a prefix of one.  */
  static const uint8_t capture_prefix[] = { 0x5e, 0x97, 0xca, 0xfd, 1, 1, 0 };

  assert_open_fails ("", 0, ST_FORMAT_AUTO, ST_ERROR_TRUNCATED,
                     "input too short (0 bytes) to hold a capture or "
                     "perf.data header");
  assert_open_fails ("PERFILE", 7, ST_FORMAT_AUTO, ST_ERROR_TRUNCATED,
                     "input too short (7 bytes) to hold a capture or "
                     "perf.data header");
  assert_open_fails (capture_prefix, sizeof capture_prefix, ST_FORMAT_AUTO,
                     ST_ERROR_TRUNCATED,
                     "input too short (7 bytes) to hold a capture or "
                     "perf.data header");
  /* The magic, then the input ends inside the format's header.  */
  assert_open_fails ("PERFILE2", 8, ST_FORMAT_AUTO, ST_ERROR_TRUNCATED,
                     "offset 0: input ended after 8 bytes, inside the "
                     "perf.data header");
  {
    GByteArray *cap = capture_with_forks (0, 100, 1);

    assert_open_fails (cap->data, 255, ST_FORMAT_AUTO, ST_ERROR_TRUNCATED,
                       "offset 0: input ended after 255 bytes, inside the "
                       "256-byte capture file header");
    g_byte_array_unref (cap);
  }
  /* A forced format on empty input: that format's header.  */
  assert_open_fails ("", 0, ST_FORMAT_SYSPROF, ST_ERROR_TRUNCATED,
                     "offset 0: input ended after 0 bytes, inside the "
                     "256-byte capture file header");
  assert_open_fails ("", 0, ST_FORMAT_PERF, ST_ERROR_TRUNCATED,
                     "offset 0: input ended after 0 bytes, inside the "
                     "perf.data header");
}

static void
test_unknown (void)
{
  static const uint8_t elf[16] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
  /* The message says what was seen, and does not send the user to
     --format (which only moves the error to the forced reader).  */
#define UNKNOWN(SEEN)                                                     \
  "offset 0: neither a Sysprof capture nor perf.data: the first bytes "  \
  "are " SEEN ", where perf.data begins with \"PERFILE2\" and a capture " \
  "with its magic fdca975e"
  static const char *const unknown =
    UNKNOWN ("00 00 00 00 5e 97 ca fd \"....^...\"");

  assert_open_fails (elf, sizeof elf, ST_FORMAT_AUTO, ST_ERROR_FORMAT,
                     UNKNOWN ("7f 45 4c 46 02 01 01 00 \".ELF....\""));
  assert_open_fails ("PERFILE1xxxxxxxx", 16, ST_FORMAT_AUTO, ST_ERROR_FORMAT,
                     UNKNOWN ("50 45 52 46 49 4c 45 31 \"PERFILE1\""));
  /* The capture magic is a u32 at 0, not anywhere else.  */
  {
    GByteArray *shifted = g_byte_array_new ();

    capture_put_zeros (shifted, 4);
    capture_put_u32 (shifted, CAPTURE_MAGIC);
    capture_put_zeros (shifted, 8);
    assert_open_fails (shifted->data, shifted->len, ST_FORMAT_AUTO,
                       ST_ERROR_FORMAT, unknown);
    g_byte_array_unref (shifted);
  }
}

static void
test_byte_swapped (void)
{
  /* Recognized, then refused by the format's own reader.  */
  GByteArray *cap = g_byte_array_new ();
  uint8_t swapped_perf[16] = { '2', 'E', 'L', 'I', 'F', 'R', 'E', 'P' };

  capture_put_file_header_as (cap, GUINT32_SWAP_LE_BE (CAPTURE_MAGIC), 1, 0,
                              1000, 0);
  assert_open_fails (cap->data, cap->len, ST_FORMAT_AUTO,
                     ST_ERROR_UNSUPPORTED,
                     "offset 0: big-endian / byte-swapped capture not "
                     "supported");
  g_byte_array_unref (cap);
  swapped_perf[15] = 16;
  assert_open_fails (swapped_perf, sizeof swapped_perf, ST_FORMAT_AUTO,
                     ST_ERROR_UNSUPPORTED,
                     "offset 0: byte-swapped (big-endian) perf.data not "
                     "supported");
}

static void
test_forced_format (void)
{
  GByteArray *cap = capture_with_forks (1, 100, 1);
  GByteArray *perf = perf_comms (FALSE);

  g_assert_cmpuint (perf->len, >=, 256);
  assert_open_fails (cap->data, cap->len, ST_FORMAT_PERF, ST_ERROR_FORMAT,
                     "offset 0: bad perf.data magic (expected "
                     "\"PERFILE2\")");
  assert_open_fails (perf->data, perf->len, ST_FORMAT_SYSPROF,
                     ST_ERROR_FORMAT,
                     "offset 0: bad capture magic 0x46524550 (expected "
                     "0xfdca975e)");
  /* Forced to what it is: read as detected.  */
  {
    Opened o;
    StEvent ev;

    open_bytes (&o, cap->data, cap->len, TRUE, ST_FORMAT_SYSPROF);
    g_assert_no_error (o.error);
    g_assert_cmpint (st_reader_next (o.reader, &ev, &o.error), ==, 1);
    g_assert_cmpint (ev.kind, ==, ST_EVENT_FORK);
    close_opened (&o);
  }
  g_byte_array_unref (cap);
  g_byte_array_unref (perf);
}

typedef struct
{
  guint n;
  StDamageAction action;
  uint64_t offset;
} Damages;

static void
count_damage (const StDamage *d, void *user)
{
  Damages *seen = user;

  if (seen->n++ == 0)
    {
      seen->action = d->action;
      seen->offset = d->offset;
    }
}

static void
test_damage_handler (void)
{
  /* A capture whose second frame says it is 20 bytes long (less than a
     frame header, not a multiple of 8): without a handler the reader
     stops there; with one set on the facade, the damage goes to it and
     the third frame is read.  */
  GByteArray *cap = capture_with_forks (3, 100, 1);

  cap->data[256 + 32] = 20;
  for (int handled = 0; handled <= 1; handled++)
    {
      Damages seen = { 0 };
      StDamageHandler h = { count_damage, &seen };
      Opened o;
      StEvent ev;

      open_bytes (&o, cap->data, cap->len, TRUE, ST_FORMAT_AUTO);
      if (handled)
        st_reader_set_damage_handler (o.reader, &h);
      g_assert_cmpint (st_reader_next (o.reader, &ev, &o.error), ==, 1);
      g_assert_cmpint (ev.pid, ==, 200);
      if (!handled)
        {
          g_assert_cmpint (st_reader_next (o.reader, &ev, &o.error), ==, -1);
          g_assert_error (o.error, ST_ERROR, ST_ERROR_FORMAT);
          g_assert_true (g_str_has_prefix (o.error->message, "offset 288:"));
        }
      else
        {
          g_assert_cmpint (st_reader_next (o.reader, &ev, &o.error), ==, 1);
          g_assert_cmpint (ev.pid, ==, 202);
          g_assert_cmpuint (seen.n, ==, 1);
          g_assert_cmpint (seen.action, ==, ST_DAMAGE_SKIPPED);
          g_assert_cmpuint (seen.offset, ==, 288);
          g_assert_cmpint (st_reader_next (o.reader, &ev, &o.error), ==, 0);
          g_assert_no_error (o.error);
        }
      close_opened (&o);
    }
  g_byte_array_unref (cap);

  /* The same for a perf.data stream: a record of size 4 (less than its
     header) after the last one.  */
  {
    GByteArray *perf = perf_comms (TRUE);

    for (int handled = 0; handled <= 1; handled++)
      {
        Damages seen = { 0 };
        StDamageHandler h = { count_damage, &seen };
        GByteArray *bad = g_byte_array_new ();
        GError *error = NULL;
        Opened o;
        StEvent ev;
        int ret;

        g_byte_array_append (bad, perf->data, perf->len);
        {
          uint8_t junk[8] = { 3, 0, 0, 0, 0, 0, 4, 0 };
          g_byte_array_append (bad, junk, 8);
        }
        open_bytes (&o, bad->data, bad->len, FALSE, ST_FORMAT_AUTO);
        if (handled)
          st_reader_set_damage_handler (o.reader, &h);
        while ((ret = st_reader_next (o.reader, &ev, &error)) == 1)
          ;
        if (handled)
          {
            g_assert_cmpint (ret, ==, 0);
            g_assert_no_error (error);
            g_assert_cmpuint (seen.n, ==, 1);
            g_assert_cmpuint (seen.offset, ==, perf->len);
          }
        else
          {
            g_assert_cmpint (ret, ==, -1);
            g_assert_nonnull (error);
          }
        g_clear_error (&error);
        close_opened (&o);
        g_byte_array_unref (bad);
      }
    g_byte_array_unref (perf);
  }
}

static gboolean
stop_reading (void *user)
{
  guint *calls = user;

  (*calls)++;
  return FALSE;
}

static void
test_stop_before_first_byte (void)
{
  /* A recorder that has not written anything yet, and a stop request
     while the header is awaited: st_reader_new_full gives up with
     ST_ERROR_STOPPED, without a format guessed.  */
  int fds[2];
  guint calls = 0;
  GError *error = NULL;
  StReader *r;

  g_assert_no_errno (pipe (fds));
  r = st_reader_new_full (fds[0], ST_FORMAT_AUTO, 10, stop_reading, &calls,
                          &error);
  g_assert_null (r);
  g_assert_error (error, ST_ERROR, ST_ERROR_STOPPED);
  g_assert_cmpuint (calls, >=, 1);
  g_clear_error (&error);
  close (fds[0]);
  close (fds[1]);
}

int
main (int argc, char **argv)
{
  signal (SIGPIPE, SIG_IGN);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/reader/detect-capture", test_detect_capture);
  g_test_add_func ("/reader/detect-perf", test_detect_perf);
  g_test_add_func ("/reader/empty-and-short", test_empty_and_short);
  g_test_add_func ("/reader/unknown", test_unknown);
  g_test_add_func ("/reader/byte-swapped", test_byte_swapped);
  g_test_add_func ("/reader/forced-format", test_forced_format);
  g_test_add_func ("/reader/damage-handler", test_damage_handler);
  g_test_add_func ("/reader/stop-before-first-byte",
                   test_stop_before_first_byte);
  return g_test_run ();
}
