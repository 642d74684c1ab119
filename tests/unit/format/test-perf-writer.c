/* The perf.data writer (lib/format/perf-writer.c): every record kind
   through st_perf_writer_*, in file and pipe mode, with an attribute
   given late and an older perf's smaller attribute zero-extended; samples
   too large for a record losing the root end of their stack, then of
   their chain; unwound samples in both modes, over more than the output
   buffer holds (built in place, or elsewhere where the buffer has no
   room), each the record perf would have written with that chain.  All
   read back with our own perf reader (tests/lib/perf-stream).  */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/perf-attr.h"
#include "format/perf-sample.h"
#include "format/perf-writer.h"
#include "util/domain.h"

#include "perf-stream.h"
#include "test-io.h"

#define PID 4242
#define MASK_X86_64 0xff01ffull

static const uint8_t *
raw_at (const Result *res, guint i, gsize *len)
{
  return g_bytes_get_data (res->raws->pdata[i], len);
}

static const uint8_t bid_prog[20] = {
  0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
  0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
};

/* A 120-byte attribute of an older perf: zero-extended on output.  */
static void
small_attr (uint8_t attr[120])
{
  uint32_t type = 1, size = 120;
  uint64_t st = ST_PERF_SAMPLE_IDENTIFIER | ST_PERF_SAMPLE_IP
                | ST_PERF_SAMPLE_TID | ST_PERF_SAMPLE_TIME;
  uint64_t flags = ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL;

  memset (attr, 0, 120);
  memcpy (attr + ST_PERF_ATTR_TYPE, &type, 4);
  memcpy (attr + ST_PERF_ATTR_SIZE, &size, 4);
  memcpy (attr + ST_PERF_ATTR_SAMPLE_TYPE, &st, 8);
  memcpy (attr + ST_PERF_ATTR_FLAGS, &flags, 8);
}

/* Every record kind through st_perf_writer_*; LATE: the second attribute
   comes after the first record.  */
/* A writer (FILE_MODE or pipe mode) over SINK, through *OUT.  */
static StPerfWriter *
writer_open (Sink *sink, gboolean file_mode, StOutput **out)
{
  sink_open (sink, file_mode);
  *out = st_output_new (sink->fd);
  return st_perf_writer_new (*out, file_mode);
}

/* W finished (it must be, without error) and freed with OUT: the bytes
   SINK got.  */
static GByteArray *
writer_close (StPerfWriter *w, StOutput *out, Sink *sink)
{
  GError *error = NULL;

  g_assert_true (st_perf_writer_finish (w, &error));
  g_assert_no_error (error);
  st_perf_writer_free (w);
  st_output_free (out);
  return g_bytes_unref_to_array (sink_close (sink));
}

static GByteArray *
write_every_kind (gboolean file_mode, gboolean late)
{
  Sink sink;
  StOutput *out;
  StPerfWriter *w;
  StPerfEventAttr a;
  uint8_t small[120];
  static const uint64_t ids_a[] = { 5, 6 }, ids_b[] = { 7 };
  static const uint64_t chain[] = { ST_CONTEXT_KERNEL, 0xffffffff81000001ull,
                                    0xffffffff81000002ull };
  uint64_t regs[17];
  uint8_t stack[13];
  uint8_t host[4 + 8] = { 8, 0, 0, 0, 'm', 'y', 'h', 'o', 's', 't' };
  static const uint8_t other[16] = { 73, 0, 0, 0, 0, 0, 16, 0, 1, 2, 3, 4 };
  StPerfSampleId sid = { PID, PID + 1, 1000, 5, 1 };
  StPerfSampleFields f = {
    .id = 5, .ip = 0xffffffff81000001ull, .pid = PID, .tid = PID + 1,
    .time = 2000, .cpu = 1, .period = 3, .ips = chain, .n_ips = 3,
    .abi = ST_REGS_ABI_64, .regs = regs, .n_regs = 17, .stack = stack,
    .stack_size = sizeof stack,
  };

  for (int i = 0; i < 17; i++)
    regs[i] = 0x100 + i;
  for (size_t i = 0; i < sizeof stack; i++)
    stack[i] = (uint8_t) (i + 1);
  memset (&a, 0, sizeof a);
  a.type = 1;
  a.size = sizeof a;
  a.sample_type = ST_PERF_SAMPLE_IDENTIFIER | ST_PERF_SAMPLE_IP
                  | ST_PERF_SAMPLE_TID | ST_PERF_SAMPLE_TIME
                  | ST_PERF_SAMPLE_CPU | ST_PERF_SAMPLE_PERIOD
                  | ST_PERF_SAMPLE_CALLCHAIN | ST_PERF_SAMPLE_REGS_USER
                  | ST_PERF_SAMPLE_STACK_USER;
  a.flags = ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL | ST_PERF_ATTR_FLAG_MMAP2;
  a.sample_regs_user = MASK_X86_64;
  a.sample_stack_user = 64;
  small_attr (small);

  sink_open (&sink, file_mode);
  out = st_output_new (sink.fd);
  g_assert_cmpint (st_perf_writer_file_mode_possible (out), ==, file_mode);
  w = st_perf_writer_new (out, file_mode);
  g_assert_cmpint (st_perf_writer_file_mode (w), ==, file_mode);
  st_perf_writer_attr (w, (const uint8_t *) &a, sizeof a, ids_a, 2);
  if (!late)
    st_perf_writer_attr (w, small, sizeof small, ids_b, 1);
  st_perf_writer_set_trailer (w, a.sample_type);
  g_assert_true (st_perf_writer_feature (w, 3, host, sizeof host));
  /* BRANCH_STACK: perf does not carry it in pipe mode.  */
  g_assert_cmpint (st_perf_writer_feature (w, ST_PERF_FEAT_BRANCH_STACK,
                                           host, 0), ==, file_mode);
  st_perf_writer_make_build_id (w, ST_PERF_MISC_USER, bid_prog, 20,
                                "/usr/bin/prog");

  st_perf_writer_comm (w, TRUE, PID, PID, "prog", &sid);
  if (late)
    st_perf_writer_attr (w, small, sizeof small, ids_b, 1);
  sid.time = 1100;
  st_perf_writer_mmap2 (w, ST_PERF_MISC_USER, PID, PID, 0x400000, 0x2000,
                        0x1000, 99, NULL, 0, PROT_READ | PROT_EXEC,
                        MAP_PRIVATE, "/usr/bin/prog", &sid);
  st_perf_writer_mmap2 (w, ST_PERF_MISC_USER, PID, PID, 0x7f0000000000ull,
                        0x10000, 0, 0, bid_prog, 16, PROT_READ | PROT_EXEC,
                        MAP_PRIVATE, "/usr/lib/libfoo.so", &sid);
  g_assert_true (st_perf_writer_sample (w, a.sample_type, ST_PERF_MISC_KERNEL,
                                        &f));
  f.abi = ST_REGS_ABI_NONE;
  f.n_regs = 0;
  f.stack_size = 0;
  f.time = 2100;
  g_assert_true (st_perf_writer_sample (w, a.sample_type, ST_PERF_MISC_KERNEL,
                                        &f));
  sid.time = 3000;
  st_perf_writer_task (w, ST_PERF_RECORD_FORK, PID + 10, PID, PID + 11,
                       PID + 1, 3000, &sid);
  st_perf_writer_lost (w, 5, 17, &sid);
  st_perf_writer_finished_round (w);
  st_perf_writer_record (w, other, sizeof other);
  st_perf_writer_task (w, ST_PERF_RECORD_EXIT, PID + 10, PID, PID + 11,
                       PID + 1, 3500, &sid);
  return writer_close (w, out, &sink);
}

/* The records of write_every_kind from event FIRST on.  */
static void
check_every_kind (const Result *res, guint first)
{
  const Ev *e;
  guint i = first;

  g_assert_no_error (res->error);
  e = ev_at (res, i++);
  g_assert_cmpint (e->kind, ==, ST_EVENT_PROCESS);
  g_assert_cmpstr (e->str, ==, "prog");
  g_assert_true (e->exec);
  g_assert_cmpint (e->tid, ==, PID);
  g_assert_cmpint (e->time, ==, 1000);     /* from the trailer */
  g_assert_cmpint (e->cpu, ==, 1);
  if (ev_at (res, i)->raw_type == ST_PERF_RECORD_HEADER_ATTR)
    i++;                                   /* late attribute, pipe mode */

  e = ev_at (res, i++);
  g_assert_cmpint (e->kind, ==, ST_EVENT_MAP);
  g_assert_cmpstr (e->str, ==, "/usr/bin/prog");
  g_assert_cmphex (e->start, ==, 0x400000);
  g_assert_cmphex (e->end, ==, 0x402000);
  g_assert_cmphex (e->pgoff, ==, 0x1000);
  g_assert_cmpuint (e->inode, ==, 99);
  g_assert_cmpuint (e->prot, ==, PROT_READ | PROT_EXEC);
  e = ev_at (res, i++);
  g_assert_cmpint (e->kind, ==, ST_EVENT_MAP);
  g_assert_cmpstr (e->str, ==, "/usr/lib/libfoo.so");
  g_assert_cmpmem (e->build_id, e->build_id_len, bid_prog, 16);

  e = ev_at (res, i++);
  g_assert_cmpint (e->kind, ==, ST_EVENT_STACK_USER);
  g_assert_cmpint (e->pid, ==, PID);
  g_assert_cmpint (e->tid, ==, PID + 1);
  g_assert_cmpint (e->time, ==, 2000);
  g_assert_cmpuint (e->n_ips, ==, 3);
  g_assert_cmphex (e->u64s[1], ==, 0xffffffff81000001ull);
  g_assert_cmpuint (e->n_regs, ==, 17);
  g_assert_cmphex (e->u64s[3 + 16], ==, 0x100 + 16);
  g_assert_cmpuint (e->regs_mask, ==, MASK_X86_64);
  g_assert_cmpuint (e->stack_size, ==, 13);
  g_assert_cmpuint (e->stack_last, ==, 13);
  e = ev_at (res, i++);
  g_assert_cmpint (e->kind, ==, ST_EVENT_SAMPLE);
  g_assert_cmpuint (e->n_ips, ==, 3);

  e = ev_at (res, i++);
  g_assert_cmpint (e->kind, ==, ST_EVENT_FORK);
  g_assert_cmpint (e->pid, ==, PID + 10);
  g_assert_cmpint (e->parent_tid, ==, PID + 1);
  e = ev_at (res, i++);
  g_assert_cmpint (e->kind, ==, ST_EVENT_LOST);
  g_assert_cmpuint (e->lost, ==, 17);
  g_assert_cmpuint (ev_at (res, i++)->raw_type, ==,
                    ST_PERF_RECORD_FINISHED_ROUND);
  g_assert_cmpuint (ev_at (res, i++)->raw_type, ==, 73);
  e = ev_at (res, i++);
  g_assert_cmpint (e->kind, ==, ST_EVENT_EXIT);
  g_assert_cmpint (e->time, ==, 3500);
  g_assert_cmpuint (i, ==, res->evs->len);
}

static void
check_attrs (const Result *res)
{
  GArray *ids;

  g_assert_cmpuint (res->n_attrs, ==, 2);
  g_assert_cmphex (result_attr_u64 (res, 0, ST_PERF_ATTR_SAMPLE_REGS_USER),
                   ==, MASK_X86_64);
  /* The small attribute, zero-extended to 128 bytes.  */
  g_assert_cmpuint (g_bytes_get_size (res->attrs->pdata[1]), ==, 128);
  g_assert_cmpuint (result_attr_u64 (res, 1, 0) >> 32, ==, 128);
  ids = res->attr_ids->pdata[1];
  g_assert_cmpuint (ids->len, ==, 1);
  g_assert_cmpuint (g_array_index (ids, uint64_t, 0), ==, 7);
}

static void
test_writer_file_mode (void)
{
  for (int late = 0; late <= 1; late++)
    {
      GByteArray *file = write_every_kind (TRUE, late);
      Result *via_file = read_bytes (file, FALSE);
      Result *via_pipe = read_bytes (file, TRUE);
      gsize len;
      const uint8_t *host;

      check_every_kind (via_file, 0);
      check_attrs (via_file);
      if (late)
        {
          /* The whole attribute section goes behind the data when an
             attribute comes after the first record: a pipe cannot reach
             it (perf's own reader always seeks).  */
          assert_error (via_pipe, ST_ERROR_UNSUPPORTED, "offset ",
                        "attribute section lies behind the data");
        }
      else
        {
          check_every_kind (via_pipe, 0);
          check_attrs (via_pipe);
          g_assert_cmpuint (via_pipe->feature_size[3], ==, 12);
        }
      /* The data section follows the attributes known before it.  */
      g_assert_cmpuint (ev_at (via_file, 0)->offset, ==,
                        late ? ST_PERF_FILE_HEADER_SIZE + 2 * 8 + 128 + 16
                             : ST_PERF_FILE_HEADER_SIZE + 3 * 8
                               + 2 * (128 + 16));
      host = g_bytes_get_data (via_file->features[3], &len);
      g_assert_cmpmem (host, len, "\10\0\0\0myhost\0\0", 12);
      g_assert_nonnull (via_file->features[ST_PERF_FEAT_BRANCH_STACK]);
      g_assert_cmpuint (via_file->feature_size[ST_PERF_FEAT_BUILD_ID], ==,
                        36 + ST_PERF_NAME_ALIGN);
      /* The BUILD_ID feature names /usr/bin/prog's build-id.  */
      g_assert_cmpmem (ev_at (via_file, 1)->build_id,
                       ev_at (via_file, 1)->build_id_len, bid_prog, 20);
      result_free (via_file);
      result_free (via_pipe);
      g_byte_array_free (file, TRUE);
    }
}

static void
test_writer_pipe_mode (void)
{
  GByteArray *stream = write_every_kind (FALSE, TRUE);
  Result *res = read_bytes (stream, TRUE);
  guint i = 0;
  gsize len;
  const uint8_t *raw;

  g_assert_no_error (res->error);
  g_assert_true (res->pipe_mode);
  /* Attribute, features, build-id as records, then the rest.  */
  g_assert_cmpuint (ev_at (res, i++)->raw_type, ==,
                    ST_PERF_RECORD_HEADER_ATTR);
  raw = raw_at (res, i, &len);
  g_assert_cmpuint (ev_at (res, i++)->raw_type, ==,
                    ST_PERF_RECORD_HEADER_FEATURE);
  g_assert_cmpmem (raw + 8, len - 8,
                   "\3\0\0\0\0\0\0\0\10\0\0\0myhost\0\0", 20);
  raw = raw_at (res, i, &len);
  g_assert_cmpuint (ev_at (res, i++)->raw_type, ==,
                    ST_PERF_RECORD_HEADER_BUILD_ID);
  g_assert_cmpuint (len, ==, 36 + ST_PERF_NAME_ALIGN);
  check_every_kind (res, i);
  check_attrs (res);
  result_free (res);
  g_byte_array_free (stream, TRUE);
}

/* Samples too large for a record lose the root end of their stack, then
   of their chain.  */
static void
test_writer_oversized (void)
{
  Sink sink;
  StOutput *out;
  StPerfWriter *w;
  StPerfEventAttr a;
  uint64_t id = 1, *chain = g_new0 (uint64_t, 9000);
  uint8_t *stack = g_malloc0 (70000);
  StPerfSampleFields f = { .ips = chain, .n_ips = 10, .abi = 0,
                           .stack = stack, .stack_size = 70000 };
  GByteArray *bytes;
  Result *res;

  memset (&a, 0, sizeof a);
  a.size = sizeof a;
  a.sample_type = ST_PERF_SAMPLE_IP | ST_PERF_SAMPLE_CALLCHAIN
                  | ST_PERF_SAMPLE_REGS_USER | ST_PERF_SAMPLE_STACK_USER;
  a.sample_regs_user = MASK_X86_64;
  stack[69999] = 0xee;
  w = writer_open (&sink, TRUE, &out);
  st_perf_writer_attr (w, (const uint8_t *) &a, sizeof a, &id, 1);
  g_assert_false (st_perf_writer_sample (w, a.sample_type, 2, &f));
  f.n_ips = 9000;
  f.stack_size = 8;
  g_assert_false (st_perf_writer_sample (w, a.sample_type, 2, &f));
  bytes = writer_close (w, out, &sink);
  res = read_bytes (bytes, FALSE);
  g_assert_no_error (res->error);
  g_assert_cmpuint (res->evs->len, ==, 2);
  g_assert_cmpuint (ev_at (res, 0)->raw_len, <=, 65535);
  g_assert_cmpuint (ev_at (res, 0)->n_ips, ==, 10);
  g_assert_cmpuint (ev_at (res, 1)->raw_len, <=, 65535);
  g_assert_cmpuint (ev_at (res, 1)->n_ips, <, 9000);
  g_assert_cmpuint (ev_at (res, 1)->n_ips, >, 8000);
  result_free (res);
  g_byte_array_free (bytes, TRUE);
  g_free (stack);
  g_free (chain);
}

/* Raw-stack samples (with RAW between CALLCHAIN and REGS_USER) through
   st_perf_writer_unwound_sample, given a chain or keeping theirs: each
   is the sample the attribute without raw stacks has, with that chain.
   1.5 MiB of them: more than the output buffer holds.  */
static void
unwound_samples (gboolean file_mode)
{
  static const AttrSpec raw_stacks = {
    .sample_type = ST_PERF_SAMPLE_IP | ST_PERF_SAMPLE_TID
                   | ST_PERF_SAMPLE_TIME | ST_PERF_SAMPLE_CALLCHAIN
                   | ST_PERF_SAMPLE_RAW | ST_PERF_SAMPLE_REGS_USER
                   | ST_PERF_SAMPLE_STACK_USER | ST_PERF_SAMPLE_WEIGHT,
    .regs_user = 0x3,
    .stack_user = 64,
  };
  AttrSpec unwound = raw_stacks;
  const guint n_samples = 20000;
  uint64_t old_chain[3] = { ST_CONTEXT_KERNEL, 0xffffffff81000010ull,
                            ST_CONTEXT_USER };
  uint64_t chain[8], regs[2] = { 0xa0, 0xb0 }, id = 1;
  StPerfAttr in = { 0 };
  GByteArray *attr = g_byte_array_new (), *want = g_byte_array_new ();
  GByteArray *bytes;
  Sink sink;
  StOutput *out;
  StPerfWriter *w;
  Result *res;

  unwound.sample_type &= ~(ST_PERF_SAMPLE_REGS_USER
                           | ST_PERF_SAMPLE_STACK_USER);
  unwound.regs_user = 0;
  unwound.stack_user = 0;
  put_attr (attr, &unwound);
  in.sample_type = raw_stacks.sample_type;
  in.sample_regs_user = raw_stacks.regs_user;
  w = writer_open (&sink, file_mode, &out);
  st_perf_writer_attr (w, attr->data, attr->len, &id, 1);
  for (guint i = 0; i < n_samples; i++)
    {
      SampleSpec s = { .ip = 0x401000 + i, .pid = PID, .tid = PID + 1,
                       .time = 1000 + i, .chain = old_chain, .n_chain = 3,
                       .raw_size = 4, .abi = 2, .regs = regs,
                       .stack_size = 64, .dyn_size = 40 };
      GByteArray *rec = g_byte_array_new ();
      StPerfSampleSpans spans;
      gboolean keep = i % 3 == 0;
      g_autofree char *why = NULL;

      /* Chains of 2 to 8 entries, so that records of several sizes
         meet the end of the buffer.  */
      for (guint k = 0; k < G_N_ELEMENTS (chain); k++)
        chain[k] = 0x7f0000000000ull + 16 * i + k;
      put_sample (rec, &raw_stacks, &s);
      why = st_perf_sample_locate (&in, rec->data, rec->len, &spans);
      g_assert_null (why);
      g_assert_true (st_perf_writer_unwound_sample (w, rec->data, rec->len,
                                                    &spans,
                                                    keep ? NULL : chain,
                                                    2 + i % 7));
      if (!keep)
        {
          s.chain = chain;
          s.n_chain = 2 + i % 7;
        }
      put_sample (want, &unwound, &s);
      g_byte_array_free (rec, TRUE);
    }
  bytes = writer_close (w, out, &sink);
  g_assert_cmpuint (want->len, >, 1536 * 1024);
  res = read_bytes (bytes, !file_mode);
  g_assert_no_error (res->error);
  for (guint i = result_first_data (res), at = 0; i < res->evs->len; i++)
    {
      gsize len;
      const uint8_t *raw = raw_at (res, i, &len);

      if (ev_at (res, i)->raw_type != ST_PERF_RECORD_SAMPLE)
        continue;
      g_assert_cmpuint (at + len, <=, want->len);
      g_assert_cmpmem (raw, len, want->data + at, len);
      at += len;
      if (i + 1 == res->evs->len)
        g_assert_cmpuint (at, ==, want->len);
    }
  g_assert_cmpuint (count_type (res, ST_PERF_RECORD_SAMPLE), ==, n_samples);
  result_free (res);
  g_byte_array_free (bytes, TRUE);
  g_byte_array_free (want, TRUE);
  g_byte_array_free (attr, TRUE);
}

static void
test_writer_unwound_file (void)
{
  unwound_samples (TRUE);
}

static void
test_writer_unwound_pipe (void)
{
  unwound_samples (FALSE);
}

/* An unwound chain too long for a record loses its root end.  */
static void
test_writer_unwound_oversized (void)
{
  static const AttrSpec spec = {
    .sample_type = ST_PERF_SAMPLE_IP | ST_PERF_SAMPLE_CALLCHAIN
                   | ST_PERF_SAMPLE_REGS_USER | ST_PERF_SAMPLE_STACK_USER,
    .regs_user = 0x3,
  };
  uint64_t *chain = g_new0 (uint64_t, 9000), regs[2] = { 1, 2 }, id = 1;
  SampleSpec s = { .ip = 0x401000, .abi = 2, .regs = regs };
  StPerfAttr in = { 0 };
  GByteArray *rec = g_byte_array_new (), *attr = g_byte_array_new ();
  GByteArray *bytes;
  StPerfSampleSpans spans;
  Sink sink;
  StOutput *out;
  StPerfWriter *w;
  Result *res;
  g_autofree char *why = NULL;

  AttrSpec unwound = spec;

  unwound.sample_type = ST_PERF_SAMPLE_IP | ST_PERF_SAMPLE_CALLCHAIN;
  unwound.regs_user = 0;
  for (guint k = 0; k < 9000; k++)
    chain[k] = 0x400000 + k;
  put_attr (attr, &unwound);
  put_sample (rec, &spec, &s);
  in.sample_type = spec.sample_type;
  in.sample_regs_user = spec.regs_user;
  why = st_perf_sample_locate (&in, rec->data, rec->len, &spans);
  g_assert_null (why);
  w = writer_open (&sink, TRUE, &out);
  st_perf_writer_attr (w, attr->data, attr->len, &id, 1);
  g_assert_false (st_perf_writer_unwound_sample (w, rec->data, rec->len,
                                                 &spans, chain, 9000));
  bytes = writer_close (w, out, &sink);
  res = read_bytes (bytes, FALSE);
  g_assert_no_error (res->error);
  g_assert_cmpuint (res->evs->len, ==, 1);
  /* Header, IP, nr, then the chain's leaf end up to 65528 bytes.  */
  g_assert_cmpuint (ev_at (res, 0)->raw_len, ==, 65528);
  g_assert_cmpuint (ev_at (res, 0)->u64s[0], ==, 0x400000);
  result_free (res);
  g_byte_array_free (bytes, TRUE);
  g_byte_array_free (rec, TRUE);
  g_byte_array_free (attr, TRUE);
  g_free (chain);
}

int
main (int argc, char **argv)
{
  signal (SIGPIPE, SIG_IGN);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/perf-writer/file-mode", test_writer_file_mode);
  g_test_add_func ("/perf-writer/pipe-mode", test_writer_pipe_mode);
  g_test_add_func ("/perf-writer/oversized", test_writer_oversized);
  g_test_add_func ("/perf-writer/unwound-file", test_writer_unwound_file);
  g_test_add_func ("/perf-writer/unwound-pipe", test_writer_unwound_pipe);
  g_test_add_func ("/perf-writer/unwound-oversized",
                   test_writer_unwound_oversized);
  return g_test_run ();
}
