/* What a perf.data says about its recording (format/perf-recording.c).

   Feature sections laid out by hand as formats.md gives them (and as
   perf writes them: CMDLINE strings NUL-padded to 64): CMDLINE (11,
   u32 nr; {u32 len; char s[len]}[nr]), SAMPLE_TIME (21, u64 first,
   last), CLOCK_DATA (29, u32 version, clockid; u64 wall_clock_ns,
   clockid_time_ns); each whole, damaged and cut; the same as pipe-mode
   HEADER_FEATURE records ({header; u64 feat_id; data}); from the
   feature sections of a file-mode perf.data read by the perf reader.
   The recorded command's line for a process, with and without perf's
   "--", with the kernel's 15-character comm.  */
#include "config.h"

#include <signal.h>
#include <string.h>

#include <glib.h>

#include "format/input.h"
#include "format/perf-reader.h"
#include "format/perf-recording.h"

#include "perf-stream.h"
#include "test-io.h"

#define FEAT_BUILD_ID    2
#define FEAT_CMDLINE     11
#define FEAT_SAMPLE_TIME 21
#define FEAT_CLOCK_DATA  29
#define HEADER_FEATURE   80

/* --- features by hand ------------------------------------------------- */

/* CMDLINE of ARGS as perf writes it: each string with its NUL, padded
   to 64 (or, PERF_PAD false, exactly its length, no NUL).  */
static GByteArray *
cmdline (const char *const *args, gboolean perf_pad)
{
  static const uint8_t zeros[64];
  GByteArray *b = g_byte_array_new ();
  guint n = g_strv_length ((char **) args);

  put_u32 (b, n);
  for (guint i = 0; i < n; i++)
    {
      size_t len = strlen (args[i]);
      size_t padded = perf_pad ? (len + 1 + 63) / 64 * 64 : len;

      put_u32 (b, (uint32_t) padded);
      put (b, args[i], len);
      put (b, zeros, padded - len);
    }
  return b;
}

static GByteArray *
sample_time (uint64_t first, uint64_t last)
{
  GByteArray *b = g_byte_array_new ();

  put_u64 (b, first);
  put_u64 (b, last);
  return b;
}

static GByteArray *
clock_data (uint64_t wall_ns, uint64_t clock_ns)
{
  GByteArray *b = g_byte_array_new ();

  put_u32 (b, 1);           /* version */
  put_u32 (b, 1);           /* CLOCK_MONOTONIC */
  put_u64 (b, wall_ns);
  put_u64 (b, clock_ns);
  return b;
}

/* FEAT as a pipe-mode HEADER_FEATURE record of type TYPE.  */
static GByteArray *
feature_record (uint32_t type, uint64_t feat_id, const GByteArray *feat)
{
  GByteArray *b = g_byte_array_new ();
  uint16_t misc = 0, size = (uint16_t) (16 + feat->len);

  put_u32 (b, type);
  put (b, &misc, 2);
  put (b, &size, 2);
  put_u64 (b, feat_id);
  put (b, feat->data, feat->len);
  return b;
}

static void
take (StPerfRecording *rec, guint bit, const GByteArray *feat, size_t len)
{
  /* An exact-size copy, so that ASan sees any read past LEN.  */
  uint8_t *copy = g_memdup2 (feat->data, MAX (len, 1));

  st_perf_recording_feature (rec, bit, copy, len);
  g_free (copy);
}

static void
assert_argv (char **argv, const char *const *want)
{
  g_assert_nonnull (argv);
  g_assert_cmpuint (g_strv_length (argv), ==,
                    g_strv_length ((char **) want));
  for (guint i = 0; want[i] != NULL; i++)
    g_assert_cmpstr (argv[i], ==, want[i]);
}

/* --- tests ------------------------------------------------------------ */

static const char *const perf_args[] = {
  "/usr/bin/perf", "record", "--call-graph=dwarf", "-e", "cpu-clock",
  "-o", "run.data", "--", "./prog", "-n", "100", NULL
};

static void
test_cmdline (void)
{
  static const char *const none[] = { NULL };
  static const char *const long_arg[] = {
    "perf", "record", "--",
    "/a/path/of/more/than/sixty-four/bytes/to/pad/to/the/next/multiple/prog",
    NULL
  };
  StPerfRecording rec = { 0 };
  GByteArray *f;

  for (int pad = 0; pad <= 1; pad++)
    {
      f = cmdline (perf_args, pad);
      take (&rec, FEAT_CMDLINE, f, f->len);
      assert_argv (rec.argv, perf_args);
      g_byte_array_unref (f);
    }

  /* 71 characters: padded to 128.  */
  f = cmdline (long_arg, TRUE);
  g_assert_cmpuint (f->len, ==, 4 + 3 * (4 + 64) + 4 + 128);
  take (&rec, FEAT_CMDLINE, f, f->len);
  assert_argv (rec.argv, long_arg);
  g_byte_array_unref (f);

  /* No arguments at all: an empty vector, not "unknown".  */
  f = cmdline (none, TRUE);
  take (&rec, FEAT_CMDLINE, f, f->len);
  g_assert_nonnull (rec.argv);
  g_assert_null (rec.argv[0]);
  g_byte_array_unref (f);
  st_perf_recording_clear (&rec);
  g_assert_null (rec.argv);
}

static void
test_cmdline_damaged (void)
{
  /* Cut anywhere: the command line stays what it was (here: unknown,
     then an earlier good one).  */
  GByteArray *good = cmdline (perf_args, TRUE);
  StPerfRecording rec = { 0 };

  for (size_t cut = 0; cut < good->len; cut++)
    {
      take (&rec, FEAT_CMDLINE, good, cut);
      g_assert_null (rec.argv);
    }
  st_perf_recording_clear (&rec);

  take (&rec, FEAT_CMDLINE, good, good->len);
  {
    /* A count the section cannot hold (each string needs 4 bytes).  */
    GByteArray *bad = g_byte_array_new ();

    put_u32 (bad, 3);
    put_u32 (bad, 0);
    put_u32 (bad, 0);
    take (&rec, FEAT_CMDLINE, bad, bad->len);
    assert_argv (rec.argv, perf_args);
    /* A length past the end, and the largest length.  */
    g_byte_array_set_size (bad, 0);
    put_u32 (bad, 1);
    put_u32 (bad, 200);
    put (bad, "perf", 4);
    take (&rec, FEAT_CMDLINE, bad, bad->len);
    assert_argv (rec.argv, perf_args);
    g_byte_array_set_size (bad, 0);
    put_u32 (bad, 1);
    put_u32 (bad, G_MAXUINT32);
    take (&rec, FEAT_CMDLINE, bad, bad->len);
    assert_argv (rec.argv, perf_args);
    g_byte_array_set_size (bad, 0);
    put_u32 (bad, G_MAXUINT32);
    take (&rec, FEAT_CMDLINE, bad, bad->len);
    assert_argv (rec.argv, perf_args);
    g_byte_array_unref (bad);
  }
  st_perf_recording_clear (&rec);
  g_byte_array_unref (good);
}

static void
test_sample_time (void)
{
  static const struct
  {
    uint64_t first, last;
    gboolean known;
  } cases[] = {
    { 1000, 2000, TRUE },
    { 1000, 1000, TRUE },                   /* one sample */
    { 0, 0, FALSE },                        /* pipe mode: written before */
    { 0, 2000, FALSE },
    { 2000, 1000, FALSE },                  /* backwards */
    { 1, G_MAXINT64, TRUE },
    { 1, (uint64_t) G_MAXINT64 + 1, FALSE },  /* not an int64 */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      StPerfRecording rec = { 0 };
      GByteArray *f = sample_time (cases[i].first, cases[i].last);

      take (&rec, FEAT_SAMPLE_TIME, f, f->len);
      g_assert_cmpint (rec.first_sample, ==,
                       cases[i].known ? (int64_t) cases[i].first : 0);
      g_assert_cmpint (rec.last_sample, ==,
                       cases[i].known ? (int64_t) cases[i].last : 0);
      /* Cut by a byte: unknown.  */
      st_perf_recording_clear (&rec);
      take (&rec, FEAT_SAMPLE_TIME, f, f->len - 1);
      g_assert_cmpint (rec.first_sample, ==, 0);
      g_byte_array_unref (f);
    }
}

static void
test_clock_data (void)
{
  /* 2023-11-14T22:13:20Z when the samples' clock read 4000 ns.  */
  const uint64_t wall = G_GUINT64_CONSTANT (1700000000000000000);
  StPerfRecording rec = { 0 };
  GByteArray *f = clock_data (wall, 4000);

  take (&rec, FEAT_CLOCK_DATA, f, f->len);
  g_assert_true (rec.has_clock);
  g_assert_cmpuint (rec.wall_clock_ns, ==, wall);
  g_assert_cmpuint (rec.clock_ns, ==, 4000);
  st_perf_recording_clear (&rec);
  g_assert_false (rec.has_clock);

  /* Cut: nothing read.  */
  take (&rec, FEAT_CLOCK_DATA, f, 23);
  g_assert_false (rec.has_clock);
  g_assert_cmpuint (rec.wall_clock_ns, ==, 0);
  g_byte_array_unref (f);

  /* A wall-clock time of 0 says nothing.  */
  f = clock_data (0, 4000);
  take (&rec, FEAT_CLOCK_DATA, f, f->len);
  g_assert_false (rec.has_clock);
  g_byte_array_unref (f);
}

static void
test_other_features_ignored (void)
{
  GByteArray *f = clock_data (1, 2);
  StPerfRecording rec = { 0 };
  StPerfRecording zero = { 0 };

  take (&rec, FEAT_BUILD_ID, f, f->len);
  take (&rec, 0, f, f->len);
  take (&rec, 255, f, f->len);
  g_assert_cmpmem (&rec, sizeof rec, &zero, sizeof zero);
  g_byte_array_unref (f);
}

static void
test_feature_records (void)
{
  /* Pipe mode: the same bytes after {header; u64 feat_id}.  */
  GByteArray *cmd = cmdline (perf_args, TRUE);
  GByteArray *times = sample_time (5000, 9000);
  GByteArray *clock = clock_data (7, 8);
  GByteArray *recs[] = {
    feature_record (HEADER_FEATURE, FEAT_CMDLINE, cmd),
    feature_record (HEADER_FEATURE, FEAT_SAMPLE_TIME, times),
    feature_record (HEADER_FEATURE, FEAT_CLOCK_DATA, clock),
  };
  GByteArray *ignored[] = {
    /* Not a HEADER_FEATURE record.  */
    feature_record (9, FEAT_SAMPLE_TIME, times),
    /* A feature id past the 256 bits (perf's u64 feat_id).  */
    feature_record (HEADER_FEATURE, 256 + FEAT_SAMPLE_TIME, times),
    feature_record (HEADER_FEATURE, G_MAXUINT64, times),
  };
  StPerfRecording rec = { 0 };

  for (guint i = 0; i < G_N_ELEMENTS (ignored); i++)
    {
      st_perf_recording_feature_record (&rec, ignored[i]->data,
                                        ignored[i]->len);
      g_assert_cmpint (rec.first_sample, ==, 0);
      g_byte_array_unref (ignored[i]);
    }
  /* Shorter than the record's fixed part.  */
  st_perf_recording_feature_record (&rec, recs[1]->data, 15);
  g_assert_cmpint (rec.first_sample, ==, 0);

  for (guint i = 0; i < G_N_ELEMENTS (recs); i++)
    {
      uint8_t *copy = g_memdup2 (recs[i]->data, recs[i]->len);

      st_perf_recording_feature_record (&rec, copy, recs[i]->len);
      g_free (copy);
      g_byte_array_unref (recs[i]);
    }
  assert_argv (rec.argv, perf_args);
  g_assert_cmpint (rec.first_sample, ==, 5000);
  g_assert_cmpint (rec.last_sample, ==, 9000);
  g_assert_true (rec.has_clock);
  g_assert_cmpuint (rec.wall_clock_ns, ==, 7);
  g_assert_cmpuint (rec.clock_ns, ==, 8);
  st_perf_recording_clear (&rec);
  g_byte_array_unref (cmd);
  g_byte_array_unref (times);
  g_byte_array_unref (clock);
}

static void
test_from_reader (void)
{
  /* A file-mode perf.data with the three features and a build-id table,
     read by the perf reader from a file.  */
  static const AttrSpec attr = {
    .sample_type = ST_PERF_SAMPLE_IP | ST_PERF_SAMPLE_TID
                   | ST_PERF_SAMPLE_TIME,
    .flags = ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL,
  };
  static const uint64_t ids[] = { 7 };
  AttrEntry entry = { &attr, ids, 1 };
  GByteArray *data = g_byte_array_new ();
  GByteArray *build_ids = g_byte_array_new ();
  Trailer t = { 10, 10, 100, 7, 0, 0 };
  Feature feats[4];
  GByteArray *file;
  GBytes *bytes;
  Source src;
  StInput *in;
  StPerfReader *reader;
  StPerfRecording rec = { 0 };
  GError *error = NULL;

  put_comm (data, &attr, &t, TRUE, "prog");
  put_build_id_entry (build_ids, 0xab, 20, "/usr/bin/prog");
  feats[0] = (Feature) { FEAT_BUILD_ID, build_ids };
  feats[1] = (Feature) { FEAT_CMDLINE, cmdline (perf_args, TRUE) };
  feats[2] = (Feature) { FEAT_SAMPLE_TIME, sample_time (100, 900) };
  feats[3] = (Feature) { FEAT_CLOCK_DATA,
                         clock_data (G_GUINT64_CONSTANT (1700000000000000000),
                                     50) };
  file = make_file (&entry, 1, data, feats, 4, 0);
  bytes = g_bytes_new (file->data, file->len);
  source_open (&src, bytes, FALSE);
  in = st_input_new (src.fd);
  reader = st_perf_reader_new (in, &error);
  g_assert_no_error (error);
  g_assert_nonnull (reader);

  st_perf_recording_from_reader (&rec, reader);
  assert_argv (rec.argv, perf_args);
  g_assert_cmpint (rec.first_sample, ==, 100);
  g_assert_cmpint (rec.last_sample, ==, 900);
  g_assert_true (rec.has_clock);
  g_assert_cmpuint (rec.wall_clock_ns, ==,
                    G_GUINT64_CONSTANT (1700000000000000000));
  g_assert_cmpuint (rec.clock_ns, ==, 50);
  st_perf_recording_clear (&rec);

  st_perf_reader_free (reader);
  st_input_free (in);
  source_close (&src);
  g_bytes_unref (bytes);
  g_byte_array_unref (file);
  for (guint i = 0; i < G_N_ELEMENTS (feats); i++)
    g_byte_array_unref (feats[i].bytes);
  g_byte_array_unref (data);
}

static void
test_from_reader_without_features (void)
{
  static const AttrSpec attr = { .sample_type = ST_PERF_SAMPLE_IP };
  static const uint64_t ids[] = { 7 };
  AttrEntry entry = { &attr, ids, 1 };
  GByteArray *data = g_byte_array_new ();
  GByteArray *file = make_file (&entry, 1, data, NULL, 0, 0);
  GBytes *bytes = g_bytes_new (file->data, file->len);
  StPerfRecording rec = { 0 }, zero = { 0 };
  GError *error = NULL;
  Source src;
  StInput *in;
  StPerfReader *reader;

  source_open (&src, bytes, FALSE);
  in = st_input_new (src.fd);
  reader = st_perf_reader_new (in, &error);
  g_assert_no_error (error);
  st_perf_recording_from_reader (&rec, reader);
  g_assert_cmpmem (&rec, sizeof rec, &zero, sizeof zero);
  st_perf_reader_free (reader);
  st_input_free (in);
  source_close (&src);
  g_bytes_unref (bytes);
  g_byte_array_unref (file);
  g_byte_array_unref (data);
}

int
main (int argc, char **argv)
{
  signal (SIGPIPE, SIG_IGN);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/perf-recording/cmdline", test_cmdline);
  g_test_add_func ("/perf-recording/cmdline-damaged", test_cmdline_damaged);
  g_test_add_func ("/perf-recording/sample-time", test_sample_time);
  g_test_add_func ("/perf-recording/clock-data", test_clock_data);
  g_test_add_func ("/perf-recording/other-features-ignored",
                   test_other_features_ignored);
  g_test_add_func ("/perf-recording/feature-records", test_feature_records);
  g_test_add_func ("/perf-recording/from-reader", test_from_reader);
  g_test_add_func ("/perf-recording/from-reader-without-features",
                   test_from_reader_without_features);
  return g_test_run ();
}
