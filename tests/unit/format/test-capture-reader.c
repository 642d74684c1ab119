/* The Sysprof capture reader (lib/format/capture-reader.c) on captures
   built byte by byte from the format facts (tests/lib/capture-bytes):
   lenient cases (unterminated or missing strings, build-ids that are not
   one, spare room), a register block at an odd offset, every malformed
   file header and frame (strictly: an error naming the offset; with a
   damage handler: the frames before and after come out and the damage is
   reported once), frame types it does not know, and many damaged spots
   in one stream.  */
#include "config.h"

#include <signal.h>
#include <string.h>

#include <glib.h>

#include "format/capture-reader.h"
#include "format/capture-types.h"
#include "format/damage.h"
#include "format/input.h"
#include "util/domain.h"

#include "capture-bytes.h"
#include "damage-log.h"
#include "test-io.h"

/* A frame header claiming LEN bytes (cpu 3), followed by PAYLOAD: the
   two need not agree.  */
static void
append_frame (GByteArray *a, unsigned type, size_t len, int32_t pid,
              int64_t time, const void *payload, size_t payload_len)
{
  capture_put_frame_header (a, (uint16_t) len, 3, pid, time, (uint8_t) type);
  capture_put (a, payload, payload_len);
}

/* Stack bytes for the frames that carry some.  */
static uint8_t stack_bytes[64];

static void
test_reader_lenient (void)
{
  GByteArray *a = g_byte_array_new ();
  GError *error = NULL;
  StEvent ev;

  capture_put_file_header (a, 0, 0);
  /* PROCESS whose cmdline fills the frame without a NUL.  */
  append_frame (a, CAPTURE_PROCESS, 32, 5, 1, "abcdefgh", 8);
  /* PROCESS with no cmdline at all.  */
  append_frame (a, CAPTURE_PROCESS, 24, 6, 2, NULL, 0);
  /* MAP whose build-id suffix is not hex: no build-id.  */
  {
    uint64_t m[4] = { 1, 2, 3, 4 };
    char name[16] = "/p\0@zz11";
    GByteArray *p = g_byte_array_new ();
    g_byte_array_append (p, (const uint8_t *) m, sizeof m);
    g_byte_array_append (p, (const uint8_t *) name, sizeof name);
    append_frame (a, CAPTURE_MAP, 24 + p->len, 7, 3, p->data, p->len);
    g_byte_array_unref (p);
  }
  /* A build-id longer than 20 bytes is ignored too.  */
  {
    uint64_t m[4] = { 1, 2, 3, 4 };
    char name[56];
    memset (name, 0, sizeof name);
    memcpy (name, "/q\0@", 4);
    memset (name + 4, 'a', 42);
    GByteArray *p = g_byte_array_new ();
    g_byte_array_append (p, (const uint8_t *) m, sizeof m);
    g_byte_array_append (p, (const uint8_t *) name, sizeof name);
    append_frame (a, CAPTURE_MAP, 24 + p->len, 7, 3, p->data, p->len);
    g_byte_array_unref (p);
  }
  /* SAMPLE with spare room after its addresses.  */
  {
    uint64_t body[3] = { 1 | (0ull << 32), 0x1234, 0 };
    ((int32_t *) body)[1] = 77;
    append_frame (a, CAPTURE_SAMPLE, 48, 8, 4, body, sizeof body);
  }

  GBytes *bytes = g_byte_array_free_to_bytes (a);
  Source src;
  source_open (&src, bytes, TRUE);
  StInput *in = st_input_new (src.fd);
  StCaptureReader *r = st_capture_reader_new (in, &error);
  g_assert_no_error (error);

  capture_next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_PROCESS);
  g_assert_cmpstr (ev.process.comm, ==, "abcdefgh");
  capture_next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_PROCESS);
  g_assert_cmpstr (ev.process.comm, ==, "");
  capture_next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_MAP);
  g_assert_cmpstr (ev.map.filename, ==, "/p");
  g_assert_cmpuint (ev.map.build_id_len, ==, 0);
  capture_next_ok (r, &ev);
  g_assert_cmpstr (ev.map.filename, ==, "/q");
  g_assert_cmpuint (ev.map.build_id_len, ==, 0);
  capture_next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_SAMPLE);
  g_assert_cmpint (ev.tid, ==, 77);
  g_assert_cmpuint (ev.sample.n_ips, ==, 1);
  g_assert_cmphex (ev.sample.ips[0], ==, 0x1234);
  capture_next_eof (r);

  st_capture_reader_free (r);
  st_input_free (in);
  source_close (&src);
  g_bytes_unref (bytes);
}

static void
expect_bad_header (GBytes *bytes, gint code)
{
  for (int via_pipe = 0; via_pipe < 2; via_pipe++)
    {
      GError *error = NULL;
      Source src;
      source_open (&src, bytes, via_pipe);
      StInput *in = st_input_new (src.fd);
      g_assert_null (st_capture_reader_new (in, &error));
      g_assert_error (error, ST_ERROR, code);
      g_assert_true (capture_says_offset (error->message, 0));
      g_test_message ("%s", error->message);
      g_clear_error (&error);
      st_input_free (in);
      source_close (&src);
    }
}

static void
test_bad_headers (void)
{
  GByteArray *a;
  GBytes *b;

  a = g_byte_array_new ();
  capture_put_file_header (a, 0, 0);
  a->data[0] ^= 0xff;
  b = g_byte_array_free_to_bytes (a);
  expect_bad_header (b, ST_ERROR_FORMAT);
  g_bytes_unref (b);

  /* Byte-swapped magic (a big-endian capture).  */
  a = g_byte_array_new ();
  capture_put_file_header (a, 0, 0);
  {
    uint32_t swapped = GUINT32_SWAP_LE_BE (CAPTURE_MAGIC);
    memcpy (a->data, &swapped, 4);
  }
  b = g_byte_array_free_to_bytes (a);
  expect_bad_header (b, ST_ERROR_UNSUPPORTED);
  g_bytes_unref (b);

  /* Right magic, little_endian bit clear.  */
  a = g_byte_array_new ();
  capture_put_file_header (a, 0, 0);
  a->data[5] &= ~1;
  b = g_byte_array_free_to_bytes (a);
  expect_bad_header (b, ST_ERROR_UNSUPPORTED);
  g_bytes_unref (b);

  a = g_byte_array_new ();
  capture_put_file_header (a, 0, 0);
  a->data[4] = 2;
  b = g_byte_array_free_to_bytes (a);
  expect_bad_header (b, ST_ERROR_UNSUPPORTED);
  g_bytes_unref (b);

  /* Shorter than the header.  */
  a = g_byte_array_new ();
  capture_put_file_header (a, 0, 0);
  g_byte_array_set_size (a, 100);
  b = g_byte_array_free_to_bytes (a);
  expect_bad_header (b, ST_ERROR_TRUNCATED);
  g_bytes_unref (b);

  b = g_bytes_new (NULL, 0);
  expect_bad_header (b, ST_ERROR_TRUNCATED);
  g_bytes_unref (b);
}

/* Two good frames (at 256 and 296), then the bad one at 320.  */
#define BAD_OFFSET 320

static GByteArray *
good_prefix (void)
{
  GByteArray *a = g_byte_array_new ();
  uint64_t body[2] = { 1 | (5ull << 32), 0xabc };

  capture_put_file_header (a, 0, 0);
  append_frame (a, CAPTURE_SAMPLE, 40, 1, 10, body, sizeof body);
  append_frame (a, CAPTURE_EXIT, 24, 1, 11, NULL, 0);
  g_assert_cmpuint (a->len, ==, BAD_OFFSET);
  return a;
}

/* A capture reader over BYTES that recovers from damage, logging it.  */
typedef struct
{
  Source src;
  StInput *in;
  StCaptureReader *r;
  DamageLog log;
} Recovering;

static void
recovering_open (Recovering *rec, GBytes *bytes, gboolean via_pipe)
{
  GError *error = NULL;

  memset (rec, 0, sizeof *rec);
  source_open (&rec->src, bytes, via_pipe);
  rec->in = st_input_new (rec->src.fd);
  rec->r = st_capture_reader_new (rec->in, &error);
  g_assert_no_error (error);
  st_capture_reader_set_damage_handler (rec->r, &(StDamageHandler) {
                                          damage_log_record, &rec->log });
}

static void
recovering_close (Recovering *rec)
{
  g_free (rec->log.message);
  st_capture_reader_free (rec->r);
  st_input_free (rec->in);
  source_close (&rec->src);
}

/* The good frames that follow a damaged one, when input goes on.  */
static void
append_good_suffix (GByteArray *a)
{
  uint64_t body[2] = { 1 | (7ull << 32), 0xdef };

  append_frame (a, CAPTURE_SAMPLE, 40, 1, 12, body, sizeof body);
  append_frame (a, CAPTURE_EXIT, 24, 1, 13, NULL, 0);
}

/* Recovery: with a damage handler, the frames before and after the bad
   one come out, and the damage is reported once, naming its offset.  */
static void
expect_recovery (GBytes *bytes, const char *what, StDamageAction action,
                 gboolean suffix)
{
  for (int via_pipe = 0; via_pipe < 2; via_pipe++)
    {
      Recovering rec;
      StCaptureReader *r;
      const DamageLog *log = &rec.log;
      StEvent ev;

      recovering_open (&rec, bytes, via_pipe);
      r = rec.r;
      capture_next_ok (r, &ev);
      g_assert_cmpint (ev.tid, ==, 5);
      capture_next_ok (r, &ev);
      g_assert_cmpint (ev.kind, ==, ST_EVENT_EXIT);
      if (action == ST_DAMAGE_PASSED || suffix)
        capture_next_ok (r, &ev);
      if (action == ST_DAMAGE_PASSED)
        {
          /* The bad frame itself, not interpreted.  */
          g_assert_cmpint (ev.kind, ==, ST_EVENT_OTHER);
          g_assert_cmpuint (ev.offset, ==, BAD_OFFSET);
          if (suffix)
            capture_next_ok (r, &ev);
        }
      if (suffix)
        {
          g_assert_cmpint (ev.kind, ==, ST_EVENT_SAMPLE);
          g_assert_cmpint (ev.tid, ==, 7);
          g_assert_cmpuint (ev.sample.ips[0], ==, 0xdef);
          capture_next_ok (r, &ev);
          g_assert_cmpint (ev.kind, ==, ST_EVENT_EXIT);
          g_assert_cmpint (ev.time, ==, 13);
        }
      capture_next_eof (r);

      if (log->n != 1 || log->action != action || log->offset != BAD_OFFSET
          || !capture_says_offset (log->message, BAD_OFFSET))
        g_error ("%s: %u damage report(s), first: action %d offset %"
                 G_GUINT64_FORMAT ": %s", what, log->n, log->action,
                 log->offset, log->message);
      g_test_message ("recovered: %s", log->message);
      if (action == ST_DAMAGE_SKIPPED)
        g_assert_nonnull (strstr (log->message, "skipped"));
      recovering_close (&rec);
    }
}

/* A is the good prefix and a damaged frame.  Strictly, reading stops at
   it with error CODE naming BAD_OFFSET; with a damage handler, reading
   recovers (ACTION) and the frames after it still come out (unless the
   damage is a truncated end).  */
static void
expect_bad_frame (GByteArray *a, gint code, const char *what,
                  StDamageAction action)
{
  gboolean suffix = action != ST_DAMAGE_TRUNCATED;
  GBytes *bytes = g_byte_array_free_to_bytes (a);

  g_test_message ("case: %s", what);
  for (int via_pipe = 0; via_pipe < 2; via_pipe++)
    {
      GError *error = NULL;
      Source src;
      StEvent ev;

      source_open (&src, bytes, via_pipe);
      StInput *in = st_input_new (src.fd);
      StCaptureReader *r = st_capture_reader_new (in, &error);
      g_assert_no_error (error);

      capture_next_ok (r, &ev);
      g_assert_cmpint (ev.kind, ==, ST_EVENT_SAMPLE);
      g_assert_cmpint (ev.tid, ==, 5);
      capture_next_ok (r, &ev);
      g_assert_cmpint (ev.kind, ==, ST_EVENT_EXIT);

      g_assert_cmpint (st_capture_reader_next (r, &ev, &error), ==, -1);
      g_assert_error (error, ST_ERROR, code);
      g_test_message ("%s", error->message);
      if (!capture_says_offset (error->message, BAD_OFFSET))
        g_error ("%s: message lacks the offset: %s", what, error->message);
      g_clear_error (&error);

      st_capture_reader_free (r);
      st_input_free (in);
      source_close (&src);
    }

  if (suffix)
    {
      gsize len;
      const uint8_t *p = g_bytes_get_data (bytes, &len);
      GByteArray *more = g_byte_array_new ();

      g_byte_array_append (more, p, len);
      append_good_suffix (more);
      g_bytes_unref (bytes);
      bytes = g_byte_array_free_to_bytes (more);
    }
  expect_recovery (bytes, what, action, suffix);
  g_bytes_unref (bytes);
}

static void
test_bad_frames (void)
{
  GByteArray *a;
  uint8_t zeros[200] = { 0 };

  a = good_prefix ();
  append_frame (a, CAPTURE_EXIT, 16, 1, 12, NULL, 0);
  expect_bad_frame (a, ST_ERROR_FORMAT, "len < 24",
                    ST_DAMAGE_SKIPPED);

  a = good_prefix ();
  append_frame (a, CAPTURE_EXIT, 0, 1, 12, zeros, 8);
  expect_bad_frame (a, ST_ERROR_FORMAT, "len 0",
                    ST_DAMAGE_SKIPPED);

  a = good_prefix ();
  append_frame (a, CAPTURE_EXIT, 28, 1, 12, zeros, 8);
  expect_bad_frame (a, ST_ERROR_FORMAT, "len % 8",
                    ST_DAMAGE_SKIPPED);

  a = good_prefix ();
  append_frame (a, CAPTURE_SAMPLE, 64, 1, 12, zeros, 16);
  expect_bad_frame (a, ST_ERROR_TRUNCATED, "len > remaining",
                    ST_DAMAGE_TRUNCATED);

  a = good_prefix ();
  g_byte_array_append (a, zeros, 10);
  expect_bad_frame (a, ST_ERROR_TRUNCATED, "EOF inside the frame header",
                    ST_DAMAGE_TRUNCATED);

  a = good_prefix ();
  append_frame (a, CAPTURE_SAMPLE, 24, 1, 12, NULL, 0);
  expect_bad_frame (a, ST_ERROR_FORMAT, "SAMPLE shorter than its header",
                    ST_DAMAGE_DROPPED);

  a = good_prefix ();
  {
    uint64_t body[2] = { 2, 0x1 };
    append_frame (a, CAPTURE_SAMPLE, 40, 1, 12, body, sizeof body);
  }
  expect_bad_frame (a, ST_ERROR_FORMAT, "SAMPLE n_addrs overflows",
                    ST_DAMAGE_DROPPED);

  a = good_prefix ();
  append_frame (a, CAPTURE_STACK_USER, 40, 1, 12, zeros, 16);
  expect_bad_frame (a, ST_ERROR_FORMAT, "STACK_USER without register block",
                    ST_DAMAGE_PASSED);

  a = good_prefix ();
  append_frame (a, CAPTURE_STACK_USER, 32, 1, 12, zeros, 8);
  expect_bad_frame (a, ST_ERROR_FORMAT, "STACK_USER shorter than its header",
                    ST_DAMAGE_PASSED);

  /* Stack size overflowing the frame, also with wrap-around values.  */
  static const uint64_t sizes[] = { 1000, 49, G_MAXUINT64 - 10,
                                    G_MAXUINT64 - 39 };
  for (unsigned i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      a = good_prefix ();
      append_frame (a, CAPTURE_STACK_USER, 96, 1, 12, NULL, 0);
      capture_put_u64 (a, sizes[i]);
      capture_put_u32 (a, 9);
      capture_put_u32 (a, 0);
      g_byte_array_append (a, zeros, 56);
      expect_bad_frame (a, ST_ERROR_FORMAT, "STACK_USER size overflows",
                    ST_DAMAGE_PASSED);
    }

  /* n_regs neither 17 nor 9.  */
  a = good_prefix ();
  append_frame (a, CAPTURE_STACK_USER, 96, 1, 12, NULL, 0);
  capture_put_u64 (a, 8);
  capture_put_u32 (a, 9);
  capture_put_u32 (a, 0);
  g_byte_array_append (a, zeros, 8);
  capture_put_u32 (a, 5);
  capture_put_u32 (a, 2);
  g_byte_array_append (a, zeros, 40);
  expect_bad_frame (a, ST_ERROR_FORMAT, "STACK_USER n_regs 5",
                    ST_DAMAGE_PASSED);

  /* 17 registers announced, room for 4.  */
  a = good_prefix ();
  append_frame (a, CAPTURE_STACK_USER, 88, 1, 12, NULL, 0);
  capture_put_u64 (a, 8);
  capture_put_u32 (a, 9);
  capture_put_u32 (a, 0);
  g_byte_array_append (a, zeros, 8);
  capture_put_u32 (a, 17);
  capture_put_u32 (a, 2);
  g_byte_array_append (a, zeros, 32);
  expect_bad_frame (a, ST_ERROR_FORMAT, "STACK_USER registers overflow",
                    ST_DAMAGE_PASSED);

  /* Same with an odd stack size (unaligned register block).  */
  a = good_prefix ();
  append_frame (a, CAPTURE_STACK_USER, 96, 1, 12, NULL, 0);
  capture_put_u64 (a, 3);
  capture_put_u32 (a, 9);
  capture_put_u32 (a, 0);
  g_byte_array_append (a, zeros, 3);
  capture_put_u32 (a, 9);
  capture_put_u32 (a, 1);
  g_byte_array_append (a, zeros, 45);
  expect_bad_frame (a, ST_ERROR_FORMAT, "STACK_USER i386 registers overflow",
                    ST_DAMAGE_PASSED);

  /* MAP without a NUL in the frame.  */
  a = good_prefix ();
  append_frame (a, CAPTURE_MAP, 64, 1, 12, zeros, 32);
  g_byte_array_append (a, (const uint8_t *) "abcdefgh", 8);
  expect_bad_frame (a, ST_ERROR_FORMAT, "MAP without NUL",
                    ST_DAMAGE_DROPPED);

  a = good_prefix ();
  append_frame (a, CAPTURE_MAP, 56, 1, 12, zeros, 32);
  expect_bad_frame (a, ST_ERROR_FORMAT, "MAP with no file name at all",
                    ST_DAMAGE_DROPPED);

  a = good_prefix ();
  append_frame (a, CAPTURE_MAP, 48, 1, 12, zeros, 24);
  expect_bad_frame (a, ST_ERROR_FORMAT, "MAP shorter than its header",
                    ST_DAMAGE_DROPPED);

  a = good_prefix ();
  append_frame (a, CAPTURE_FORK, 24, 1, 12, NULL, 0);
  expect_bad_frame (a, ST_ERROR_FORMAT, "FORK without child pid",
                    ST_DAMAGE_DROPPED);

  /* An unknown register ABI.  */
  a = good_prefix ();
  append_frame (a, CAPTURE_STACK_USER, 56 + 9 * 8, 1, 12, NULL, 0);
  capture_put_u64 (a, 8);
  capture_put_u32 (a, 9);
  capture_put_u32 (a, 0);
  g_byte_array_append (a, zeros, 8);
  capture_put_u32 (a, 9);
  capture_put_u32 (a, 7);
  g_byte_array_append (a, zeros, 9 * 8);
  expect_bad_frame (a, ST_ERROR_FORMAT, "STACK_USER abi 7",
                    ST_DAMAGE_PASSED);

  /* Garbage between frames: 64 bytes of 0xff read as a length of 65535
     (not a multiple of 8).  */
  a = good_prefix ();
  memset (zeros, 0xff, 64);
  g_byte_array_append (a, zeros, 64);
  memset (zeros, 0, sizeof zeros);
  expect_bad_frame (a, ST_ERROR_FORMAT, "64 bytes of garbage",
                    ST_DAMAGE_SKIPPED);

  /* A frame header whose length swallows the rest (zeroed) cannot be
     told from a truncated end.  */
  a = good_prefix ();
  append_frame (a, 99, 4096, 1, 12, zeros, 100);
  expect_bad_frame (a, ST_ERROR_TRUNCATED, "length past the end",
                    ST_DAMAGE_TRUNCATED);
}

/* Frames of types stacktrace does not know pass through, undamaged.  */
static void
test_unknown_types (void)
{
  GByteArray *a = good_prefix ();
  uint8_t body[16] = { 1, 2, 3 };

  append_frame (a, 99, 40, 1, 12, body, sizeof body);
  append_frame (a, 250, 24, 1, 12, NULL, 0);
  append_good_suffix (a);
  GBytes *bytes = g_byte_array_free_to_bytes (a);
  Recovering rec;
  StEvent ev;

  recovering_open (&rec, bytes, TRUE);
  capture_next_ok (rec.r, &ev);
  capture_next_ok (rec.r, &ev);
  capture_next_ok (rec.r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_OTHER);
  g_assert_cmpuint (ev.raw_len, ==, 40);
  g_assert_cmpmem (ev.raw + 24, 16, body, 16);
  capture_next_ok (rec.r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_OTHER);
  capture_next_ok (rec.r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_SAMPLE);
  capture_next_ok (rec.r, &ev);
  capture_next_eof (rec.r);
  g_assert_cmpuint (rec.log.n, ==, 0);
  recovering_close (&rec);
  g_bytes_unref (bytes);
}

/* Several damaged spots in one stream: each reported once, in order,
   and every good frame comes out.  */
static void
test_many_damaged (void)
{
  GByteArray *a = good_prefix ();
  uint8_t junk[48];
  guint n_good = 2;

  memset (junk, 0x5a, sizeof junk);
  for (int i = 0; i < 50; i++)
    {
      uint64_t body[2] = { 1 | ((uint64_t) i << 32), 0x100 + i };

      g_byte_array_append (a, junk, 8 * (1 + i % 6));   /* framing */
      append_frame (a, CAPTURE_SAMPLE, 40, 1, 20 + i, body, sizeof body);
      append_frame (a, CAPTURE_MAP, 48, 1, 20 + i, junk, 24);   /* content */
      n_good++;
    }
  GBytes *bytes = g_byte_array_free_to_bytes (a);
  GError *error = NULL;
  Recovering rec;
  StEvent ev;
  guint n = 0;
  int rc;

  recovering_open (&rec, bytes, TRUE);
  while ((rc = st_capture_reader_next (rec.r, &ev, &error)) > 0)
    {
      if (n >= 2)
        {
          g_assert_cmpint (ev.kind, ==, ST_EVENT_SAMPLE);
          g_assert_cmpint (ev.tid, ==, (int) n - 2);
        }
      n++;
    }
  g_assert_no_error (error);
  g_assert_cmpint (rc, ==, 0);
  g_assert_cmpuint (n, ==, n_good);
  g_assert_cmpuint (rec.log.n, ==, 100);
  recovering_close (&rec);
  g_bytes_unref (bytes);
}

/* A valid STACK_USER with an odd stack size, hand-made: the registers
   come out aligned and exact.  */
static void
test_reader_unaligned_regs (void)
{
  GByteArray *a = g_byte_array_new ();
  GError *error = NULL;
  StEvent ev;
  uint64_t regs[17];

  for (unsigned i = 0; i < 17; i++)
    regs[i] = 0x0102030405060708ull * (i + 1);
  capture_put_file_header (a, 0, 0);
  append_frame (a, CAPTURE_STACK_USER, 40 + 7 + 8 + 136 + 1, 4, 9, NULL, 0);
  capture_put_u64 (a, 7);
  capture_put_u32 (a, 44);
  capture_put_u32 (a, 0);
  g_byte_array_append (a, stack_bytes, 7);
  capture_put_u32 (a, 17);
  capture_put_u32 (a, 2);
  g_byte_array_append (a, (const uint8_t *) regs, sizeof regs);
  g_byte_array_append (a, (const uint8_t *) "", 1);

  GBytes *bytes = g_byte_array_free_to_bytes (a);
  Source src;
  source_open (&src, bytes, FALSE);
  StInput *in = st_input_new (src.fd);
  StCaptureReader *r = st_capture_reader_new (in, &error);
  g_assert_no_error (error);
  capture_next_ok (r, &ev);
  g_assert_cmpint (ev.pid, ==, 4);
  g_assert_cmpint (ev.cpu, ==, 3);
  capture_check_stack (&ev, 4, 44, 3, 9, 2, ST_CAPTURE_REGS_X86_64_MASK,
                       stack_bytes, 7);
  for (unsigned i = 0; i < 17; i++)
    g_assert_cmphex (ev.stack.regs[i], ==, regs[i]);
  capture_next_eof (r);
  st_capture_reader_free (r);
  st_input_free (in);
  source_close (&src);
  g_bytes_unref (bytes);
}

int
main (int argc, char **argv)
{
  signal (SIGPIPE, SIG_IGN);
  g_test_init (&argc, &argv, NULL);
  for (unsigned i = 0; i < sizeof stack_bytes; i++)
    stack_bytes[i] = (uint8_t) (i * 3 + 1);
  g_test_add_func ("/capture-reader/lenient", test_reader_lenient);
  g_test_add_func ("/capture-reader/unaligned-regs",
                   test_reader_unaligned_regs);
  g_test_add_func ("/capture-reader/bad-headers", test_bad_headers);
  g_test_add_func ("/capture-reader/bad-frames", test_bad_frames);
  g_test_add_func ("/capture-reader/unknown-types", test_unknown_types);
  g_test_add_func ("/capture-reader/many-damaged", test_many_damaged);
  return g_test_run ();
}
