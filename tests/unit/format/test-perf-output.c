/* The perf output behind --output-format=perf
   (lib/format/perf-output.c), on perf.data built byte by byte
   (tests/lib/perf-stream): perf.data copied between file and pipe mode
   (byte-identical records in passthru), raw-stack samples re-serialized
   with their chain and every attribute copy patched (three attributes of
   different sample_types), TRACING_DATA and the AUXTRACE index between
   the modes, records with no counterpart reported by name, and the
   committed real recording unwound (each sample's user part equal to
   its --chains line).  All read back with our own perf reader.  */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/perf-attr.h"
#include "format/reader.h"
#include "format/writer.h"
#include "pipeline.h"
#include "util/domain.h"

#include "perf-stream.h"
#include "pipeline-run.h"
#include "test-io.h"

#define PID 4242
#define MASK_X86_64 0xff01ffull

static const uint8_t *
raw_at (const Result *res, guint i, gsize *len)
{
  return g_bytes_get_data (res->raws->pdata[i], len);
}

/* Three attributes with different sample_types (perf requires the same
   id position: IDENTIFIER in all): A with raw stacks and fields before
   and after them, B with raw stacks but no CALLCHAIN, C without raw
   stacks.  */
static const AttrSpec attr_a = {
  .sample_type = ST_PERF_SAMPLE_IDENTIFIER | ST_PERF_SAMPLE_IP
                 | ST_PERF_SAMPLE_TID | ST_PERF_SAMPLE_TIME
                 | ST_PERF_SAMPLE_ADDR | ST_PERF_SAMPLE_CPU
                 | ST_PERF_SAMPLE_PERIOD | ST_PERF_SAMPLE_READ
                 | ST_PERF_SAMPLE_CALLCHAIN | ST_PERF_SAMPLE_RAW
                 | ST_PERF_SAMPLE_REGS_USER | ST_PERF_SAMPLE_STACK_USER
                 | ST_PERF_SAMPLE_DATA_SRC,
  .read_format = ST_PERF_FORMAT_ID | ST_PERF_FORMAT_TOTAL_TIME_ENABLED,
  .flags = ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL | ST_PERF_ATTR_FLAG_MMAP2
           | ST_PERF_ATTR_FLAG_EXCLUDE_CALLCHAIN_USER,
  .regs_user = MASK_X86_64,
  .stack_user = 64,
};
static const AttrSpec attr_b = {
  .sample_type = ST_PERF_SAMPLE_IDENTIFIER | ST_PERF_SAMPLE_IP
                 | ST_PERF_SAMPLE_TID | ST_PERF_SAMPLE_TIME
                 | ST_PERF_SAMPLE_BRANCH_STACK | ST_PERF_SAMPLE_REGS_USER
                 | ST_PERF_SAMPLE_STACK_USER | ST_PERF_SAMPLE_DATA_SRC,
  .flags = ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL,
  .branch_sample_type = ST_PERF_BRANCH_HW_INDEX,
  .regs_user = 0xff,
  .stack_user = 32,
};
static const AttrSpec attr_c = {
  .sample_type = ST_PERF_SAMPLE_IDENTIFIER | ST_PERF_SAMPLE_IP
                 | ST_PERF_SAMPLE_TID | ST_PERF_SAMPLE_TIME
                 | ST_PERF_SAMPLE_CALLCHAIN,
  .flags = ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL,
};
static const uint64_t ids_a[] = { 1, 2 }, ids_b[] = { 3 }, ids_c[] = { 4 };

static const AttrEntry three_attrs[] = {
  { &attr_a, ids_a, 2 }, { &attr_b, ids_b, 1 }, { &attr_c, ids_c, 1 },
};

static uint64_t regs17[17], regs8[8];
static const uint64_t kchain[] = { ST_CONTEXT_KERNEL, 0xffffffff81000010ull,
                                   0xffffffff81000020ull };

/* The samples of the three attributes; in raw-stack samples, the time
   says what the fake unwinder returns (see fake_user_ips).  */
static SampleSpec samples[] = {
  /* A: kernel part, unwound.  */
  { .id = 1, .ip = 0xffffffff81000010ull, .time = 100, .pid = PID,
    .tid = PID, .cpu = 1, .chain = kchain, .n_chain = 3, .raw_size = 12,
    .abi = ST_REGS_ABI_64, .regs = regs17, .stack_size = 64,
    .dyn_size = 40 },
  /* A: user only, unwound to nothing (time 201: see fake_user_ips).  */
  { .id = 2, .ip = 0x401234, .time = 201, .pid = PID, .tid = PID + 1,
    .raw_size = 4, .abi = ST_REGS_ABI_64, .regs = regs17, .stack_size = 64,
    .dyn_size = 64 },
  /* A: no user registers (a kernel thread): no raw stack.  */
  { .id = 1, .ip = 0xffffffff81000010ull, .time = 300, .pid = 0, .tid = 0,
    .chain = kchain, .n_chain = 3, .raw_size = 4, .abi = 0 },
  /* B: unwound, CALLCHAIN added.  */
  { .id = 3, .ip = 0x401000, .time = 400, .pid = PID, .tid = PID,
    .n_branches = 2, .abi = ST_REGS_ABI_64, .regs = regs8, .stack_size = 32,
    .dyn_size = 32 },
  /* B: no raw stack, CALLCHAIN added (empty).  */
  { .id = 3, .ip = 0x401000, .time = 500, .pid = PID, .tid = PID,
    .n_branches = 1, .abi = 0 },
  /* C: untouched.  */
  { .id = 4, .ip = 0x401000, .time = 600, .pid = PID, .tid = PID,
    .chain = kchain, .n_chain = 3 },
};
static const AttrSpec *const sample_attr[] = {
  &attr_a, &attr_a, &attr_a, &attr_b, &attr_b, &attr_c,
};

/* A stand-in for the unwinder: two frames derived from the time, none
   for odd times.  */
static uint32_t
fake_user_ips (const StEvent *ev, uint64_t ips[2])
{
  if (ev->time % 2 != 0)
    return 0;
  ips[0] = 0x7000 + (uint64_t) ev->time;
  ips[1] = 0x8000 + (uint64_t) ev->time;
  return 2;
}

/* EVENT_DESC of ATTRS: u32 nr, u32 attr size, then each attr, its id
   count, its name (u32 length, padded string), its ids.  */
static GByteArray *
event_desc (const AttrEntry *attrs, int n)
{
  GByteArray *b = g_byte_array_new ();

  put_u32 (b, n);
  put_u32 (b, ATTR_BYTES);
  for (int i = 0; i < n; i++)
    {
      char name[16] = "event-x";

      name[6] = (char) ('a' + i);
      put_attr (b, attrs[i].attr);
      put_u32 (b, attrs[i].n_ids);
      put_u32 (b, sizeof name);
      put (b, name, sizeof name);
      put (b, attrs[i].ids, 8 * attrs[i].n_ids);
    }
  return b;
}

static GByteArray *
string_feature (const char *s)
{
  GByteArray *b = g_byte_array_new ();
  uint32_t len = 16;
  char padded[16] = { 0 };

  g_strlcpy (padded, s, sizeof padded);
  put_u32 (b, len);
  put (b, padded, len);
  return b;
}

static GByteArray *
three_attr_records (void)
{
  GByteArray *d = g_byte_array_new ();
  Trailer t = { PID, PID, 50, 1, 0, 1 };

  for (int i = 0; i < 17; i++)
    regs17[i] = 0x1000 + i;
  for (int i = 0; i < 8; i++)
    regs8[i] = 0x2000 + i;
  put_comm (d, &attr_a, &t, TRUE, "prog");
  put_mmap2 (d, &attr_a, &t, 0x400000, 0x2000, 0x1000, 99, -1, 0, 5,
             "/usr/bin/prog");
  for (guint i = 0; i < G_N_ELEMENTS (samples); i++)
    put_sample (d, sample_attr[i], &samples[i]);
  put_other (d, ST_PERF_RECORD_FINISHED_ROUND, 0);
  t.time = 700;
  put_fork_exit (d, &attr_a, &t, ST_PERF_RECORD_EXIT, PID, PID, PID, PID,
                 700);
  return d;
}

/* The features of the file-mode input.  */
static void
three_attr_features (Feature feats[3])
{
  feats[0].bit = ST_PERF_FEAT_BUILD_ID;
  feats[0].bytes = g_byte_array_new ();
  put_build_id_entry (feats[0].bytes, 0x11, 20, "/usr/bin/prog");
  feats[1].bit = 3;
  feats[1].bytes = string_feature ("myhost");
  feats[2].bit = ST_PERF_FEAT_EVENT_DESC;
  feats[2].bytes = event_desc (three_attrs, 3);
}

/* The pipe-mode input: what perf record -o - writes for the same.  */
static GByteArray *
three_attr_pipe (const Feature feats[3], gboolean event_type)
{
  GByteArray *d = g_byte_array_new ();
  GByteArray *records = three_attr_records ();
  GByteArray *pipe;
  guint at;

  for (int i = 1; i < 3; i++)
    {
      at = begin_record (d, ST_PERF_RECORD_HEADER_FEATURE, 0);
      put_u64 (d, feats[i].bit);
      put (d, feats[i].bytes->data, feats[i].bytes->len);
      end_record (d, at);
    }
  at = begin_record (d, ST_PERF_RECORD_HEADER_FEATURE, 0);
  put_u64 (d, ST_PERF_FEAT_LAST_6_1);        /* end of the features */
  end_record (d, at);
  put_build_id_entry (d, 0x11, 20, "/usr/bin/prog");
  if (event_type)
    put_other (d, ST_PERF_RECORD_HEADER_EVENT_TYPE, 8);
  put (d, records->data, records->len);
  pipe = make_pipe (three_attrs, 3, d);
  g_byte_array_free (records, TRUE);
  g_byte_array_free (d, TRUE);
  return pipe;
}

/* Runs INPUT (through a pipe or a file) through the perf output into a
   file or a pipe; with UNWINDING, raw stacks go through the unwound op
   with fake_user_ips.  Returns the output.  */
static GByteArray *
convert (const GByteArray *input, gboolean input_pipe, gboolean output_file,
         gboolean unwinding)
{
  GBytes *in_bytes = g_bytes_new (input->data, input->len);
  Source src;
  Sink sink;
  StReader *reader;
  StWriter *writer;
  StEvent ev;
  GError *error = NULL;
  int rc;

  source_open (&src, in_bytes, input_pipe);
  sink_open (&sink, output_file);
  reader = st_reader_new (src.fd, ST_FORMAT_AUTO, &error);
  g_assert_no_error (error);
  writer = st_writer_new (sink.fd, ST_FORMAT_PERF, reader, unwinding,
                          &error);
  g_assert_no_error (error);
  while ((rc = st_reader_next (reader, &ev, &error)) > 0)
    {
      if (unwinding && ev.kind == ST_EVENT_STACK_USER)
        {
          uint64_t ips[2];

          st_writer_unwound (writer, &ev, ips, fake_user_ips (&ev, ips));
        }
      else
        st_writer_event (writer, &ev);
    }
  g_assert_no_error (error);
  g_assert_true (st_writer_finish (writer, &error));
  g_assert_no_error (error);
  st_writer_free (writer);
  st_reader_free (reader);
  source_close (&src);
  g_bytes_unref (in_bytes);
  return g_bytes_unref_to_array (sink_close (&sink));
}

/* Events of the output from the first non-header record on equal those
   of the input, byte for byte.  */
static void
assert_same_records (const Result *in, guint in_first, const Result *out,
                     guint out_first)
{
  g_assert_no_error (in->error);
  g_assert_no_error (out->error);
  g_assert_cmpuint (in->evs->len - in_first, ==, out->evs->len - out_first);
  for (guint i = 0; i < in->evs->len - in_first; i++)
    g_assert_true (g_bytes_equal (in->raws->pdata[in_first + i],
                                  out->raws->pdata[out_first + i]));
}

/* The indices of the records that are not pipe-mode header records
   (those may come last, from a file-mode input read through a pipe).  */
static GArray *
data_records (const Result *res)
{
  GArray *idx = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = 0; i < res->evs->len; i++)
    if (!is_pipe_header_record (ev_at (res, i)->raw_type))
      g_array_append_val (idx, i);
  return idx;
}

/* The raw bytes of the HEADER_FEATURE record of feature BIT.  */
static const uint8_t *
feature_record (const Result *res, guint bit, gsize *len)
{
  for (guint i = 0; i < res->evs->len; i++)
    {
      const uint8_t *raw = raw_at (res, i, len);
      uint64_t feat;

      if (ev_at (res, i)->raw_type != ST_PERF_RECORD_HEADER_FEATURE)
        continue;
      memcpy (&feat, raw + 8, 8);
      if (feat == bit)
        return raw;
    }
  g_error ("no HEADER_FEATURE record of feature %u", bit);
  return NULL;
}

/* The same recording as a file-mode and a pipe-mode input, and what our
   reader makes of each.  */
typedef struct
{
  Feature feats[3];
  GByteArray *records;
  GByteArray *file;
  GByteArray *pipe;
  Result *in_file;
  Result *in_pipe;
} Inputs;

static void
inputs_make (Inputs *in)
{
  three_attr_features (in->feats);
  in->records = three_attr_records ();
  in->file = make_file (three_attrs, 3, in->records, in->feats, 3, 0);
  in->pipe = three_attr_pipe (in->feats, FALSE);
  in->in_file = read_bytes (in->file, FALSE);
  in->in_pipe = read_bytes (in->pipe, TRUE);
}

static void
inputs_free (Inputs *in)
{
  result_free (in->in_file);
  result_free (in->in_pipe);
  g_byte_array_free (in->file, TRUE);
  g_byte_array_free (in->pipe, TRUE);
  g_byte_array_free (in->records, TRUE);
  for (int i = 0; i < 3; i++)
    g_byte_array_free (in->feats[i].bytes, TRUE);
}

static void
test_passthru (void)
{
  Inputs in;
  GByteArray *out;
  Result *res;

  inputs_make (&in);

  /* file -> file, read through a file and through a pipe: the same
     records, attributes and features.  */
  for (int via_pipe = 0; via_pipe <= 1; via_pipe++)
    {
      out = convert (in.file, via_pipe, TRUE, FALSE);
      res = read_bytes (out, FALSE);
      assert_same_records (in.in_file, 0, res, 0);
      g_assert_cmpuint (res->n_attrs, ==, 3);
      for (guint i = 0; i < 3; i++)
        g_assert_true (g_bytes_equal (in.in_file->attrs->pdata[i],
                                      res->attrs->pdata[i]));
      for (guint bit = 0; bit < ST_PERF_FEATURE_BITS; bit++)
        g_assert_true ((in.in_file->features[bit] == NULL)
                       == (res->features[bit] == NULL)
                       && (res->features[bit] == NULL
                           || g_bytes_equal (in.in_file->features[bit],
                                             res->features[bit])));
      result_free (res);
      g_byte_array_free (out, TRUE);
    }

  /* pipe -> pipe: byte-identical.  */
  out = convert (in.pipe, TRUE, FALSE, FALSE);
  g_assert_cmpmem (out->data, out->len, in.pipe->data, in.pipe->len);
  g_byte_array_free (out, TRUE);

  /* file -> pipe: the header parts as records first.  */
  out = convert (in.file, FALSE, FALSE, FALSE);
  res = read_bytes (out, TRUE);
  g_assert_cmpuint (result_first_data (res), ==, 3 + 2 + 1);
  g_assert_cmpuint (count_type (res, ST_PERF_RECORD_HEADER_ATTR), ==, 3);
  g_assert_cmpuint (count_type (res, ST_PERF_RECORD_HEADER_FEATURE), ==, 2);
  g_assert_cmpuint (count_type (res, ST_PERF_RECORD_HEADER_BUILD_ID), ==, 1);
  assert_same_records (in.in_file, 0, res, result_first_data (res));
  for (guint i = 0; i < 3; i++)
    g_assert_true (g_bytes_equal (in.in_file->attrs->pdata[i],
                                  res->attrs->pdata[i]));
  /* ... and the MMAP2 gets its build-id from the HEADER_BUILD_ID.  */
  g_assert_cmpuint (ev_at (res, result_first_data (res) + 1)->build_id_len,
                    ==, 20);
  result_free (res);
  g_byte_array_free (out, TRUE);

  /* pipe -> file: the header records become the header parts.  */
  out = convert (in.pipe, TRUE, TRUE, FALSE);
  res = read_bytes (out, FALSE);
  assert_same_records (in.in_pipe, result_first_data (in.in_pipe), res, 0);
  g_assert_cmpuint (res->n_attrs, ==, 3);
  for (guint bit = 0; bit < ST_PERF_FEATURE_BITS; bit++)
    {
      const Feature *f = NULL;

      for (int i = 0; i < 3; i++)
        if (in.feats[i].bit == (int) bit)
          f = &in.feats[i];
      if (f == NULL)
        {
          g_assert_null (res->features[bit]);
          continue;
        }
      g_assert_nonnull (res->features[bit]);
      /* BUILD_ID entries have type 0 in a file.  */
      if (bit != ST_PERF_FEAT_BUILD_ID)
        g_assert_cmpmem (g_bytes_get_data (res->features[bit], NULL),
                         g_bytes_get_size (res->features[bit]),
                         f->bytes->data, f->bytes->len);
    }
  g_assert_cmpuint (ev_at (res, 1)->build_id_len, ==, 20);
  result_free (res);
  g_byte_array_free (out, TRUE);

  inputs_free (&in);
}

static AttrSpec
unwound_spec (const AttrSpec *a)
{
  AttrSpec u = *a;

  if (st_perf_attr_has_raw_stacks (a->sample_type))
    {
      u.sample_type = st_perf_attr_unwound_sample_type (a->sample_type);
      u.flags &= ~ST_PERF_ATTR_FLAG_EXCLUDE_CALLCHAIN_USER;
      u.regs_user = 0;
      u.stack_user = 0;
    }
  return u;
}

/* The sample records the output must hold, built from the specs.  */
static GByteArray *
expected_sample (guint i)
{
  SampleSpec s = samples[i];
  AttrSpec u = unwound_spec (sample_attr[i]);
  GByteArray *b = g_byte_array_new ();
  uint64_t chain[8];
  uint32_t n = 0;
  StEvent ev = { .time = (int64_t) s.time };
  uint64_t ips[2];

  if (s.abi != 0 && st_perf_attr_has_raw_stacks (sample_attr[i]->sample_type))
    {
      uint32_t n_user = fake_user_ips (&ev, ips);

      for (uint32_t k = 0; k < s.n_chain; k++)
        chain[n++] = s.chain[k];
      chain[n++] = ST_CONTEXT_USER;
      if (n_user == 0)
        chain[n++] = s.ip;       /* the sampled user IP */
      for (uint32_t k = 0; k < n_user; k++)
        chain[n++] = ips[k];
      s.chain = chain;
      s.n_chain = n;
    }
  s.abi = 0;
  s.stack_size = 0;
  put_sample (b, &u, &s);
  return b;
}

/* The attributes have lost their raw stacks (all but C).  */
static void
check_patched_attr (const uint8_t *attr, guint i)
{
  const AttrSpec *spec = three_attrs[i].attr;
  AttrSpec u = unwound_spec (spec);
  uint64_t v;
  uint32_t stack;

  memcpy (&v, attr + ST_PERF_ATTR_SAMPLE_TYPE, 8);
  g_assert_cmphex (v, ==, u.sample_type);
  memcpy (&v, attr + ST_PERF_ATTR_FLAGS, 8);
  g_assert_cmphex (v, ==, u.flags);
  memcpy (&v, attr + ST_PERF_ATTR_SAMPLE_REGS_USER, 8);
  g_assert_cmphex (v, ==, u.regs_user);
  memcpy (&stack, attr + ST_PERF_ATTR_SAMPLE_STACK_USER, 4);
  g_assert_cmpuint (stack, ==, u.stack_user);
}

/* Every attribute copy inside an EVENT_DESC section.  */
static void
check_event_desc (const uint8_t *sec, size_t size)
{
  size_t pos = 8;
  uint32_t nr, n_ids, len;

  memcpy (&nr, sec, 4);
  g_assert_cmpuint (nr, ==, 3);
  for (guint i = 0; i < nr; i++)
    {
      check_patched_attr (sec + pos, i);
      pos += ATTR_BYTES;
      memcpy (&n_ids, sec + pos, 4);
      memcpy (&len, sec + pos + 4, 4);
      pos += 8 + len + 8 * n_ids;
    }
  g_assert_cmpuint (pos, ==, size);
}

/* The unwound output RES: the samples re-serialized, the rest as in the
   input IN, every attribute copy patched.  */
static void
check_unwound (const Result *in, const Result *res)
{
  GArray *in_idx = data_records (in), *idx = data_records (res);
  guint k = 0;
  gsize len;
  const uint8_t *desc;

  g_assert_no_error (res->error);
  g_assert_cmpuint (idx->len, ==, in_idx->len);
  for (guint n = 0; n < idx->len; n++)
    {
      guint i = g_array_index (idx, guint, n);
      guint j = g_array_index (in_idx, guint, n);
      const Ev *e = ev_at (res, i);

      if (e->raw_type == ST_PERF_RECORD_SAMPLE)
        {
          GByteArray *want = expected_sample (k++);
          const uint8_t *raw = raw_at (res, i, &len);

          g_assert_cmpint (e->kind, ==, ST_EVENT_SAMPLE);
          g_assert_cmpmem (raw, len, want->data, want->len);
          g_byte_array_free (want, TRUE);
        }
      else
        g_assert_true (g_bytes_equal (in->raws->pdata[j],
                                      res->raws->pdata[i]));
    }
  g_assert_cmpuint (k, ==, G_N_ELEMENTS (samples));
  g_assert_cmpuint (res->n_attrs, ==, 3);
  for (guint i = 0; i < 3; i++)
    check_patched_attr (g_bytes_get_data (res->attrs->pdata[i], NULL), i);
  if (!res->pipe_mode)
    {
      desc = g_bytes_get_data (res->features[ST_PERF_FEAT_EVENT_DESC], &len);
      check_event_desc (desc, len);
      g_assert_nonnull (res->features[ST_PERF_FEAT_BUILD_ID]);
    }
  else
    {
      desc = feature_record (res, ST_PERF_FEAT_EVENT_DESC, &len);
      check_event_desc (desc + 16, len - 16);
      g_assert_cmpuint (count_type (res, ST_PERF_RECORD_HEADER_BUILD_ID), ==,
                        1);
    }
  g_array_free (idx, TRUE);
  g_array_free (in_idx, TRUE);
}

static void
test_unwound (void)
{
  Inputs in;

  inputs_make (&in);
  for (int in_mode = 0; in_mode < 3; in_mode++)
    for (int out_file = 0; out_file <= 1; out_file++)
      {
        /* 0: a file read as a file, 1: through a pipe, 2: pipe mode.  */
        const GByteArray *input = in_mode < 2 ? in.file : in.pipe;
        GByteArray *out = convert (input, in_mode > 0, out_file, TRUE);
        Result *res = read_bytes (out, !out_file);

        check_unwound (in_mode < 2 ? in.in_file : in.in_pipe, res);
        result_free (res);
        g_byte_array_free (out, TRUE);
      }
  inputs_free (&in);
}

/* The features that live elsewhere in pipe mode: TRACING_DATA becomes a
   HEADER_TRACING_DATA record (its data padded to 8) and back; the
   AUXTRACE index follows its records when a sample before them
   shrinks.  */
static void
test_tracing_and_auxtrace (void)
{
  static const char tracing[] = "tracing!";    /* 9 bytes */
  AttrEntry attr = { &attr_a, ids_a, 2 };
  GByteArray *d = g_byte_array_new ();
  Feature feats[2] = { { ST_PERF_FEAT_TRACING_DATA, g_byte_array_new () },
                       { ST_PERF_FEAT_AUXTRACE, g_byte_array_new () } };
  uint64_t data_offset = ST_PERF_FILE_HEADER_SIZE + 2 * 8 + ATTR_BYTES + 16;
  uint64_t aux_at;
  GByteArray *file, *out, *back;
  Result *res, *file_res;
  guint at, i;
  gsize len;
  const uint8_t *raw;
  uint64_t entry[3];

  for (int k = 0; k < 17; k++)
    regs17[k] = 0x1000 + k;
  put_sample (d, &attr_a, &samples[0]);         /* shrinks when unwound */
  aux_at = data_offset + d->len;
  at = begin_record (d, ST_PERF_RECORD_AUXTRACE, 0);
  put_u64 (d, 16);                              /* payload size */
  put_u64 (d, 0);
  put_u64 (d, 0);
  put_u32 (d, 0);
  put_u32 (d, PID);
  put_u32 (d, 1);
  put_u32 (d, 0);
  end_record (d, at);
  put (d, "0123456789abcdef", 16);
  put (feats[0].bytes, tracing, sizeof tracing);
  put_u64 (feats[1].bytes, 1);
  put_u64 (feats[1].bytes, aux_at);
  put_u64 (feats[1].bytes, 48 + 16);
  file = make_file (&attr, 1, d, feats, 2, 0);

  /* file -> pipe: HEADER_TRACING_DATA with the padded data; AUXTRACE has
     no pipe-mode record.  */
  out = convert (file, FALSE, FALSE, FALSE);
  res = read_bytes (out, TRUE);
  g_assert_no_error (res->error);
  g_assert_cmpuint (count_type (res, ST_PERF_RECORD_HEADER_TRACING_DATA), ==,
                    1);
  for (i = 0; ev_at (res, i)->raw_type != ST_PERF_RECORD_HEADER_TRACING_DATA;
       i++)
    ;
  raw = raw_at (res, i, &len);
  g_assert_cmpuint (len, ==, 16 + 16);
  g_assert_cmpmem (raw + 16, sizeof tracing, tracing, sizeof tracing);
  g_assert_cmpuint (count_type (res, ST_PERF_RECORD_HEADER_FEATURE), ==, 0);

  /* ... and back into a file: the TRACING_DATA section again.  */
  back = convert (out, TRUE, TRUE, FALSE);
  result_free (res);
  res = read_bytes (back, FALSE);
  g_assert_no_error (res->error);
  raw = g_bytes_get_data (res->features[ST_PERF_FEAT_TRACING_DATA], &len);
  g_assert_cmpuint (len, ==, 16);
  g_assert_cmpmem (raw, sizeof tracing, tracing, sizeof tracing);
  result_free (res);
  g_byte_array_free (back, TRUE);
  g_byte_array_free (out, TRUE);

  /* file -> file, unwound: the AUXTRACE record moves, its index too.  */
  file_res = read_bytes (file, FALSE);
  g_assert_cmpuint (ev_at (file_res, 1)->offset, ==, aux_at);
  out = convert (file, FALSE, TRUE, TRUE);
  res = read_bytes (out, FALSE);
  g_assert_no_error (res->error);
  g_assert_cmpuint (ev_at (res, 1)->raw_type, ==, ST_PERF_RECORD_AUXTRACE);
  g_assert_cmpuint (ev_at (res, 1)->offset, <, aux_at);
  g_assert_true (g_bytes_equal (res->raws->pdata[1],
                                file_res->raws->pdata[1]));
  raw = g_bytes_get_data (res->features[ST_PERF_FEAT_AUXTRACE], &len);
  g_assert_cmpuint (len, ==, 24);
  memcpy (entry, raw, 24);
  g_assert_cmpuint (entry[0], ==, 1);
  g_assert_cmpuint (entry[1], ==, ev_at (res, 1)->offset);
  g_assert_cmpuint (entry[2], ==, 48 + 16);
  result_free (res);
  result_free (file_res);
  g_byte_array_free (out, TRUE);
  g_byte_array_free (file, TRUE);
  g_byte_array_free (feats[0].bytes, TRUE);
  g_byte_array_free (feats[1].bytes, TRUE);
  g_byte_array_free (d, TRUE);
}

/* pipe -> file: the obsolete HEADER_EVENT_TYPE has no place in a file;
   the pipeline reports it by name.  */
static void
test_no_counterpart (void)
{
  Inputs in;
  GByteArray *pipe;
  GBytes *in_bytes;
  Source src;
  Sink sink;
  StPipelineOptions opts = { .mode = ST_MODE_PASSTHRU,
                             .output_format = ST_FORMAT_PERF };
  char *stats;

  inputs_make (&in);
  pipe = three_attr_pipe (in.feats, TRUE);
  in_bytes = g_bytes_new (pipe->data, pipe->len);
  source_open (&src, in_bytes, TRUE);
  sink_open (&sink, TRUE);
  stats = run_pipeline (src.fd, sink.fd, &opts);
  g_assert_nonnull (strstr (stats, "1 event(s) have no counterpart in the "
                                   "output format and were not written: "
                                   "HEADER_EVENT_TYPE=1\n"));
  g_free (stats);
  source_close (&src);
  g_bytes_unref (sink_close (&sink));
  g_bytes_unref (in_bytes);
  g_byte_array_free (pipe, TRUE);
  inputs_free (&in);
}

/* --- a real recording ---------------------------------------------------- */

/* The committed fixture (perf record --call-graph=dwarf of a static
   program), unwound into perf.data, file and pipe mode: every raw-stack
   sample becomes a sample whose user part is the unwound chain of the
   --chains file, the build-id table is kept.  */
static void
test_fixture (void)
{
  const char *data_dir = g_getenv ("TESTS_DATA");
  char *symfs, *path, *contents = NULL;
  gsize len = 0;
  GByteArray *input;
  Result *in;

  if (data_dir == NULL)
    {
      g_test_skip ("TESTS_DATA not set (run through make check)");
      return;
    }
  symfs = g_build_filename (data_dir, "fixture", NULL);
  path = g_build_filename (symfs, "fixture.data", NULL);
  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  input = g_byte_array_new_take ((guint8 *) contents, len);
  in = read_bytes (input, FALSE);
  g_assert_no_error (in->error);

  for (int out_file = 0; out_file <= 1; out_file++)
    {
      GBytes *in_bytes = g_bytes_new (input->data, input->len);
      Source src;
      Sink sink;
      char *chains = NULL;
      size_t chains_len = 0;
      FILE *mem = open_memstream (&chains, &chains_len);
      StPipelineOptions opts = { .mode = ST_MODE_UNWIND, .symfs = symfs,
                                 .chains = mem, .stitch = TRUE,
                                 .output_format = ST_FORMAT_PERF };
      GByteArray *out;
      Result *res;
      char **lines;
      guint n_samples = 0, n_line = 0, complete = 0;

      source_open (&src, in_bytes, TRUE);
      sink_open (&sink, out_file);
      g_free (run_pipeline (src.fd, sink.fd, &opts));
      source_close (&src);
      g_bytes_unref (in_bytes);
      fclose (mem);
      out = g_bytes_unref_to_array (sink_close (&sink));
      res = read_bytes (out, !out_file);
      g_assert_no_error (res->error);

      g_assert_cmpuint (count_type (res, ST_PERF_RECORD_SAMPLE), ==,
                        count_type (in, ST_PERF_RECORD_SAMPLE));
      /* Records stay in place: output event I is input event I, the
         header records of a pipe aside.  */
      lines = g_strsplit (chains, "\n", -1);
      for (guint i = 0, o = result_first_data (res); i < in->evs->len;
           i++, o++)
        {
          const Ev *e = ev_at (res, o);
          char **fields, **addrs;
          guint user = 0;

          g_assert_cmpuint (e->raw_type, ==, ev_at (in, i)->raw_type);
          if (ev_at (in, i)->kind != ST_EVENT_STACK_USER)
            continue;
          g_assert_cmpint (e->kind, ==, ST_EVENT_SAMPLE);
          n_samples++;
          while (user < e->n_ips && e->u64s[user] != ST_CONTEXT_USER)
            user++;
          g_assert_cmpuint (user, <, e->n_ips);
          user++;
          /* The chains file lists the unwound samples in output order.  */
          fields = g_strsplit (lines[n_line++], "\t", -1);
          g_assert_cmpuint (g_strv_length (fields), ==, 5);
          g_assert_cmpint (g_ascii_strtoll (fields[1], NULL, 10), ==, e->tid);
          g_assert_cmpint (g_ascii_strtoll (fields[2], NULL, 10), ==,
                           e->time);
          addrs = g_strsplit (fields[3], ",", -1);
          if (fields[3][0] != '\0')
            {
              g_assert_cmpuint (g_strv_length (addrs), ==, e->n_ips - user);
              for (guint k = 0; addrs[k] != NULL && user + k < 64; k++)
                g_assert_cmphex (g_ascii_strtoull (addrs[k], NULL, 16), ==,
                                 e->u64s[user + k]);
              complete += g_str_has_suffix (fields[4], "_start");
            }
          g_strfreev (addrs);
          g_strfreev (fields);
        }
      g_test_message ("%s output: %u raw-stack samples, %u chains lines, "
                      "%u reached _start", out_file ? "file" : "pipe",
                      n_samples, n_line, complete);
      g_assert_cmpuint (n_samples, >, 200);
      g_assert_cmpuint (n_line, ==, n_samples);
      g_assert_cmpuint (complete * 100, >=, n_samples * 95);
      for (guint a = 0; a < res->n_attrs; a++)
        g_assert_false (st_perf_attr_has_raw_stacks (
          result_attr_u64 (res, a, ST_PERF_ATTR_SAMPLE_TYPE)));
      if (out_file)
        g_assert_true (g_bytes_equal (in->features[ST_PERF_FEAT_BUILD_ID],
                                      res->features[ST_PERF_FEAT_BUILD_ID]));
      else
        g_assert_cmpuint (count_type (res, ST_PERF_RECORD_HEADER_BUILD_ID),
                          >, 0);
      g_strfreev (lines);
      free (chains);
      result_free (res);
      g_byte_array_free (out, TRUE);
    }
  result_free (in);
  g_byte_array_free (input, TRUE);
  g_free (path);
  g_free (symfs);
}

int
main (int argc, char **argv)
{
  signal (SIGPIPE, SIG_IGN);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/perf-output/passthru", test_passthru);
  g_test_add_func ("/perf-output/unwound", test_unwound);
  g_test_add_func ("/perf-output/tracing-and-auxtrace",
                   test_tracing_and_auxtrace);
  g_test_add_func ("/perf-output/no-counterpart", test_no_counterpart);
  g_test_add_func ("/perf-output/fixture", test_fixture);
  return g_test_run ();
}
