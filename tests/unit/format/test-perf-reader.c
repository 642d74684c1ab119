/* perf.data reader: synthesized file-mode and pipe-mode streams read
   through a file and a pipe, bad input, and a real `perf record`.  */
#include "config.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/damage.h"
#include "util/domain.h"
#include "format/perf-reader.h"
#include "format/perf-types.h"

#include "perf-stream.h"

/* --- the synthesized recording ----------------------------------------- */

#define PID 4242
#define MASK_X86_64 0xff01ffull   /* 17 regs */

static const AttrSpec dwarf_attr = {
  .sample_type = ST_PERF_SAMPLE_IP | ST_PERF_SAMPLE_TID
                 | ST_PERF_SAMPLE_TIME | ST_PERF_SAMPLE_ADDR
                 | ST_PERF_SAMPLE_CALLCHAIN | ST_PERF_SAMPLE_PERIOD
                 | ST_PERF_SAMPLE_REGS_USER | ST_PERF_SAMPLE_STACK_USER
                 | ST_PERF_SAMPLE_DATA_SRC | ST_PERF_SAMPLE_CPU,
  .read_format = ST_PERF_FORMAT_ID,
  .flags = ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL | ST_PERF_ATTR_FLAG_MMAP2
           | ST_PERF_ATTR_FLAG_EXCLUDE_CALLCHAIN_USER,
  .regs_user = MASK_X86_64,
  .stack_user = 64,
};
static const uint64_t dwarf_ids[] = { 26, 27 };

static uint64_t regs17[17];

static Trailer
trailer (uint64_t time, uint32_t cpu)
{
  Trailer t = { PID, PID, time, 26, 0, cpu };
  return t;
}

/* Every record kind of a one-attr --call-graph=dwarf recording.  */
static GByteArray *
dwarf_records (void)
{
  GByteArray *d = g_byte_array_new ();
  Trailer t = trailer (1000, 1);
  guint at;
  uint64_t kchain[] = { ST_CONTEXT_KERNEL, 0xffffffff81000010ull,
                        0xffffffff81000020ull };
  uint64_t mixed[] = { ST_CONTEXT_KERNEL, 0xffffffff81000010ull,
                       ST_CONTEXT_USER, 0x401000 };
  SampleSpec s = { .pid = PID, .tid = PID + 1, .time = 2000, .cpu = 1,
                   .ip = 0x401234, .abi = ST_REGS_ABI_64, .regs = regs17,
                   .stack_size = 64, .dyn_size = 48 };

  for (int i = 0; i < 17; i++)
    regs17[i] = 0x1000 + i;

  put_comm (d, &dwarf_attr, &t, TRUE, "prog");                    /* 0 */
  t.time = 1100;
  put_mmap (d, &dwarf_attr, &t, 0, 0xffffffff81000000ull, 0x1000000, 0,
            "[kernel.kallsyms]_text");                            /* 1 */
  put_mmap2 (d, &dwarf_attr, &t, 0x400000, 0x2000, 0x1000, 99, -1, 0,
             5 /* r-x */, "/usr/bin/prog");                       /* 2 */
  put_mmap2 (d, &dwarf_attr, &t, 0x7f0000000000ull, 0x10000, 0, 0, 0xab,
             16, 5, "/usr/lib/libfoo.so");                        /* 3 */
  put_sample (d, &dwarf_attr, &s);                               /* 4 */
  s.chain = kchain;
  s.n_chain = 3;
  s.dyn_size = 64;       /* the whole copy */
  put_sample (d, &dwarf_attr, &s);                               /* 5 */
  s.chain = mixed;
  s.n_chain = 4;
  s.dyn_size = 8;
  put_sample (d, &dwarf_attr, &s);                               /* 6 */
  s.abi = 0;             /* no registers: a plain sample */
  put_sample (d, &dwarf_attr, &s);                               /* 7 */
  s.abi = ST_REGS_ABI_64;
  s.stack_size = 0;      /* no stack, no dyn_size */
  put_sample (d, &dwarf_attr, &s);                               /* 8 */
  s.stack_size = 64;
  s.dyn_size = 0;        /* empty copy */
  put_sample (d, &dwarf_attr, &s);                               /* 9 */
  t.time = 3000;
  put_fork_exit (d, &dwarf_attr, &t, ST_PERF_RECORD_FORK, PID + 10, PID,
                 PID + 11, PID + 1, 3000);                        /* 10 */
  put_lost (d, &dwarf_attr, &t, 17);                              /* 11 */
  at = begin_record (d, ST_PERF_RECORD_THROTTLE, 0);              /* 12 */
  put_u64 (d, 3000);
  put_u64 (d, 26);
  put_u64 (d, 0);
  put_trailer (d, &dwarf_attr, &t);
  end_record (d, at);
  put_other (d, ST_PERF_RECORD_FINISHED_ROUND, 0);                /* 13 */
  put_other (d, 200, 16);                                         /* 14 */
  put_fork_exit (d, &dwarf_attr, &t, ST_PERF_RECORD_EXIT, PID + 10, PID,
                 PID + 11, PID + 1, 3500);                        /* 15 */
  return d;
}

/* MMAP2 flagged as carrying a build-id whose bytes are not one (a size
   over 20: a device and inode under the flag, as a kernel wrote while
   another event asked for build-ids): no build-id made up of them.  */
static void
test_mmap2_false_build_id (void)
{
  GByteArray *d = g_byte_array_new ();
  AttrEntry attr = { &dwarf_attr, dwarf_ids, 2 };
  Trailer t = trailer (1000, 1);
  Result *res;

  put_mmap2 (d, &dwarf_attr, &t, 0x400000, 0x2000, 0, 0, 0x5a, 0xfe, 5,
             "/usr/bin/prog");
  put_mmap2 (d, &dwarf_attr, &t, 0x500000, 0x2000, 0, 0, 0x5a, 20, 5,
             "/usr/bin/other");
  GByteArray *stream = make_pipe (&attr, 1, d);
  res = read_bytes (stream, TRUE);
  g_assert_no_error (res->error);
  /* The maps are the last two events (the pipe's attribute first).  */
  g_assert_cmpuint (res->evs->len, >=, 2);
  const Ev *prog = ev_at (res, res->evs->len - 2);
  const Ev *other = ev_at (res, res->evs->len - 1);
  g_assert_cmpint (prog->kind, ==, ST_EVENT_MAP);
  g_assert_cmpstr (prog->str, ==, "/usr/bin/prog");
  g_assert_cmpuint (prog->build_id_len, ==, 0);
  g_assert_cmpstr (other->str, ==, "/usr/bin/other");
  g_assert_cmpuint (other->build_id_len, ==, 20);
  g_assert_cmpuint (other->build_id[19], ==, 0x5a);
  result_free (res);
  g_byte_array_unref (stream);
  g_byte_array_unref (d);
}

static GByteArray *
build_id_feature (void)
{
  GByteArray *f = g_byte_array_new ();

  put_build_id_entry (f, 0x11, -1, "/usr/bin/prog");
  put_build_id_entry (f, 0x22, 16, "[kernel.kallsyms]_text");
  put_build_id_entry (f, 0x33, -1, "/usr/lib/libfoo.so");
  return f;
}

/* PROG_BID: the byte of /usr/bin/prog's build-id (0: none known);
   KERNEL_BID: whether the kernel map's build-id is known.  */
static void
check_dwarf_events (const Result *res, int prog_bid, gboolean kernel_bid,
                    guint first)
{
  const Ev *e;

  g_assert_no_error (res->error);
  g_assert_cmpuint (res->evs->len, ==, first + 16);
  g_assert_cmpuint (res->n_attrs, ==, 1);

  e = ev_at (res, first + 0);
  g_assert_cmpint (e->kind, ==, ST_EVENT_PROCESS);
  g_assert_cmpstr (e->str, ==, "prog");
  g_assert_true (e->exec);
  g_assert_cmpint (e->pid, ==, PID);
  g_assert_cmpint (e->time, ==, 1000);
  g_assert_cmpint (e->cpu, ==, 1);

  e = ev_at (res, first + 1);
  g_assert_cmpint (e->kind, ==, ST_EVENT_MAP);
  g_assert_cmpstr (e->str, ==, "[kernel.kallsyms]_text");
  g_assert_false (e->exec_known);
  g_assert_cmpuint (e->end - e->start, ==, 0x1000000);
  g_assert_cmpuint (e->build_id_len, ==, kernel_bid ? 16 : 0);
  if (kernel_bid)
    g_assert_cmpuint (e->build_id[15], ==, 0x22);
  g_assert_cmpint (e->time, ==, 1100);

  e = ev_at (res, first + 2);
  g_assert_cmpint (e->kind, ==, ST_EVENT_MAP);
  g_assert_cmpstr (e->str, ==, "/usr/bin/prog");
  g_assert_true (e->exec_known);
  g_assert_cmpuint (e->prot, ==, 5);
  g_assert_cmpuint (e->start, ==, 0x400000);
  g_assert_cmpuint (e->end, ==, 0x402000);
  g_assert_cmpuint (e->pgoff, ==, 0x1000);
  g_assert_cmpuint (e->inode, ==, 99);
  g_assert_cmpuint (e->build_id_len, ==, prog_bid ? 20 : 0);
  if (prog_bid)
    g_assert_cmpuint (e->build_id[19], ==, prog_bid);

  /* The record's own build-id wins over the feature's.  */
  e = ev_at (res, first + 3);
  g_assert_cmpint (e->kind, ==, ST_EVENT_MAP);
  g_assert_cmpuint (e->build_id_len, ==, 16);
  g_assert_cmpuint (e->build_id[0], ==, 0xab);
  g_assert_cmpuint (e->inode, ==, 0);

  e = ev_at (res, first + 4);
  g_assert_cmpint (e->kind, ==, ST_EVENT_STACK_USER);
  g_assert_cmpint (e->pid, ==, PID);
  g_assert_cmpint (e->tid, ==, PID + 1);
  g_assert_cmpint (e->time, ==, 2000);
  g_assert_cmpint (e->cpu, ==, 1);
  g_assert_cmpuint (e->n_ips, ==, 0);
  g_assert_cmpuint (e->n_regs, ==, 17);
  g_assert_cmpuint (e->regs_mask, ==, MASK_X86_64);
  g_assert_cmpuint (e->abi, ==, ST_REGS_ABI_64);
  g_assert_cmpuint (e->u64s[0], ==, 0x1000);
  g_assert_cmpuint (e->u64s[16], ==, 0x1010);
  g_assert_cmpuint (e->stack_size, ==, 48);
  g_assert_cmpuint (e->stack_last, ==, 48);

  e = ev_at (res, first + 5);
  g_assert_cmpint (e->kind, ==, ST_EVENT_STACK_USER);
  g_assert_cmpuint (e->n_ips, ==, 3);
  g_assert_cmpuint (e->u64s[0], ==, ST_CONTEXT_KERNEL);
  g_assert_cmpuint (e->u64s[2], ==, 0xffffffff81000020ull);
  g_assert_cmpuint (e->u64s[3], ==, 0x1000);
  g_assert_cmpuint (e->stack_size, ==, 64);
  g_assert_cmpuint (e->stack_last, ==, 64);

  /* Only the kernel part of a chain that has a user part.  */
  e = ev_at (res, first + 6);
  g_assert_cmpint (e->kind, ==, ST_EVENT_STACK_USER);
  g_assert_cmpuint (e->n_ips, ==, 2);
  g_assert_cmpuint (e->stack_size, ==, 8);

  e = ev_at (res, first + 7);
  g_assert_cmpint (e->kind, ==, ST_EVENT_SAMPLE);
  g_assert_cmpuint (e->n_ips, ==, 4);
  g_assert_cmpuint (e->u64s[3], ==, 0x401000);
  g_assert_cmpint (e->tid, ==, PID + 1);
  g_assert_cmpint (ev_at (res, first + 8)->kind, ==, ST_EVENT_SAMPLE);
  g_assert_cmpint (ev_at (res, first + 9)->kind, ==, ST_EVENT_SAMPLE);

  e = ev_at (res, first + 10);
  g_assert_cmpint (e->kind, ==, ST_EVENT_FORK);
  g_assert_cmpint (e->pid, ==, PID + 10);
  g_assert_cmpint (e->tid, ==, PID + 11);
  g_assert_cmpint (e->parent_pid, ==, PID);
  g_assert_cmpint (e->parent_tid, ==, PID + 1);
  g_assert_cmpint (e->time, ==, 3000);

  e = ev_at (res, first + 11);
  g_assert_cmpint (e->kind, ==, ST_EVENT_LOST);
  g_assert_cmpuint (e->lost, ==, 17);
  g_assert_cmpint (e->pid, ==, PID);
  g_assert_cmpint (e->time, ==, 3000);

  for (guint i = 12; i <= 14; i++)
    g_assert_cmpint (ev_at (res, first + i)->kind, ==, ST_EVENT_OTHER);
  g_assert_cmpuint (ev_at (res, first + 12)->raw_type, ==,
                    ST_PERF_RECORD_THROTTLE);
  g_assert_cmpint (ev_at (res, first + 12)->cpu, ==, 1);
  g_assert_cmpuint (ev_at (res, first + 13)->raw_len, ==, 8);
  g_assert_cmpuint (ev_at (res, first + 14)->raw_type, ==, 200);
  g_assert_cmpint (ev_at (res, first + 14)->pid, ==, -1);
  g_assert_cmpint (ev_at (res, first + 14)->cpu, ==, -1);

  e = ev_at (res, first + 15);
  g_assert_cmpint (e->kind, ==, ST_EVENT_EXIT);
  g_assert_cmpint (e->pid, ==, PID + 10);
  g_assert_cmpint (e->tid, ==, PID + 11);
  g_assert_cmpint (e->time, ==, 3500);
}

static void
test_file_mode (void)
{
  GByteArray *d = dwarf_records ();
  AttrEntry attr = { &dwarf_attr, dwarf_ids, 2 };
  GByteArray *host = g_byte_array_new ();
  Feature feats[] = { { ST_PERF_FEAT_BUILD_ID, build_id_feature () },
                      { 3, host } };
  GByteArray *file;
  Result *via_file, *via_pipe;

  put_string (host, "myhost");
  file = make_file (&attr, 1, d, feats, 2, 0);
  via_file = read_bytes (file, FALSE);
  via_pipe = read_bytes (file, TRUE);

  g_assert_false (via_file->pipe_mode);
  check_dwarf_events (via_file, 0x11, TRUE, 0);
  check_dwarf_events (via_pipe, 0, FALSE, 0);
  assert_same_events (via_file, via_pipe, FALSE);
  g_assert_cmpuint (ev_at (via_file, 0)->offset, ==,
                    ST_PERF_FILE_HEADER_SIZE + 16 + ATTR_BYTES + 16);
  g_assert_cmpuint (via_file->feature_size[ST_PERF_FEAT_BUILD_ID], ==,
                    feats[0].bytes->len);
  g_assert_cmpuint (via_file->feature_size[3], ==, 8);
  /* Through a pipe, the sections are read forward after the data.  */
  g_assert_cmpuint (via_pipe->feature_size[3], ==, 8);
  g_assert_cmpuint (via_pipe->feature_size[ST_PERF_FEAT_BUILD_ID], ==,
                    feats[0].bytes->len);

  result_free (via_file);
  result_free (via_pipe);
  g_byte_array_free (file, TRUE);
  g_byte_array_free (feats[0].bytes, TRUE);
  g_byte_array_free (host, TRUE);
  g_byte_array_free (d, TRUE);
}

static void
test_file_layouts (void)
{
  GByteArray *d = dwarf_records ();
  AttrEntry attr = { &dwarf_attr, dwarf_ids, 2 };
  GByteArray *file;
  Result *res;

  /* Junk between the attrs and the data is skipped.  */
  file = make_file (&attr, 1, d, NULL, 0, LAYOUT_GAP);
  res = read_bytes (file, TRUE);
  check_dwarf_events (res, 0, FALSE, 0);
  result_free (res);
  g_byte_array_free (file, TRUE);

  /* data.size 0 (perf killed): records until EOF.  */
  file = make_file (&attr, 1, d, NULL, 0, LAYOUT_DATA_SIZE_0);
  res = read_bytes (file, TRUE);
  check_dwarf_events (res, 0, FALSE, 0);
  result_free (res);
  g_byte_array_free (file, TRUE);

  /* An attribute without ids, its empty id array at offset 0.  */
  attr.n_ids = 0;
  file = make_file (&attr, 1, d, NULL, 0, 0);
  set_u64 (file, ST_PERF_FILE_HEADER_SIZE + ATTR_BYTES, 0);
  res = read_bytes (file, TRUE);
  check_dwarf_events (res, 0, FALSE, 0);
  result_free (res);
  g_byte_array_free (file, TRUE);
  attr.n_ids = 2;

  /* Attributes behind the data: fine on a file, an error on a pipe.  */
  file = make_file (&attr, 1, d, NULL, 0, LAYOUT_ATTRS_BEHIND);
  res = read_bytes (file, FALSE);
  check_dwarf_events (res, 0, FALSE, 0);
  result_free (res);
  res = read_bytes (file, TRUE);
  assert_error (res, ST_ERROR_UNSUPPORTED, "offset ", "seekable");
  result_free (res);
  g_byte_array_free (file, TRUE);

  g_byte_array_free (d, TRUE);
}

static void
test_pipe_mode (void)
{
  GByteArray *d = dwarf_records ();
  AttrEntry attr = { &dwarf_attr, dwarf_ids, 2 };
  GByteArray *body = g_byte_array_new ();
  GByteArray *stream;
  Result *a, *b;
  guint tracing;

  /* Synthesized records first, like perf record -o -.  */
  put_other (body, ST_PERF_RECORD_HEADER_FEATURE, 20);   /* odd size */
  tracing = body->len;
  begin_record (body, ST_PERF_RECORD_HEADER_TRACING_DATA, 0);
  put_u32 (body, 13);   /* payload after the record, padded to 16 */
  put_u32 (body, 0);
  end_record (body, tracing);
  for (int i = 0; i < 16; i++)
    put (body, "T", 1);
  put_build_id_entry (body, 0x44, -1, "/usr/bin/prog");
  put_other (body, ST_PERF_RECORD_FINISHED_INIT, 0);
  put (body, d->data, d->len);
  stream = make_pipe (&attr, 1, body);

  a = read_bytes (stream, TRUE);
  b = read_bytes (stream, FALSE);
  g_assert_true (a->pipe_mode);
  /* HEADER_ATTR, FEATURE, TRACING_DATA, BUILD_ID, FINISHED_INIT.  */
  check_dwarf_events (a, 0x44, FALSE, 5);
  for (guint i = 0; i < 5; i++)
    g_assert_cmpint (ev_at (a, i)->kind, ==, ST_EVENT_OTHER);
  g_assert_cmpuint (ev_at (a, 0)->raw_type, ==, ST_PERF_RECORD_HEADER_ATTR);
  g_assert_cmpuint (ev_at (a, 0)->offset, ==, 16);
  g_assert_cmpuint (ev_at (a, 1)->raw_len, ==, 28);
  g_assert_cmpuint (ev_at (a, 2)->raw_len, ==, 16 + 16);
  assert_same_events (a, b, TRUE);

  result_free (a);
  result_free (b);
  g_byte_array_free (stream, TRUE);
  g_byte_array_free (body, TRUE);
  g_byte_array_free (d, TRUE);
}

/* Samples without PERF_SAMPLE_CPU (Sysprof's events, one ring per CPU)
   take their CPU from an ID_INDEX record by their sample id; an id it
   does not list, or a per-thread entry (cpu -1), stays at -1.  */
static void
test_id_index (void)
{
  AttrSpec sysprof = {
    .sample_type = ST_PERF_SAMPLE_IDENTIFIER | ST_PERF_SAMPLE_IP
                   | ST_PERF_SAMPLE_TID | ST_PERF_SAMPLE_TIME
                   | ST_PERF_SAMPLE_CALLCHAIN,
    .flags = ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL,
  };
  uint64_t ids[] = { 11, 12, 13 };
  AttrEntry attrs[] = { { &sysprof, ids, 3 } };
  uint64_t chain[] = { ST_CONTEXT_USER, 0x401000 };
  SampleSpec s = { .id = 12, .pid = 5, .tid = 6, .time = 10,
                   .chain = chain, .n_chain = 2 };
  GByteArray *d = g_byte_array_new ();
  guint at = begin_record (d, ST_PERF_RECORD_ID_INDEX, 0);

  put_u64 (d, 2);
  put_u64 (d, 11), put_u64 (d, 0), put_u64 (d, 0), put_u64 (d, -1);
  put_u64 (d, 12), put_u64 (d, 1), put_u64 (d, 7), put_u64 (d, -1);
  put_u64 (d, 13), put_u64 (d, 2), put_u64 (d, -1), put_u64 (d, 6);
  end_record (d, at);
  put_sample (d, &sysprof, &s);
  s.id = 11;
  put_sample (d, &sysprof, &s);
  s.id = 13;
  put_sample (d, &sysprof, &s);

  GByteArray *bytes = make_pipe (attrs, 1, d);
  Result *res = read_bytes (bytes, TRUE);
  guint k = 1;    /* the HEADER_ATTR record */

  g_assert_no_error (res->error);
  g_assert_cmpuint (res->evs->len, ==, k + 4);
  g_assert_cmpint (ev_at (res, k)->kind, ==, ST_EVENT_OTHER);
  g_assert_cmpuint (ev_at (res, k)->raw_type, ==, ST_PERF_RECORD_ID_INDEX);
  g_assert_cmpint (ev_at (res, k + 1)->kind, ==, ST_EVENT_SAMPLE);
  g_assert_cmpint (ev_at (res, k + 1)->cpu, ==, 7);
  g_assert_cmpint (ev_at (res, k + 2)->cpu, ==, 0);
  /* The third entry was not listed (count 2): no CPU.  */
  g_assert_cmpint (ev_at (res, k + 3)->cpu, ==, -1);
  result_free (res);
  g_byte_array_free (bytes, TRUE);
  g_byte_array_free (d, TRUE);

  /* A count the record cannot hold: damage, not a read past it.  */
  d = g_byte_array_new ();
  at = begin_record (d, ST_PERF_RECORD_ID_INDEX, 0);
  put_u64 (d, 1000);
  put_u64 (d, 11), put_u64 (d, 0), put_u64 (d, 0), put_u64 (d, -1);
  end_record (d, at);
  bytes = make_pipe (attrs, 1, d);
  res = read_bytes (bytes, TRUE);
  g_assert_nonnull (res->error);
  g_assert_nonnull (strstr (res->error->message, "1000 entries do not fit"));
  result_free (res);
  g_byte_array_free (bytes, TRUE);
  g_byte_array_free (d, TRUE);
}

/* Two attrs told apart by IDENTIFIER (samples first, others last).  */
static void
test_two_attrs (void)
{
  AttrSpec plain = {
    .sample_type = ST_PERF_SAMPLE_IDENTIFIER | ST_PERF_SAMPLE_IP
                   | ST_PERF_SAMPLE_TID | ST_PERF_SAMPLE_TIME
                   | ST_PERF_SAMPLE_CPU | ST_PERF_SAMPLE_CALLCHAIN,
    .flags = ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL,
  };
  AttrSpec dwarf = plain;
  uint64_t ids_a[] = { 1, 2 }, ids_b[] = { 3 };
  AttrEntry attrs[] = { { &plain, ids_a, 2 }, { &dwarf, ids_b, 1 } };
  uint64_t chain[] = { ST_CONTEXT_KERNEL, 0xffffffff81000000ull };
  uint64_t regs[3] = { 7, 8, 9 };
  SampleSpec s = { .id = 2, .pid = 5, .tid = 6, .time = 10, .cpu = 3,
                   .chain = chain, .n_chain = 2, .abi = ST_REGS_ABI_64,
                   .regs = regs, .stack_size = 16, .dyn_size = 16 };
  Trailer t = { 5, 6, 20, 3, 0, 1 };
  GByteArray *d = g_byte_array_new ();

  dwarf.sample_type |= ST_PERF_SAMPLE_REGS_USER | ST_PERF_SAMPLE_STACK_USER;
  dwarf.regs_user = 0x1c0;   /* BP SP IP */
  put_sample (d, &plain, &s);
  s.id = 3;
  put_sample (d, &dwarf, &s);
  s.id = 99;                 /* unknown: passed through */
  put_sample (d, &plain, &s);
  put_comm (d, &dwarf, &t, FALSE, "two");

  for (int mode = 0; mode < 2; mode++)
    {
      GByteArray *bytes = mode ? make_pipe (attrs, 2, d)
                               : make_file (attrs, 2, d, NULL, 0, 0);
      Result *res = read_bytes (bytes, TRUE);
      guint k = mode ? 2 : 0;    /* the HEADER_ATTR records */
      const Ev *e;

      g_assert_no_error (res->error);
      g_assert_cmpuint (res->n_attrs, ==, 2);
      g_assert_cmpuint (res->evs->len, ==, k + 4);
      e = ev_at (res, k);
      g_assert_cmpint (e->kind, ==, ST_EVENT_SAMPLE);
      g_assert_cmpuint (e->n_ips, ==, 2);
      g_assert_cmpint (e->cpu, ==, 3);
      e = ev_at (res, k + 1);
      g_assert_cmpint (e->kind, ==, ST_EVENT_STACK_USER);
      g_assert_cmpuint (e->n_regs, ==, 3);
      g_assert_cmpuint (e->u64s[2 + 2], ==, 9);
      g_assert_cmpuint (e->regs_mask, ==, 0x1c0);
      g_assert_cmpuint (e->stack_size, ==, 16);
      g_assert_cmpint (ev_at (res, k + 2)->kind, ==, ST_EVENT_OTHER);
      e = ev_at (res, k + 3);
      g_assert_cmpint (e->kind, ==, ST_EVENT_PROCESS);
      g_assert_false (e->exec);
      g_assert_cmpint (e->time, ==, 20);
      g_assert_cmpint (e->cpu, ==, 1);
      result_free (res);
      g_byte_array_free (bytes, TRUE);
    }
  g_byte_array_free (d, TRUE);
}

/* ID (not IDENTIFIER), READ group values, RAW, BRANCH_STACK with hw_idx
   before the registers and the stack.  */
static void
test_sample_fields (void)
{
  AttrSpec a = {
    .sample_type = ST_PERF_SAMPLE_IP | ST_PERF_SAMPLE_TID
                   | ST_PERF_SAMPLE_TIME | ST_PERF_SAMPLE_ADDR
                   | ST_PERF_SAMPLE_ID | ST_PERF_SAMPLE_STREAM_ID
                   | ST_PERF_SAMPLE_CPU | ST_PERF_SAMPLE_PERIOD
                   | ST_PERF_SAMPLE_READ | ST_PERF_SAMPLE_CALLCHAIN
                   | ST_PERF_SAMPLE_RAW | ST_PERF_SAMPLE_BRANCH_STACK
                   | ST_PERF_SAMPLE_REGS_USER | ST_PERF_SAMPLE_STACK_USER
                   | ST_PERF_SAMPLE_DATA_SRC,
    .read_format = ST_PERF_FORMAT_GROUP | ST_PERF_FORMAT_ID
                   | ST_PERF_FORMAT_TOTAL_TIME_ENABLED
                   | ST_PERF_FORMAT_TOTAL_TIME_RUNNING
                   | ST_PERF_FORMAT_LOST,
    .flags = ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL,
    .branch_sample_type = ST_PERF_BRANCH_HW_INDEX,
    .regs_user = 0x3,
  };
  AttrSpec b = a;
  uint64_t ids_a[] = { 10 }, ids_b[] = { 11 };
  AttrEntry attrs[] = { { &a, ids_a, 1 }, { &b, ids_b, 1 } };
  uint64_t chain[] = { ST_CONTEXT_KERNEL, 0xffffffff81234567ull };
  uint64_t regs[2] = { 0xaa, 0xbb };
  SampleSpec s = { .id = 11, .pid = 1, .tid = 2, .time = 3, .cpu = 0,
                   .n_read = 3, .chain = chain, .n_chain = 2,
                   .raw_size = 12, .n_branches = 2, .abi = ST_REGS_ABI_32,
                   .regs = regs, .stack_size = 24, .dyn_size = 20 };
  GByteArray *d = g_byte_array_new ();
  Trailer t = { 1, 2, 50, 11, 0, 1 };

  put_sample (d, &a, &s);
  s.id = 10;
  s.n_read = 0;
  s.n_branches = 0;
  s.raw_size = 4;
  put_sample (d, &a, &s);
  put_lost (d, &a, &t, 3);

  for (int pipe_input = 0; pipe_input < 2; pipe_input++)
    {
      GByteArray *bytes = make_file (attrs, 2, d, NULL, 0, 0);
      Result *res = read_bytes (bytes, pipe_input);
      const Ev *e;

      g_assert_no_error (res->error);
      g_assert_cmpuint (res->evs->len, ==, 3);
      for (guint i = 0; i < 2; i++)
        {
          e = ev_at (res, i);
          g_assert_cmpint (e->kind, ==, ST_EVENT_STACK_USER);
          g_assert_cmpuint (e->n_ips, ==, 2);
          g_assert_cmpuint (e->u64s[1], ==, 0xffffffff81234567ull);
          g_assert_cmpuint (e->n_regs, ==, 2);
          g_assert_cmpuint (e->u64s[3], ==, 0xbb);
          g_assert_cmpuint (e->abi, ==, ST_REGS_ABI_32);
          g_assert_cmpuint (e->stack_size, ==, 20);
          g_assert_cmpuint (e->stack_last, ==, 20);
        }
      e = ev_at (res, 2);
      g_assert_cmpint (e->kind, ==, ST_EVENT_LOST);
      g_assert_cmpuint (e->lost, ==, 3);
      g_assert_cmpint (e->time, ==, 50);
      g_assert_cmpint (e->cpu, ==, 1);
      result_free (res);
      g_byte_array_free (bytes, TRUE);
    }
  g_byte_array_free (d, TRUE);
}

/* A record at an odd offset is still decoded with aligned arrays.  */
static void
test_misaligned (void)
{
  AttrEntry attr = { &dwarf_attr, dwarf_ids, 2 };
  GByteArray *d = g_byte_array_new ();
  uint64_t chain[] = { ST_CONTEXT_KERNEL, 0xffffffff81000000ull };
  SampleSpec s = { .pid = 1, .tid = 1, .chain = chain, .n_chain = 2,
                   .abi = ST_REGS_ABI_64, .regs = regs17, .stack_size = 8,
                   .dyn_size = 8 };
  GByteArray *stream;
  Result *res;

  put_other (d, ST_PERF_RECORD_HEADER_EVENT_TYPE, 3);
  put_sample (d, &dwarf_attr, &s);
  stream = make_pipe (&attr, 1, d);
  res = read_bytes (stream, TRUE);
  g_assert_no_error (res->error);
  g_assert_cmpuint (res->evs->len, ==, 3);
  g_assert_cmpuint (ev_at (res, 2)->offset % 8, ==, 3);
  g_assert_cmpint (ev_at (res, 2)->kind, ==, ST_EVENT_STACK_USER);
  g_assert_cmpuint (ev_at (res, 2)->u64s[1], ==, 0xffffffff81000000ull);
  result_free (res);
  g_byte_array_free (stream, TRUE);
  g_byte_array_free (d, TRUE);
}

/* A sample that cannot be unwound (register ABI 0, or an empty stack
   copy) and has no address in its chain keeps its sampled IP.  */
static void
test_sampled_ip_kept (void)
{
  AttrEntry attr = { &dwarf_attr, dwarf_ids, 2 };
  GByteArray *d = g_byte_array_new ();
  uint64_t user_only[] = { ST_CONTEXT_USER };
  SampleSpec s = { .pid = 1, .tid = 1, .ip = 0x401234, .abi = 0,
                   .stack_size = 64, .dyn_size = 0 };

  put_sample (d, &dwarf_attr, &s);      /* ABI 0, no chain */
  s.abi = ST_REGS_ABI_64;
  s.regs = regs17;
  s.chain = user_only;
  s.n_chain = 1;
  put_sample (d, &dwarf_attr, &s);      /* dyn_size 0, a context only */
  GByteArray *stream = make_pipe (&attr, 1, d);
  Result *res = read_bytes (stream, TRUE);
  g_assert_no_error (res->error);
  g_assert_cmpuint (res->evs->len, ==, 3);
  for (guint i = 1; i < 3; i++)
    {
      const Ev *e = ev_at (res, i);
      g_assert_cmpint (e->kind, ==, ST_EVENT_SAMPLE);
      g_assert_cmpuint (e->n_ips, ==, 1);
      g_assert_cmpuint (e->u64s[0], ==, 0x401234);
    }
  result_free (res);
  g_byte_array_free (stream, TRUE);
  g_byte_array_free (d, TRUE);
}

/* --- bad input ----------------------------------------------------------- */

static Result *
read_pipe_stream (const GByteArray *d, gboolean pipe_input)
{
  AttrEntry attr = { &dwarf_attr, dwarf_ids, 2 };
  GByteArray *stream = make_pipe (&attr, 1, d);
  Result *res = read_bytes (stream, pipe_input);

  g_byte_array_free (stream, TRUE);
  return res;
}

/* Offset of data byte 0 in make_pipe with one attr.  */
#define PIPE_DATA (16 + 8 + ATTR_BYTES + 16)

static void
test_bad_records (void)
{
  GByteArray *d = dwarf_records ();
  GByteArray *bad;
  Result *res;
  guint last, at;
  SampleSpec s = { .abi = ST_REGS_ABI_64, .regs = regs17, .stack_size = 64,
                   .dyn_size = 64 };
  AttrEntry attr = { &dwarf_attr, dwarf_ids, 2 };
  char *want;

  /* Truncated last record on a pipe stream.  */
  bad = g_byte_array_new ();
  put (bad, d->data, d->len);
  last = bad->len;
  put_sample (bad, &dwarf_attr, &s);
  g_byte_array_set_size (bad, bad->len - 9);
  for (int pipe_input = 0; pipe_input < 2; pipe_input++)
    {
      res = read_pipe_stream (bad, pipe_input);
      want = g_strdup_printf ("offset %u: input ended inside a perf record",
                              PIPE_DATA + last);
      assert_error (res, ST_ERROR_TRUNCATED, want, NULL);
      g_assert_cmpuint (res->evs->len, ==, 1 + 16);
      g_free (want);
      result_free (res);
    }

  /* Truncated record header.  */
  g_byte_array_set_size (bad, last + 5);
  res = read_pipe_stream (bad, TRUE);
  want = g_strdup_printf ("offset %u: input ended inside a perf record "
                          "header", PIPE_DATA + last);
  assert_error (res, ST_ERROR_TRUNCATED, want, NULL);
  g_free (want);
  result_free (res);

  /* Record size < 8.  */
  g_byte_array_set_size (bad, last);
  at = begin_record (bad, 1234, 0);
  put_u64 (bad, 0);
  memset (bad->data + at + 6, 0, 2);
  res = read_pipe_stream (bad, TRUE);
  want = g_strdup_printf ("offset %u: bad perf record (type 1234, size 0)",
                          PIPE_DATA + at);
  assert_error (res, ST_ERROR_FORMAT, want, "smaller than its 8-byte");
  g_free (want);
  result_free (res);

  /* A sample whose STACK_USER size runs past the record.  */
  g_byte_array_set_size (bad, last);
  put_sample (bad, &dwarf_attr, &s);
  memcpy (bad->data + bad->len - 8 - 8 - 64 - 8, &(uint64_t) { 81 }, 8);
  res = read_pipe_stream (bad, TRUE);
  want = g_strdup_printf ("offset %u: bad perf record (type 9,",
                          PIPE_DATA + last);
  assert_error (res, ST_ERROR_FORMAT, want, "STACK_USER field runs past");
  result_free (res);

  /* A callchain longer than the record.  */
  g_byte_array_set_size (bad, last);
  put_sample (bad, &dwarf_attr, &s);
  memcpy (bad->data + last + 8 + 48, &(uint64_t) { 1ull << 61 }, 8);
  res = read_pipe_stream (bad, TRUE);
  assert_error (res, ST_ERROR_FORMAT, want, "CALLCHAIN field runs past");
  g_free (want);
  result_free (res);

  /* A MMAP2 without room for its trailer, a COMM without its NUL.  */
  g_byte_array_set_size (bad, last);
  put_other (bad, ST_PERF_RECORD_MMAP2, 64);
  res = read_pipe_stream (bad, TRUE);
  want = g_strdup_printf ("offset %u: bad perf record (type 10, size 72): "
                          "too short", PIPE_DATA + last);
  assert_error (res, ST_ERROR_FORMAT, want, NULL);
  g_free (want);
  result_free (res);
  g_byte_array_set_size (bad, last);
  put_other (bad, ST_PERF_RECORD_COMM, 8 + 8 + 24);
  res = read_pipe_stream (bad, TRUE);
  want = g_strdup_printf ("offset %u: bad perf record (type 3, size 48)",
                          PIPE_DATA + last);
  assert_error (res, ST_ERROR_FORMAT, want, "unterminated comm");
  g_free (want);
  result_free (res);

  /* Compressed data that is not zstd (test-perf-versions.c has the
     rest).  */
  g_byte_array_set_size (bad, last);
  put_other (bad, ST_PERF_RECORD_COMPRESSED, 32);
  res = read_pipe_stream (bad, TRUE);
  want = g_strdup_printf ("offset %u: bad perf record (type 81",
                          PIPE_DATA + last);
  assert_error (res, ST_ERROR_FORMAT, want, "corrupt zstd data");
  g_free (want);
  result_free (res);

  /* A sample before any attribute.  */
  {
    GByteArray *stream;

    g_byte_array_set_size (bad, 0);
    put_sample (bad, &dwarf_attr, &s);
    stream = make_pipe (NULL, 0, bad);

    res = read_bytes (stream, TRUE);
    assert_error (res, ST_ERROR_FORMAT, "offset 16:", "before any event");
    result_free (res);
    g_byte_array_free (stream, TRUE);
  }

  /* File mode: a record running past the end of the data section, and a
     data section longer than the file.  */
  g_byte_array_set_size (bad, 0);
  put (bad, d->data, d->len);
  put_sample (bad, &dwarf_attr, &s);
  {
    GByteArray *file = make_file (&attr, 1, bad, NULL, 0, 0);
    uint64_t data_size = bad->len - 8;
    uint64_t data_off = ST_PERF_FILE_HEADER_SIZE + 16 + ATTR_BYTES + 16;

    set_u64 (file, 48, data_size);
    for (int pipe_input = 0; pipe_input < 2; pipe_input++)
      {
        res = read_bytes (file, pipe_input);
        want = g_strdup_printf ("offset %" G_GUINT64_FORMAT ": bad perf "
                                "record (type 9,", data_off + last);
        assert_error (res, ST_ERROR_FORMAT, want, "past the end of the data");
        g_free (want);
        result_free (res);
      }
    set_u64 (file, 48, bad->len + 64);
    res = read_bytes (file, FALSE);
    want = g_strdup_printf ("offset %" G_GUINT64_FORMAT ": input ended inside "
                            "the perf.data data section",
                            data_off + bad->len);
    assert_error (res, ST_ERROR_TRUNCATED, want, NULL);
    g_free (want);
    result_free (res);
    g_byte_array_free (file, TRUE);
  }

  g_byte_array_free (bad, TRUE);
  g_byte_array_free (d, TRUE);
}

/* BAD holds the dwarf records then one damaged record at LAST (and the
   good suffix when SUFFIX): with a damage handler, it is reported once
   (ACTION, naming its offset) and every good record still comes out.  */
static void
expect_recovery (GByteArray *bad, guint last, StDamageAction action,
                 gboolean suffix, const char *part)
{
  Trailer t = trailer (5000, 1);

  if (suffix)
    {
      put_lost (bad, &dwarf_attr, &t, 5);
      put_fork_exit (bad, &dwarf_attr, &t, ST_PERF_RECORD_EXIT, PID, PID,
                     PID, PID, 5000);
    }
  for (int pipe_input = 0; pipe_input < 2; pipe_input++)
    {
      DamageLog log = { 0 };
      Result *res;

      recovery = &log;
      res = read_pipe_stream (bad, pipe_input);
      recovery = NULL;
      g_assert_no_error (res->error);
      g_test_message ("recovered: %s", log.message);
      if (log.n != 1 || log.action != action
          || log.offset != PIPE_DATA + last
          || strstr (log.message, part) == NULL)
        g_error ("%u damage report(s), first: action %d offset %"
                 G_GUINT64_FORMAT " (want %d at %u, '%s'): %s", log.n,
                 log.action, log.offset, action, PIPE_DATA + last, part,
                 log.message);
      g_free (log.message);
      guint n = 1 + 16 + (action == ST_DAMAGE_PASSED) + (suffix ? 2 : 0);
      g_assert_cmpuint (res->evs->len, ==, n);
      if (action == ST_DAMAGE_PASSED)
        {
          g_assert_cmpint (ev_at (res, 17)->kind, ==, ST_EVENT_OTHER);
          g_assert_cmpuint (ev_at (res, 17)->offset, ==, PIPE_DATA + last);
        }
      if (suffix)
        {
          g_assert_cmpint (ev_at (res, n - 2)->kind, ==, ST_EVENT_LOST);
          g_assert_cmpuint (ev_at (res, n - 2)->lost, ==, 5);
          g_assert_cmpint (ev_at (res, n - 1)->kind, ==, ST_EVENT_EXIT);
        }
      result_free (res);
    }
  g_byte_array_set_size (bad, last);
}

static void
test_recovery (void)
{
  GByteArray *d = dwarf_records ();
  GByteArray *bad = g_byte_array_new ();
  SampleSpec s = { .abi = ST_REGS_ABI_64, .regs = regs17, .stack_size = 64,
                   .dyn_size = 64 };
  uint8_t junk[40];
  guint last, at;

  put (bad, d->data, d->len);
  last = bad->len;

  /* Framing: size < 8, garbage, an odd size of an unknown type.  */
  at = begin_record (bad, 1234, 0);
  put_u64 (bad, 0);
  memset (bad->data + at + 6, 0, 2);
  expect_recovery (bad, last, ST_DAMAGE_SKIPPED, TRUE, "skipped 16 bytes");
  memset (junk, 0xff, sizeof junk);
  put (bad, junk, sizeof junk);
  expect_recovery (bad, last, ST_DAMAGE_SKIPPED, TRUE, "not a perf record");
  put_other (bad, 3000, 5);     /* a damaged size: 16 bytes really follow */
  put (bad, "pad", 3);
  expect_recovery (bad, last, ST_DAMAGE_SKIPPED, TRUE, "not a multiple of 8");

  /* Content: the record goes on unchanged, not interpreted.  */
  put_sample (bad, &dwarf_attr, &s);
  memcpy (bad->data + bad->len - 8 - 8 - 64 - 8, &(uint64_t) { 81 }, 8);
  expect_recovery (bad, last, ST_DAMAGE_PASSED, TRUE, "STACK_USER field");
  put_sample (bad, &dwarf_attr, &s);
  memcpy (bad->data + last + 8 + 48, &(uint64_t) { 1ull << 61 }, 8);
  expect_recovery (bad, last, ST_DAMAGE_PASSED, TRUE, "CALLCHAIN field");
  put_other (bad, ST_PERF_RECORD_MMAP2, 64);
  expect_recovery (bad, last, ST_DAMAGE_PASSED, TRUE, "too short");
  put_other (bad, ST_PERF_RECORD_COMM, 8 + 8 + 24);
  expect_recovery (bad, last, ST_DAMAGE_PASSED, TRUE, "unterminated comm");
  s.dyn_size = 100;
  put_sample (bad, &dwarf_attr, &s);
  expect_recovery (bad, last, ST_DAMAGE_PASSED, TRUE,
                   "dyn_size 100 exceeds the copied size 64");
  s.dyn_size = 64;
  s.abi = 7;
  put_sample (bad, &dwarf_attr, &s);
  expect_recovery (bad, last, ST_DAMAGE_PASSED, TRUE, "register ABI 7");
  s.abi = ST_REGS_ABI_64;

  /* The input ends inside a record.  */
  put_sample (bad, &dwarf_attr, &s);
  g_byte_array_set_size (bad, bad->len - 9);
  expect_recovery (bad, last, ST_DAMAGE_TRUNCATED, FALSE, "input ended");

  /* File mode: the last record runs past the end of the data section,
     which ends 8 bytes early: skipped to the end, no more records.  */
  put_sample (bad, &dwarf_attr, &s);
  {
    AttrEntry attr = { &dwarf_attr, dwarf_ids, 2 };
    GByteArray *file = make_file (&attr, 1, bad, NULL, 0, 0);
    uint64_t data_off = ST_PERF_FILE_HEADER_SIZE + 16 + ATTR_BYTES + 16;

    set_u64 (file, 48, bad->len - 8);
    for (int pipe_input = 0; pipe_input < 2; pipe_input++)
      {
        DamageLog log = { 0 };
        Result *res;
        char *want = g_strdup_printf ("offset %" G_GUINT64_FORMAT ": bad perf "
                                      "record (type 9, size %u): runs past "
                                      "the end of the data section",
                                      data_off + last, bad->len - last);

        recovery = &log;
        res = read_bytes (file, pipe_input);
        recovery = NULL;
        g_assert_no_error (res->error);
        g_assert_cmpuint (res->evs->len, ==, 16);
        g_assert_cmpuint (log.n, ==, 1);
        g_assert_cmpint (log.action, ==, ST_DAMAGE_SKIPPED);
        if (!g_str_has_prefix (log.message, want)
            || strstr (log.message, "to the end at") == NULL)
          g_error ("unexpected: %s", log.message);
        g_free (want);
        g_free (log.message);
        result_free (res);
      }
    g_byte_array_free (file, TRUE);
  }

  g_byte_array_free (bad, TRUE);
  g_byte_array_free (d, TRUE);
}

static void
test_bad_headers (void)
{
  GByteArray *d = dwarf_records ();
  AttrEntry attr = { &dwarf_attr, dwarf_ids, 2 };
  GByteArray *file = make_file (&attr, 1, d, NULL, 0, 0);
  GByteArray *copy = g_byte_array_new ();
  Result *res;

  put (copy, file->data, 12);
  res = read_bytes (copy, TRUE);
  assert_error (res, ST_ERROR_TRUNCATED, "offset 0:", "header");
  result_free (res);

  g_byte_array_set_size (copy, 0);
  put (copy, file->data, file->len);
  memcpy (copy->data, "2ELIFREP", 8);
  res = read_bytes (copy, TRUE);
  assert_error (res, ST_ERROR_UNSUPPORTED, "offset 0:", "byte-swapped");
  result_free (res);

  memcpy (copy->data, "PERFFILE", 8);
  res = read_bytes (copy, TRUE);
  assert_error (res, ST_ERROR_FORMAT, "offset 0:", "magic");
  result_free (res);

  memcpy (copy->data, ST_PERF_MAGIC, 8);
  set_u64 (copy, 8, 40);
  res = read_bytes (copy, TRUE);
  assert_error (res, ST_ERROR_FORMAT, "offset 8:", "header size 40");
  result_free (res);

  /* attr_size that does not divide the attrs section.  */
  set_u64 (copy, 8, ST_PERF_FILE_HEADER_SIZE);
  set_u64 (copy, 16, 100);
  res = read_bytes (copy, TRUE);
  assert_error (res, ST_ERROR_FORMAT, "offset 0: bad perf.data header",
                "attr_size 100");
  result_free (res);

  /* An id array overlapping the header.  */
  set_u64 (copy, 16, ATTR_BYTES + 16);
  set_u64 (copy, ST_PERF_FILE_HEADER_SIZE + 16 + ATTR_BYTES, 8);
  res = read_bytes (copy, TRUE);
  assert_error (res, ST_ERROR_FORMAT, "offset 0: bad perf.data header",
                "overlaps");
  result_free (res);

  /* Input ending inside the attributes.  */
  g_byte_array_set_size (copy, 0);
  put (copy, file->data, ST_PERF_FILE_HEADER_SIZE + 16 + 40);
  res = read_bytes (copy, TRUE);
  assert_error (res, ST_ERROR_TRUNCATED, "offset 160:", "attribute section");
  result_free (res);

  /* A bad BUILD_ID feature, on a file.  */
  {
    GByteArray *f = build_id_feature ();
    Feature feat = { ST_PERF_FEAT_BUILD_ID, f };
    GByteArray *with = NULL;

    f->data[6] = 200;     /* first entry runs past the section */
    f->data[7] = 0;
    with = make_file (&attr, 1, d, &feat, 1, 0);
    res = read_bytes (with, FALSE);
    assert_error (res, ST_ERROR_FORMAT, "offset ", "BUILD_ID feature");
    result_free (res);
    /* Through a pipe, the features are read after the data: every event
       comes, then the error.  */
    res = read_bytes (with, TRUE);
    assert_error (res, ST_ERROR_FORMAT, "offset ", "BUILD_ID feature");
    {
      Result *good = read_bytes (file, TRUE);

      g_assert_cmpuint (res->evs->len, ==, good->evs->len);
      result_free (good);
    }
    result_free (res);
    g_byte_array_free (with, TRUE);
    g_byte_array_free (f, TRUE);
  }

  g_byte_array_free (copy, TRUE);
  g_byte_array_free (file, TRUE);
  g_byte_array_free (d, TRUE);
}

/* --- a real recording ---------------------------------------------------- */

static GByteArray *
slurp (const char *path)
{
  char *contents = NULL;
  gsize len = 0;

  if (!g_file_get_contents (path, &contents, &len, NULL))
    return NULL;
  return g_byte_array_new_take ((guint8 *) contents, len);
}

static gboolean
run_perf (const char *cmd)
{
  int status = 0;

  if (!g_spawn_command_line_sync (cmd, NULL, NULL, &status, NULL))
    return FALSE;
  return g_spawn_check_wait_status (status, NULL);
}

/* Checks a real dwarf recording of /bin/sh running a loop.  */
static void
check_real (const Result *res, const char *shell)
{
  guint stacks = 0, maps = 0, comms = 0, with_bid = 0;

  g_assert_no_error (res->error);
  for (guint i = 0; i < res->evs->len; i++)
    {
      const Ev *e = ev_at (res, i);

      if (e->kind == ST_EVENT_STACK_USER)
        {
          /* perf 6.1 asks for 0xff0fff: 20 registers.  */
          g_assert_cmpuint (e->n_regs, ==,
                            __builtin_popcountll (e->regs_mask));
          g_assert_cmpuint (e->n_regs, >=, 17);
          g_assert_cmpuint (e->abi, ==, ST_REGS_ABI_64);
          g_assert_cmpuint (e->stack_size, >, 0);
          g_assert_cmpuint (e->stack_size, <=, 8192);
          stacks++;
        }
      if (e->kind == ST_EVENT_MAP && strcmp (e->str, shell) == 0)
        {
          maps++;
          if (e->build_id_len == 20)
            with_bid++;
        }
      if (e->kind == ST_EVENT_PROCESS)
        comms++;
    }
  g_test_message ("%u stack samples, %u maps of %s (%u with a build-id), "
                  "%u comms", stacks, maps, shell, with_bid, comms);
  g_assert_cmpuint (stacks, >, 0);
  g_assert_cmpuint (maps, >, 0);
  g_assert_cmpuint (comms, >, 0);
}

static void
test_real_recording (void)
{
  char *dir = g_dir_make_tmp ("test-perf-reader-XXXXXX", NULL);
  char *file = g_build_filename (dir, "file.data", NULL);
  char *piped = g_build_filename (dir, "pipe.data", NULL);
  char *shell = realpath ("/bin/sh", NULL);
  const char *loop = "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done";
  char *cmd;
  GByteArray *fbytes, *pbytes;
  Result *ff, *fp, *pp;
  guint regs = 0;

  g_assert_nonnull (dir);
  /* -N: nothing into the build-id cache of HOME, which other tests
     read.  */
  cmd = g_strdup_printf ("perf record -q -N -e cpu-clock --call-graph=dwarf "
                         "-o %s -- /bin/sh -c '%s'", file, loop);
  if (!run_perf (cmd))
    {
      g_test_skip ("perf record does not work here");
      goto out;
    }
  g_free (cmd);
  cmd = g_strdup_printf ("sh -c \"perf record -q -e cpu-clock "
                         "--call-graph=dwarf -o - -- /bin/sh -c '%s' > %s\"",
                         loop, piped);
  if (!run_perf (cmd))
    {
      g_test_skip ("perf record -o - does not work here");
      goto out;
    }
  fbytes = slurp (file);
  pbytes = slurp (piped);
  g_assert_nonnull (fbytes);
  g_assert_nonnull (pbytes);

  ff = read_bytes (fbytes, FALSE);
  fp = read_bytes (fbytes, TRUE);
  pp = read_bytes (pbytes, TRUE);
  check_real (ff, shell);
  check_real (fp, shell);
  check_real (pp, shell);
  g_assert_false (ff->pipe_mode);
  g_assert_true (pp->pipe_mode);
  g_assert_cmpuint (pp->n_attrs, ==, 1);
  /* The build-id feature: from the start through the file, after the
     data through a pipe.  */
  g_assert_cmpuint (ff->feature_size[ST_PERF_FEAT_BUILD_ID], >, 0);
  g_assert_cmpuint (fp->feature_size[ST_PERF_FEAT_BUILD_ID], ==,
                    ff->feature_size[ST_PERF_FEAT_BUILD_ID]);
  assert_same_events (ff, fp, FALSE);
  for (guint i = 0; i < ff->evs->len; i++)
    if (ev_at (ff, i)->kind == ST_EVENT_STACK_USER)
      regs = ev_at (ff, i)->n_regs;
  g_test_message ("%u registers per stack sample", regs);

  result_free (ff);
  result_free (fp);
  result_free (pp);
  g_byte_array_free (fbytes, TRUE);
  g_byte_array_free (pbytes, TRUE);
out:
  g_free (cmd);
  unlink (file);
  unlink (piped);
  rmdir (dir);
  g_free (file);
  g_free (piped);
  g_free (dir);
  free (shell);
}

int
main (int argc, char **argv)
{
  signal (SIGPIPE, SIG_IGN);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/perf-reader/file-mode", test_file_mode);
  g_test_add_func ("/perf-reader/file-layouts", test_file_layouts);
  g_test_add_func ("/perf-reader/pipe-mode", test_pipe_mode);
  g_test_add_func ("/perf-reader/mmap2-false-build-id",
                   test_mmap2_false_build_id);
  g_test_add_func ("/perf-reader/two-attrs", test_two_attrs);
  g_test_add_func ("/perf-reader/sample-fields", test_sample_fields);
  g_test_add_func ("/perf-reader/sampled-ip-kept", test_sampled_ip_kept);
  g_test_add_func ("/perf-reader/misaligned", test_misaligned);
  g_test_add_func ("/perf-reader/bad-records", test_bad_records);
  g_test_add_func ("/perf-reader/bad-headers", test_bad_headers);
  g_test_add_func ("/perf-reader/recovery", test_recovery);
  g_test_add_func ("/perf-reader/real-recording", test_real_recording);
  g_test_add_func ("/perf-reader/id-index", test_id_index);
  return g_test_run ();
}
