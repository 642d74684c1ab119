/* perf.data written the way each perf generation writes it, built byte
   by byte: the samples of every stream must come out of the reader
   (through a file and through a pipe, without any damage), and out of a
   perf.data copy (pipe and file mode) again, with the attributes kept
   byte for byte.  Then compressed streams (perf record -z) in detail:
   records straddling compressed records, COMPRESSED2 padding, corrupt
   zstd data, a record decompressing to more than mmap_len, a stream cut
   inside a decompressed record.  */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <zstd.h>

#include "util/domain.h"
#include "perf-stream.h"
#include "pipeline-run.h"
#include "test-io.h"

#define PID 4242
#define N_SAMPLES 3
#define SAMPLE_TIME(i) (1000000 + 1000 * (uint64_t) (i))

static const uint64_t attr_ids[] = { 77 };
static const uint64_t regs3[3] = { 0x7ffd1000, 0x7ffd0f00, 0x401010 };
static const uint64_t chain2[2] = { 0x401010, 0x401234 };

/* perf record --call-graph=dwarf (raw stacks: BP, SP, IP).  */
static const AttrSpec raw_stack_attr = {
  .sample_type = ST_PERF_SAMPLE_IP | ST_PERF_SAMPLE_TID | ST_PERF_SAMPLE_TIME
                 | ST_PERF_SAMPLE_PERIOD | ST_PERF_SAMPLE_REGS_USER
                 | ST_PERF_SAMPLE_STACK_USER,
  .flags = ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL | ST_PERF_ATTR_FLAG_MMAP
           | ST_PERF_ATTR_FLAG_COMM | ST_PERF_ATTR_FLAG_MMAP2,
  .regs_user = (1u << 6) | (1u << 7) | (1u << 8),
  .stack_user = 64,
};

/* An attribute of the first version (64 bytes) has no room for user
   registers: callchain samples.  */
static const AttrSpec chain_attr = {
  .sample_type = ST_PERF_SAMPLE_IP | ST_PERF_SAMPLE_TID | ST_PERF_SAMPLE_TIME
                 | ST_PERF_SAMPLE_CALLCHAIN,
  .flags = ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL | ST_PERF_ATTR_FLAG_MMAP
           | ST_PERF_ATTR_FLAG_COMM,
};

/* What a stream holds besides the process and its samples.  */
enum
{
  WITH_TRACING_12 = 1 << 0,   /* HEADER_TRACING_DATA of perf 4.x */
  WITH_TRACING_16 = 1 << 1,   /* ... of later perf */
  WITH_AUXTRACE = 1 << 2,
  WITH_UNKNOWN = 1 << 3,      /* record types 90, 91; feature id 200 */
  COMPRESSED = 1 << 4,        /* the records in COMPRESSED (perf 6.1) */
  COMPRESSED2 = 1 << 5,       /* ... in COMPRESSED2 (newer perf) */
  FILE_MODE = 1 << 6,
};

typedef struct
{
  const char *name;
  uint32_t attr_size;
  guint flags;
} Generation;

static const Generation generations[] = {
  { "perf-4.x-pipe", 112, WITH_TRACING_12 },
  { "attr-64", 64, 0 },
  { "attr-96", 96, 0 },
  { "attr-112", 112, 0 },
  { "attr-120", 120, 0 },
  { "perf-6.1-pipe", 128, WITH_TRACING_16 },
  { "attr-136-pipe", 136, 0 },
  { "attr-136-file", 136, FILE_MODE },
  { "attr-64-file", 64, FILE_MODE },
  { "auxtrace", 128, WITH_AUXTRACE },
  { "auxtrace-file", 128, WITH_AUXTRACE | FILE_MODE },
  { "unknown-types", 136, WITH_UNKNOWN },
  { "unknown-file", 136, WITH_UNKNOWN | FILE_MODE },
  { "compressed-pipe", 128, COMPRESSED },
  { "compressed-file", 128, COMPRESSED | FILE_MODE },
  { "compressed2-pipe", 136, COMPRESSED2 | WITH_TRACING_16 },
  { "compressed2-file", 136, COMPRESSED2 | FILE_MODE },
};

static const AttrSpec *
attr_of (const Generation *g)
{
  return g->attr_size >= 96 ? &raw_stack_attr : &chain_attr;
}

static Trailer
trailer_at (uint64_t time)
{
  return (Trailer) { .pid = PID, .tid = PID, .time = time };
}

/* The records of one run: the program's exec and mapping, N_SAMPLES
   samples, an exit.  */
static void
put_run (GByteArray *b, const AttrSpec *a)
{
  Trailer t = trailer_at (900000);

  put_comm (b, a, &t, TRUE, "prog");
  put_mmap2 (b, a, &t, 0x400000, 0x2000, 0, 1234, -1, 0, 5, "/tmp/prog");
  for (int i = 0; i < N_SAMPLES; i++)
    {
      SampleSpec s = { .ip = 0x401010, .time = SAMPLE_TIME (i), .pid = PID,
                       .tid = PID, .chain = chain2, .n_chain = 2, .abi = 2,
                       .regs = regs3, .stack_size = 64, .dyn_size = 64 };

      put_sample (b, a, &s);
    }
  t = trailer_at (SAMPLE_TIME (N_SAMPLES));
  put_fork_exit (b, a, &t, ST_PERF_RECORD_EXIT, PID, PID, PID, PID,
                 SAMPLE_TIME (N_SAMPLES));
}

static void
put_finished_round (GByteArray *b)
{
  end_record (b, begin_record (b, ST_PERF_RECORD_FINISHED_ROUND, 0));
}

/* HEADER_TRACING_DATA with 20 bytes of data (24 padded) after it; the
   record is 12 bytes long in perf 4.x (no pad field).  */
static void
put_tracing_data (GByteArray *b, gboolean old)
{
  guint at = begin_record (b, ST_PERF_RECORD_HEADER_TRACING_DATA, 0);

  put_u32 (b, 24);
  if (!old)
    put_u32 (b, 0);
  end_record (b, at);
  put (b, "tracing-data-20bytes", 20);
  put_zeros (b, 4);
}

static void
put_auxtrace (GByteArray *b)
{
  guint at = begin_record (b, ST_PERF_RECORD_AUXTRACE, 0);

  put_u64 (b, 40);      /* payload size */
  put_u64 (b, 0);       /* offset */
  put_u64 (b, 0x5eed);  /* reference */
  put_u32 (b, 0);       /* idx */
  put_u32 (b, PID);
  put_u32 (b, 0);       /* cpu */
  put_u32 (b, 0);
  end_record (b, at);
  for (int i = 0; i < 40; i++)
    put (b, "A", 1);
}

static void
put_feature_record (GByteArray *b, uint64_t feat, const void *data,
                    size_t len)
{
  guint at = begin_record (b, ST_PERF_RECORD_HEADER_FEATURE, 0);

  put_u64 (b, feat);
  put (b, data, len);
  end_record (b, at);
}

/* HEADER_COMPRESSED: version, type (zstd), level, ratio, mmap_len.  */
static GByteArray *
compressed_feature (uint32_t mmap_len)
{
  GByteArray *f = g_byte_array_new ();

  put_u32 (f, 0);
  put_u32 (f, 1);
  put_u32 (f, 1);
  put_u32 (f, 10);
  put_u32 (f, mmap_len);
  return f;
}

/* One compressed record holding DATA (LEN bytes of zstd data).  */
static void
put_compressed_record (GByteArray *b, gboolean v2, const void *data,
                       size_t len)
{
  guint at = begin_record (b, v2 ? ST_PERF_RECORD_COMPRESSED2
                                 : ST_PERF_RECORD_COMPRESSED, 0);

  if (v2)
    put_u64 (b, len);
  put (b, data, len);
  if (v2)
    pad8 (b);
  end_record (b, at);
}

/* RECORDS compressed as perf does it: one zstd frame on CS, flushed
   every PIECE input bytes (so records straddle the pieces), each flush
   one compressed record.  Returns the number of records.  */
static guint
put_compressed (GByteArray *b, ZSTD_CStream *cs, gboolean v2,
                const GByteArray *records, size_t piece)
{
  uint8_t out[4096];
  guint n = 0;

  for (size_t pos = 0; pos < records->len; pos += piece)
    {
      ZSTD_inBuffer in = { records->data + pos,
                           MIN (piece, records->len - pos), 0 };
      ZSTD_outBuffer o = { out, sizeof out, 0 };

      while (in.pos < in.size)
        g_assert_false (ZSTD_isError (ZSTD_compressStream (cs, &o, &in)));
      g_assert_cmpuint (ZSTD_flushStream (cs, &o), ==, 0);
      put_compressed_record (b, v2, out, o.pos);
      n++;
    }
  return n;
}

static ZSTD_CStream *
new_cstream (void)
{
  ZSTD_CStream *cs = ZSTD_createCStream ();

  ZSTD_initCStream (cs, 1);
  return cs;
}

/* The data records of generation G (perf writes tracing data and
   features first in pipe mode).  */
static GByteArray *
make_records (const Generation *g, gboolean pipe)
{
  GByteArray *d = g_byte_array_new ();
  const AttrSpec *a = attr_of (g);

  if (pipe && (g->flags & (WITH_TRACING_12 | WITH_TRACING_16)))
    put_tracing_data (d, (g->flags & WITH_TRACING_12) != 0);
  if (pipe && (g->flags & WITH_UNKNOWN))
    put_feature_record (d, 200, "future feature..", 16);
  if (pipe && (g->flags & (COMPRESSED | COMPRESSED2)))
    {
      GByteArray *f = compressed_feature (1 << 20);

      put_feature_record (d, ST_PERF_FEAT_COMPRESSED, f->data, f->len);
      g_byte_array_free (f, TRUE);
    }
  if (g->flags & (COMPRESSED | COMPRESSED2))
    {
      GByteArray *run = g_byte_array_new ();
      ZSTD_CStream *cs = new_cstream ();

      put_run (run, a);
      /* 37-byte pieces: records straddle compressed records.  */
      g_assert_cmpuint (put_compressed (d, cs, (g->flags & COMPRESSED2) != 0,
                                        run, 37), >, 3);
      put_finished_round (d);
      ZSTD_freeCStream (cs);
      g_byte_array_free (run, TRUE);
      return d;
    }
  /* Built on its own: the builder pads strings to absolute multiples
     of 8, and perf 4.x's records continue at offsets 4 modulo 8.  */
  {
    GByteArray *run = g_byte_array_new ();

    put_run (run, a);
    put (d, run->data, run->len);
    g_byte_array_free (run, TRUE);
  }
  if (g->flags & WITH_AUXTRACE)
    put_auxtrace (d);
  if (g->flags & WITH_UNKNOWN)
    {
      put_other (d, 90, 24);
      put_other (d, 91, 0);
    }
  put_finished_round (d);
  return d;
}

/* Generation G's stream: a pipe-mode one, or a file whose attribute
   entries are attr_size + 16 bytes.  */
static GByteArray *
make_stream (const Generation *g)
{
  gboolean file = (g->flags & FILE_MODE) != 0;
  GByteArray *records = make_records (g, !file);
  GByteArray *b = g_byte_array_new ();
  const AttrSpec *a = attr_of (g);

  put (b, ST_PERF_MAGIC, 8);
  if (!file)
    {
      guint at;

      put_u64 (b, ST_PERF_PIPE_HEADER_SIZE);
      at = begin_record (b, ST_PERF_RECORD_HEADER_ATTR, 0);
      put_attr_sized (b, a, g->attr_size);
      put (b, attr_ids, sizeof attr_ids);
      end_record (b, at);
      put (b, records->data, records->len);
    }
  else
    {
      GByteArray *feats[2] = { NULL, NULL };
      int bits[2] = { 0, 0 }, n_feats = 0;
      uint64_t ids_at, attrs_at, data_at, at;

      put_u64 (b, ST_PERF_FILE_HEADER_SIZE);
      put_u64 (b, g->attr_size + 16);
      put_zeros (b, ST_PERF_FILE_HEADER_SIZE - 24);
      ids_at = b->len;
      put (b, attr_ids, sizeof attr_ids);
      attrs_at = b->len;
      put_attr_sized (b, a, g->attr_size);
      put_u64 (b, ids_at);
      put_u64 (b, sizeof attr_ids);
      data_at = b->len;
      put (b, records->data, records->len);
      set_u64 (b, 24, attrs_at);
      set_u64 (b, 32, g->attr_size + 16);
      set_u64 (b, 40, data_at);
      set_u64 (b, 48, records->len);
      if (g->flags & (COMPRESSED | COMPRESSED2))
        {
          bits[n_feats] = ST_PERF_FEAT_COMPRESSED;
          feats[n_feats++] = compressed_feature (1 << 20);
        }
      if (g->flags & WITH_UNKNOWN)
        {
          bits[n_feats] = 200;
          feats[n_feats] = g_byte_array_new ();
          put (feats[n_feats++], "future feature..", 16);
        }
      at = b->len + 16 * n_feats;
      for (int i = 0; i < n_feats; i++)
        {
          uint64_t word;

          put_u64 (b, at);
          put_u64 (b, feats[i]->len);
          at += feats[i]->len;
          memcpy (&word, b->data + 72 + 8 * (bits[i] / 64), 8);
          word |= 1ull << (bits[i] % 64);
          memcpy (b->data + 72 + 8 * (bits[i] / 64), &word, 8);
        }
      for (int i = 0; i < n_feats; i++)
        {
          put (b, feats[i]->data, feats[i]->len);
          g_byte_array_free (feats[i], TRUE);
        }
    }
  g_byte_array_free (records, TRUE);
  return b;
}

/* The run's samples came out, whole, in order.  */
static void
check_samples (const Generation *g, const Result *res)
{
  guint n = 0;

  g_assert_no_error (res->error);
  for (guint i = 0; i < res->evs->len; i++)
    {
      const Ev *e = ev_at (res, i);

      if (e->raw_type != ST_PERF_RECORD_SAMPLE)
        continue;
      g_assert_cmpint (e->tid, ==, PID);
      g_assert_cmpint (e->time, ==, (int64_t) SAMPLE_TIME (n));
      if (attr_of (g) == &raw_stack_attr)
        {
          g_assert_cmpint (e->kind, ==, ST_EVENT_STACK_USER);
          g_assert_cmpuint (e->n_regs, ==, 3);
          g_assert_cmpuint (e->u64s[2], ==, regs3[2]);
          g_assert_cmpuint (e->stack_size, ==, 64);
          g_assert_cmpuint (e->stack_last, ==, 64);
        }
      else
        {
          g_assert_cmpint (e->kind, ==, ST_EVENT_SAMPLE);
          g_assert_cmpuint (e->n_ips, ==, 2);
          g_assert_cmpuint (e->u64s[1], ==, chain2[1]);
        }
      n++;
    }
  g_assert_cmpuint (n, ==, N_SAMPLES);
  g_assert_cmpuint (count_type (res, ST_PERF_RECORD_COMPRESSED), ==, 0);
  g_assert_cmpuint (count_type (res, ST_PERF_RECORD_COMPRESSED2), ==, 0);
  g_assert_cmpuint (res->n_attrs, ==, 1);
}

/* The input's attribute bytes in the output: those of an older perf
   zero-extended to 128 (what perf 6.1 expects), a newer perf's kept
   whole; only the size field says the output's size.  */
static void
check_attr_kept (const Generation *g, const Result *in, const Result *out)
{
  gsize in_len, out_len;
  const uint8_t *a = g_bytes_get_data (in->attrs->pdata[0], &in_len);
  const uint8_t *b = g_bytes_get_data (out->attrs->pdata[0], &out_len);

  g_assert_cmpuint (in_len, ==, g->attr_size);
  g_assert_cmpuint (out_len, ==, MAX (g->attr_size, ST_PERF_ATTR_SIZE_VER7));
  g_assert_cmpmem (a, 4, b, 4);
  g_assert_cmpmem (a + 8, in_len - 8, b + 8, in_len - 8);
  for (gsize i = in_len; i < out_len; i++)
    g_assert_cmpuint (b[i], ==, 0);
}

/* IN passed through the pipeline into a perf.data (a file, or a pipe
   stream).  */
static GByteArray *
copy_through_pipeline (const GByteArray *in, gboolean to_file, char **stats)
{
  GBytes *in_bytes = g_bytes_new (in->data, in->len);
  StPipelineOptions opts = { .mode = ST_MODE_PASSTHRU,
                             .output_format = ST_FORMAT_PERF };
  Source src;
  Sink sink;

  source_open (&src, in_bytes, TRUE);
  sink_open (&sink, to_file);
  *stats = run_pipeline (src.fd, sink.fd, &opts);
  source_close (&src);
  g_bytes_unref (in_bytes);
  return g_bytes_unref_to_array (sink_close (&sink));
}

static void
test_generation (gconstpointer data)
{
  const Generation *g = data;
  GByteArray *stream = make_stream (g);
  Result *in[2];

  for (int via_pipe = 0; via_pipe < 2; via_pipe++)
    {
      in[via_pipe] = read_bytes (stream, via_pipe);
      check_samples (g, in[via_pipe]);
      /* Extras are passed on by size, as they are.  */
      if (g->flags & WITH_AUXTRACE)
        g_assert_cmpuint (count_type (in[via_pipe], ST_PERF_RECORD_AUXTRACE),
                          ==, 1);
      if (g->flags & WITH_UNKNOWN)
        g_assert_cmpuint (count_type (in[via_pipe], 90)
                          + count_type (in[via_pipe], 91), ==, 2);
    }
  assert_same_events (in[0], in[1], TRUE);

  for (int to_file = 0; to_file < 2; to_file++)
    {
      char *stats;
      GByteArray *out = copy_through_pipeline (stream, to_file, &stats);
      Result *res = read_bytes (out, !to_file);

      check_samples (g, res);
      check_attr_kept (g, in[0], res);
      g_assert_null (res->features[ST_PERF_FEAT_COMPRESSED]);
      g_assert_null (strstr (stats, "damaged"));
      /* perf 6.1 stops at user record types it does not know.  */
      g_assert_cmpuint (count_type (res, 90) + count_type (res, 91), ==, 0);
      if (g->flags & WITH_UNKNOWN)
        g_assert_nonnull (strstr (stats, "type 90=1"));
      if (g->flags & (WITH_TRACING_12 | WITH_TRACING_16))
        {
          const uint8_t *t = NULL;
          gsize len = 0;

          if (to_file)
            t = g_bytes_get_data (res->features[ST_PERF_FEAT_TRACING_DATA],
                                  &len);
          else
            for (guint i = 0; i < res->evs->len; i++)
              if (ev_at (res, i)->raw_type
                  == ST_PERF_RECORD_HEADER_TRACING_DATA)
                {
                  /* Written as perf 6.1 does: 16 bytes, then the data.  */
                  t = g_bytes_get_data (res->raws->pdata[i], &len);
                  g_assert_cmpuint (len, ==, 16 + 24);
                  g_assert_cmpuint (t[6], ==, 16);
                  t += 16;
                  len -= 16;
                }
          g_assert_nonnull (t);
          g_assert_cmpuint (len, ==, 24);
          g_assert_cmpmem (t, 20, "tracing-data-20bytes", 20);
        }
      g_free (stats);
      result_free (res);
      g_byte_array_free (out, TRUE);
    }
  result_free (in[0]);
  result_free (in[1]);
  g_byte_array_free (stream, TRUE);
}

/* --- compressed streams in detail ---------------------------------------- */

/* A pipe stream: the dwarf attribute, a HEADER_COMPRESSED feature with
   MMAP_LEN (0: none), then BODY.  */
static GByteArray *
compressed_pipe (uint32_t mmap_len, const GByteArray *body)
{
  GByteArray *d = g_byte_array_new ();
  AttrEntry attr = { &raw_stack_attr, attr_ids, 1 };
  GByteArray *stream;

  if (mmap_len != 0)
    {
      GByteArray *f = compressed_feature (mmap_len);

      put_feature_record (d, ST_PERF_FEAT_COMPRESSED, f->data, f->len);
      g_byte_array_free (f, TRUE);
    }
  put (d, body->data, body->len);
  stream = make_pipe (&attr, 1, d);
  g_byte_array_free (d, TRUE);
  return stream;
}

static guint
count_samples (const Result *res)
{
  return count_type (res, ST_PERF_RECORD_SAMPLE);
}

/* Reads STREAM with a damage handler; returns the damage seen.  */
static Result *
read_recovering (const GByteArray *stream, gboolean via_pipe, DamageLog *log)
{
  Result *res;

  memset (log, 0, sizeof *log);
  recovery = log;
  res = read_bytes (stream, via_pipe);
  recovery = NULL;
  g_assert_no_error (res->error);
  return res;
}

/* Offset in STREAM of the Nth record of TYPE after the pipe header.  */
static uint64_t
nth_record (const GByteArray *stream, uint32_t type, guint n)
{
  uint64_t pos = ST_PERF_PIPE_HEADER_SIZE;

  while (pos + 8 <= stream->len)
    {
      StPerfEventHeader h;

      memcpy (&h, stream->data + pos, sizeof h);
      if (h.type == type && n-- == 0)
        return pos;
      pos += h.size;
    }
  g_assert_not_reached ();
  return 0;
}

static void
test_corrupt (void)
{
  GByteArray *body = g_byte_array_new (), *run = g_byte_array_new ();
  ZSTD_CStream *cs = new_cstream ();
  GByteArray *stream;
  DamageLog log;
  Result *res;
  uint64_t bad;
  char *want;

  /* Two runs in one frame, the second one's first compressed record
     corrupt (a reserved block type), then a new frame with a third
     run.  */
  put_run (run, &raw_stack_attr);
  put_compressed (body, cs, FALSE, run, 64);
  put_finished_round (body);
  put_compressed (body, cs, FALSE, run, 64);
  put_finished_round (body);
  ZSTD_freeCStream (cs);
  cs = new_cstream ();
  put_compressed (body, cs, FALSE, run, 4096);
  put_finished_round (body);
  stream = compressed_pipe (1 << 20, body);
  bad = nth_record (stream, ST_PERF_RECORD_COMPRESSED,
                    (run->len + 63) / 64);
  memset (stream->data + bad + 8, 0xff, 3);

  for (int via_pipe = 0; via_pipe < 2; via_pipe++)
    {
      res = read_recovering (stream, via_pipe, &log);
      /* The first and third runs, the rounds.  */
      g_assert_cmpuint (count_samples (res), ==, 2 * N_SAMPLES);
      g_assert_cmpuint (count_type (res, ST_PERF_RECORD_FINISHED_ROUND), ==,
                        3);
      /* The corrupt record and the rest of its frame, each counted.  */
      g_assert_cmpuint (log.n, ==, (run->len + 63) / 64);
      g_assert_cmpint (log.action, ==, ST_DAMAGE_DROPPED);
      g_assert_cmpuint (log.offset, ==, bad);
      want = g_strdup_printf ("offset %" G_GUINT64_FORMAT ": bad perf record "
                              "(type 81, size ", bad);
      g_assert_true (g_str_has_prefix (log.message, want));
      g_assert_nonnull (strstr (log.message, "corrupt zstd data"));
      g_free (want);
      g_free (log.message);
      result_free (res);
    }

  /* Without a damage handler: an error naming the record.  */
  res = read_bytes (stream, TRUE);
  want = g_strdup_printf ("offset %" G_GUINT64_FORMAT ":", bad);
  assert_error (res, ST_ERROR_FORMAT, want, "corrupt zstd data");
  g_free (want);
  result_free (res);

  ZSTD_freeCStream (cs);
  g_byte_array_free (stream, TRUE);
  g_byte_array_free (run, TRUE);
  g_byte_array_free (body, TRUE);
}

static void
test_oversized (void)
{
  GByteArray *body = g_byte_array_new (), *run = g_byte_array_new ();
  ZSTD_CStream *cs;
  GByteArray *stream;
  DamageLog log;
  Result *res;
  uint64_t big;

  /* mmap_len 256: a compressed record of the whole run (more) is
     damage, the small ones of a new frame after it are not.  */
  put_run (run, &raw_stack_attr);
  g_assert_cmpuint (run->len, >, 256);
  cs = new_cstream ();
  put_compressed (body, cs, FALSE, run, 4096);
  ZSTD_freeCStream (cs);
  put_finished_round (body);
  cs = new_cstream ();
  put_compressed (body, cs, FALSE, run, 200);
  ZSTD_freeCStream (cs);
  stream = compressed_pipe (256, body);
  big = nth_record (stream, ST_PERF_RECORD_COMPRESSED, 0);

  res = read_recovering (stream, TRUE, &log);
  g_assert_cmpuint (count_samples (res), ==, N_SAMPLES);
  g_assert_cmpuint (log.n, ==, 1);
  g_assert_cmpuint (log.offset, ==, big);
  g_assert_nonnull (strstr (log.message, "decompresses to more than 256 "
                                         "bytes (the mmap_len"));
  g_free (log.message);
  result_free (res);
  g_byte_array_free (stream, TRUE);
  g_byte_array_free (run, TRUE);
  g_byte_array_free (body, TRUE);
}

static void
test_compressed2_padding (void)
{
  GByteArray *run = g_byte_array_new ();
  ZSTD_CStream *cs = new_cstream ();
  DamageLog log;

  put_run (run, &raw_stack_attr);
  /* Piece sizes whose compressed sizes are not multiples of 8.  */
  for (size_t piece = 5; piece < 40; piece += 7)
    {
      GByteArray *body = g_byte_array_new ();
      GByteArray *stream;
      Result *res;
      gboolean odd = FALSE;

      ZSTD_initCStream (cs, 1);
      put_compressed (body, cs, TRUE, run, piece);
      stream = compressed_pipe (0, body);
      for (uint64_t pos = nth_record (stream, ST_PERF_RECORD_COMPRESSED2, 0);
           pos < stream->len;)
        {
          StPerfEventHeader h;
          uint64_t data_size;

          memcpy (&h, stream->data + pos, sizeof h);
          memcpy (&data_size, stream->data + pos + 8, 8);
          g_assert_cmpuint (h.size % 8, ==, 0);
          odd |= data_size % 8 != 0;
          pos += h.size;
        }
      g_assert_true (odd);
      res = read_bytes (stream, TRUE);
      g_assert_no_error (res->error);
      g_assert_cmpuint (count_samples (res), ==, N_SAMPLES);
      result_free (res);

      /* A data size past the record: that record is damage.  */
      set_u64 (stream, nth_record (stream, ST_PERF_RECORD_COMPRESSED2, 0) + 8,
               1u << 16);
      res = read_recovering (stream, FALSE, &log);
      g_assert_cmpuint (log.n, >=, 1);
      g_assert_nonnull (strstr (log.message, "runs past the record"));
      g_free (log.message);
      result_free (res);
      g_byte_array_free (stream, TRUE);
      g_byte_array_free (body, TRUE);
    }
  ZSTD_freeCStream (cs);
  g_byte_array_free (run, TRUE);
}

static void
test_cut_inside (void)
{
  GByteArray *body = g_byte_array_new (), *run = g_byte_array_new ();
  ZSTD_CStream *cs = new_cstream ();
  GByteArray *stream;
  DamageLog log;
  Result *res;

  /* The stream ends after a compressed record that holds the start of a
     sample but not its end.  */
  put_run (run, &raw_stack_attr);
  g_byte_array_set_size (run, run->len - 8);
  put_compressed (body, cs, FALSE, run, 4096);
  stream = compressed_pipe (0, body);
  res = read_recovering (stream, TRUE, &log);
  g_assert_cmpuint (count_samples (res), ==, N_SAMPLES);
  g_assert_cmpuint (log.n, ==, 1);
  g_assert_cmpint (log.action, ==, ST_DAMAGE_TRUNCATED);
  g_assert_nonnull (strstr (log.message, "input ended inside a perf record "
                                         "begun in the data decompressed"));
  g_free (log.message);
  result_free (res);
  ZSTD_freeCStream (cs);
  g_byte_array_free (stream, TRUE);
  g_byte_array_free (run, TRUE);
  g_byte_array_free (body, TRUE);
}

/* Junk where a record should start, in streams whose records are not
   8-aligned: every record after it is found again.  */
static void
test_resync_unaligned (void)
{
  static const uint8_t junk[8] = { 68, 0, 0, 0, 0, 0, 4, 0 };  /* size 4 */
  GByteArray *body = g_byte_array_new (), *run = g_byte_array_new ();
  ZSTD_CStream *cs = new_cstream ();
  GByteArray *stream;
  DamageLog log;
  Result *res;
  uint64_t at;

  /* perf 4.x: records at offsets 4 modulo 8 after the tracing data.  */
  put_run (run, &raw_stack_attr);
  put_tracing_data (body, TRUE);
  put (body, run->data, run->len);
  at = body->len;
  put (body, junk, sizeof junk);
  put (body, run->data, run->len);
  stream = compressed_pipe (0, body);
  at += stream->len - body->len;
  g_assert_cmpuint (at % 8, ==, 4);
  for (int via_pipe = 0; via_pipe < 2; via_pipe++)
    {
      res = read_recovering (stream, via_pipe, &log);
      g_assert_cmpuint (count_samples (res), ==, 2 * N_SAMPLES);
      g_assert_cmpuint (log.n, ==, 1);
      g_assert_cmpint (log.action, ==, ST_DAMAGE_SKIPPED);
      g_assert_cmpuint (log.offset, ==, at);
      g_assert_cmpuint (log.n_bytes, ==, sizeof junk);
      g_free (log.message);
      result_free (res);
    }
  g_byte_array_free (stream, TRUE);

  /* perf record -z: compressed records of any size; five junk bytes
     between two of them.  */
  g_byte_array_set_size (body, 0);
  put_compressed (body, cs, FALSE, run, 45);
  at = body->len;
  put (body, "\xee\xee\xee\xee\xee", 5);
  put_compressed (body, cs, FALSE, run, 45);
  put_finished_round (body);
  stream = compressed_pipe (1 << 20, body);
  at += stream->len - body->len;
  for (int via_pipe = 0; via_pipe < 2; via_pipe++)
    {
      res = read_recovering (stream, via_pipe, &log);
      g_assert_cmpuint (count_samples (res), ==, 2 * N_SAMPLES);
      g_assert_cmpuint (log.n, ==, 1);
      g_assert_cmpuint (log.offset, ==, at);
      g_assert_cmpuint (log.n_bytes, ==, 5);
      g_free (log.message);
      result_free (res);
    }
  g_byte_array_free (stream, TRUE);

  /* Junk inside the compressed data: the records after it in the same
     decompressed bytes are found again.  */
  g_byte_array_set_size (body, 0);
  {
    GByteArray *bad_run = g_byte_array_new ();

    put (bad_run, run->data, run->len);
    put (bad_run, junk, sizeof junk);
    put (bad_run, run->data, run->len);
    ZSTD_initCStream (cs, 1);
    put_compressed (body, cs, FALSE, bad_run, 4096);
    g_byte_array_free (bad_run, TRUE);
  }
  stream = compressed_pipe (1 << 20, body);
  res = read_recovering (stream, TRUE, &log);
  g_assert_cmpuint (count_samples (res), ==, 2 * N_SAMPLES);
  g_assert_cmpuint (log.n, ==, 1);
  g_assert_cmpuint (log.n_bytes, ==, sizeof junk);
  g_assert_nonnull (strstr (log.message, "in the data decompressed from "
                                         "this compressed record"));
  g_free (log.message);
  result_free (res);
  g_byte_array_free (stream, TRUE);

  ZSTD_freeCStream (cs);
  g_byte_array_free (run, TRUE);
  g_byte_array_free (body, TRUE);
}

int
main (int argc, char **argv)
{
  signal (SIGPIPE, SIG_IGN);
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (generations); i++)
    {
      char *path = g_strdup_printf ("/perf-versions/%s",
                                    generations[i].name);

      g_test_add_data_func (path, &generations[i], test_generation);
      g_free (path);
    }
  g_test_add_func ("/perf-compressed/corrupt", test_corrupt);
  g_test_add_func ("/perf-compressed/oversized", test_oversized);
  g_test_add_func ("/perf-compressed/compressed2-padding",
                   test_compressed2_padding);
  g_test_add_func ("/perf-compressed/cut-inside", test_cut_inside);
  g_test_add_func ("/perf-versions/resync-unaligned", test_resync_unaligned);
  return g_test_run ();
}
