/* The fields of a PERF_RECORD_SAMPLE (format/perf-sample.c).

   Records laid out by hand, every offset written out, from the field
   order of perf_event.h (formats.md, "SAMPLE field order": IDENTIFIER,
   IP, {pid,tid}, TIME, ADDR, ID, STREAM_ID, {cpu,res}, PERIOD, READ,
   CALLCHAIN, RAW, BRANCH_STACK, REGS_USER, STACK_USER, ...): each field
   alone and all together, IDENTIFIER first whatever its bit, READ in its
   four layouts (perf_event_open(2): with and without PERF_FORMAT_GROUP,
   with TOTAL_TIME_* / ID / LOST), RAW's padding, BRANCH_STACK with
   hw_idx, REGS_USER with abi 0 (no registers), STACK_USER with size 0
   (no dyn_size); truncation at every byte (exact-size copies, so that
   ASan sees any read past the end) and counts that would overflow.
   st_perf_sample_locate gives the offsets st_perf_sample_parse gives,
   or its error, on all of those and on the field sets it locates
   without the parser, cut at every byte.  */
#include "config.h"

#include <string.h>

#include <glib.h>

#include "format/perf-sample.h"
#include "format/perf-types.h"

/* perf_event.h: PERF_SAMPLE_REGS_ABI_NONE, _64; PERF_CONTEXT_KERNEL.  */
#define ABI_NONE 0
#define ABI_64 2
#define CONTEXT_KERNEL 0xffffffffffffff80ull

/* --- records by hand ----------------------------------------------------- */

typedef struct
{
  uint8_t b[1024];
  size_t size;
} Rec;

static void
rec_u64 (Rec *r, size_t at, uint64_t v)
{
  g_assert_cmpuint (at + 8, <=, sizeof r->b);
  memcpy (r->b + at, &v, 8);
  r->size = MAX (r->size, at + 8);
}

static void
rec_u32 (Rec *r, size_t at, uint32_t v)
{
  memcpy (r->b + at, &v, 4);
  r->size = MAX (r->size, at + 4);
}

/* The record header; SIZE is set by rec_done.  */
static void
rec_begin (Rec *r)
{
  memset (r, 0, sizeof *r);
  rec_u32 (r, 0, ST_PERF_RECORD_SAMPLE);
  r->size = 8;
}

static void
rec_done (Rec *r)
{
  uint16_t size = (uint16_t) r->size;

  g_assert_cmpuint (r->size % 8, ==, 0);
  memcpy (r->b + 6, &size, 2);
}

static StPerfAttr
attr_of (uint64_t sample_type)
{
  StPerfAttr a = { 0 };

  a.sample_type = sample_type;
  return a;
}

/* Parses the first SIZE bytes of R from an exact-size copy.  */
static char *
parse_cut (const StPerfAttr *a, const Rec *r, size_t size, StPerfSample *s)
{
  uint8_t *copy = g_memdup2 (r->b, MAX (size, 1));
  char *why = st_perf_sample_parse (a, copy, size, s);

  /* Pointers into the copy are checked by the callers as offsets.  */
  if (s->ips != NULL)
    s->ips = r->b + (s->ips - copy);
  if (s->regs != NULL)
    s->regs = r->b + (s->regs - copy);
  if (s->stack != NULL)
    s->stack = r->b + (s->stack - copy);
  g_free (copy);
  return why;
}

static void
parse_ok (const StPerfAttr *a, const Rec *r, StPerfSample *s)
{
  char *why = parse_cut (a, r, r->size, s);

  g_assert_null (why);
}

/* --- all fields ---------------------------------------------------------- */

#define EVERY_FIELD                                                        \
  (ST_PERF_SAMPLE_IDENTIFIER | ST_PERF_SAMPLE_IP | ST_PERF_SAMPLE_TID      \
   | ST_PERF_SAMPLE_TIME | ST_PERF_SAMPLE_ADDR | ST_PERF_SAMPLE_ID         \
   | ST_PERF_SAMPLE_STREAM_ID | ST_PERF_SAMPLE_CPU | ST_PERF_SAMPLE_PERIOD \
   | ST_PERF_SAMPLE_READ | ST_PERF_SAMPLE_CALLCHAIN | ST_PERF_SAMPLE_RAW   \
   | ST_PERF_SAMPLE_BRANCH_STACK | ST_PERF_SAMPLE_REGS_USER                \
   | ST_PERF_SAMPLE_STACK_USER | ST_PERF_SAMPLE_WEIGHT                     \
   | ST_PERF_SAMPLE_DATA_SRC)

/* Every field up to DATA_SRC; offsets in the comments.  READ plain (one
   value), two callchain entries, 4 RAW bytes, one branch, registers AX
   and BX (mask 3), 16 stack bytes of which 12 valid.  */
static void
every_field_record (Rec *r)
{
  rec_begin (r);
  rec_u64 (r, 8, 0x1d);                         /* IDENTIFIER */
  rec_u64 (r, 16, 0x401234);                    /* IP */
  rec_u32 (r, 24, 4242);                        /* pid */
  rec_u32 (r, 28, 4243);                        /* tid */
  rec_u64 (r, 32, 1000000007);                  /* TIME */
  rec_u64 (r, 40, 0xadd0);                      /* ADDR */
  rec_u64 (r, 48, 0x1d);                        /* ID */
  rec_u64 (r, 56, 0x5d);                        /* STREAM_ID */
  rec_u32 (r, 64, 3);                           /* cpu */
  rec_u32 (r, 68, 0);                           /* res */
  rec_u64 (r, 72, 10000);                       /* PERIOD */
  rec_u64 (r, 80, 777);                         /* READ: value */
  rec_u64 (r, 88, 2);                           /* CALLCHAIN nr */
  rec_u64 (r, 96, CONTEXT_KERNEL);
  rec_u64 (r, 104, 0xffffffff81000010ull);
  rec_u32 (r, 112, 4);                          /* RAW size */
  rec_u32 (r, 116, 0xaaaaaaaa);                 /* RAW data */
  rec_u64 (r, 120, 1);                          /* BRANCH_STACK nr */
  rec_u64 (r, 128, 0x401000);                   /* from */
  rec_u64 (r, 136, 0x402000);                   /* to */
  rec_u64 (r, 144, 0);                          /* flags */
  rec_u64 (r, 152, ABI_64);             /* REGS_USER abi */
  rec_u64 (r, 160, 0xa0);                       /* AX */
  rec_u64 (r, 168, 0xb0);                       /* BX */
  rec_u64 (r, 176, 16);                         /* STACK_USER size */
  rec_u64 (r, 184, 0x1111111111111111ull);      /* data */
  rec_u64 (r, 192, 0x2222222222222222ull);
  rec_u64 (r, 200, 12);                         /* dyn_size */
  rec_u64 (r, 208, 55);                         /* WEIGHT */
  rec_u64 (r, 216, 0xd5);                       /* DATA_SRC */
  rec_done (r);
}

static void
test_every_field (void)
{
  StPerfAttr a = attr_of (EVERY_FIELD);
  StPerfSample s;
  Rec r;

  a.sample_regs_user = 0x3;
  every_field_record (&r);
  g_assert_cmpuint (r.size, ==, 224);
  parse_ok (&a, &r, &s);
  g_assert_cmphex (s.ip, ==, 0x401234);
  g_assert_cmpuint (s.pid, ==, 4242);
  g_assert_cmpuint (s.tid, ==, 4243);
  g_assert_cmpuint (s.time, ==, 1000000007);
  g_assert_cmpuint (s.cpu, ==, 3);
  g_assert_cmpuint (s.nr, ==, 2);
  g_assert_true (s.ips == r.b + 96);
  g_assert_cmpuint (s.callchain_at, ==, 88);
  g_assert_cmpuint (s.callchain_end, ==, 112);
  g_assert_cmpuint (s.regs_user_at, ==, 152);
  g_assert_cmpuint (s.abi, ==, ABI_64);
  g_assert_cmpuint (s.n_regs, ==, 2);
  g_assert_true (s.regs == r.b + 160);
  g_assert_cmpuint (s.stack_size, ==, 16);
  g_assert_true (s.stack == r.b + 184);
  g_assert_cmpuint (s.dyn_size, ==, 12);
  g_assert_cmpuint (s.stack_user_end, ==, 208);
}

static void
test_every_cut (void)
{
  /* Cut anywhere before the end of STACK_USER: an error naming the
     field the cut is in; from there on, fields are not read.  */
  static const struct
  {
    size_t from;
    const char *field;
  } fields[] = {
    { 8, "IDENTIFIER" }, { 16, "IP" }, { 24, "TID" }, { 32, "TIME" },
    { 40, "ADDR" }, { 48, "ID" }, { 56, "STREAM_ID" }, { 64, "CPU" },
    { 72, "PERIOD" }, { 80, "READ" }, { 88, "CALLCHAIN" }, { 112, "RAW" },
    { 120, "BRANCH_STACK" }, { 152, "REGS_USER" }, { 176, "STACK_USER" },
    { 208, NULL },
  };
  StPerfAttr a = attr_of (EVERY_FIELD);
  Rec r;
  guint f = 0;

  a.sample_regs_user = 0x3;
  every_field_record (&r);
  for (size_t size = 0; size <= r.size; size++)
    {
      StPerfSample s;
      g_autofree char *why = NULL;

      while (f + 1 < G_N_ELEMENTS (fields) && size >= fields[f + 1].from)
        f++;
      why = parse_cut (&a, &r, size, &s);
      if (size < 8)
        g_assert_cmpstr (why, ==, "record shorter than its header");
      else if (size < 208)
        {
          /* A cut at a field's first byte leaves none of it: that
             field runs past, not the complete one before it.  */
          g_autofree char *want =
            g_strdup_printf ("%s field runs past the end of the record",
                             fields[f].field);
          g_assert_cmpstr (why, ==, want);
        }
      else
        g_assert_null (why);
    }
}

/* --- each field alone ---------------------------------------------------- */

static void
test_identifier_first (void)
{
  /* IDENTIFIER (bit 16) comes before IP (bit 0), so that the id is at a
     fixed place whatever the sample_type.  */
  StPerfAttr a = attr_of (ST_PERF_SAMPLE_IDENTIFIER | ST_PERF_SAMPLE_IP
                          | ST_PERF_SAMPLE_TIME);
  StPerfSample s;
  Rec r;

  rec_begin (&r);
  rec_u64 (&r, 8, 77);
  rec_u64 (&r, 16, 0x401000);
  rec_u64 (&r, 24, 5);
  rec_done (&r);
  parse_ok (&a, &r, &s);
  g_assert_cmphex (s.ip, ==, 0x401000);
  g_assert_cmpuint (s.time, ==, 5);
  /* TIME before IP in the bits' numbering does not reorder them.  */
  g_assert_cmpuint (s.callchain_at, ==, 32);
}

static void
test_fields_before_callchain (void)
{
  /* Each field alone before a CALLCHAIN of one entry: the callchain
     starts after exactly the field's size; values of the others are 0.  */
  static const struct
  {
    uint64_t bit;
    size_t size;
  } fields[] = {
    { ST_PERF_SAMPLE_IDENTIFIER, 8 }, { ST_PERF_SAMPLE_IP, 8 },
    { ST_PERF_SAMPLE_TID, 8 }, { ST_PERF_SAMPLE_TIME, 8 },
    { ST_PERF_SAMPLE_ADDR, 8 }, { ST_PERF_SAMPLE_ID, 8 },
    { ST_PERF_SAMPLE_STREAM_ID, 8 }, { ST_PERF_SAMPLE_CPU, 8 },
    { ST_PERF_SAMPLE_PERIOD, 8 }, { ST_PERF_SAMPLE_READ, 8 },
    { 0, 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      StPerfAttr a = attr_of (fields[i].bit | ST_PERF_SAMPLE_CALLCHAIN);
      size_t at = 8 + fields[i].size;
      StPerfSample s;
      Rec r;

      rec_begin (&r);
      if (fields[i].size > 0)
        rec_u64 (&r, 8, 0x0000000900000007ull);
      rec_u64 (&r, at, 1);
      rec_u64 (&r, at + 8, 0x401000);
      rec_done (&r);
      parse_ok (&a, &r, &s);
      g_assert_cmpuint (s.callchain_at, ==, at);
      g_assert_cmpuint (s.nr, ==, 1);
      g_assert_true (s.ips == r.b + at + 8);
      g_assert_cmpuint (s.callchain_end, ==, at + 16);
      g_assert_cmpuint (s.regs_user_at, ==, at + 16);
      g_assert_cmpuint (s.stack_user_end, ==, at + 16);
      g_assert_cmphex (s.ip, ==,
                       fields[i].bit == ST_PERF_SAMPLE_IP
                       ? 0x0000000900000007ull : 0);
      g_assert_cmpuint (s.pid, ==, fields[i].bit == ST_PERF_SAMPLE_TID ? 7 : 0);
      g_assert_cmpuint (s.tid, ==, fields[i].bit == ST_PERF_SAMPLE_TID ? 9 : 0);
      g_assert_cmpuint (s.cpu, ==, fields[i].bit == ST_PERF_SAMPLE_CPU ? 7 : 0);
      g_assert_cmphex (s.time, ==,
                       fields[i].bit == ST_PERF_SAMPLE_TIME
                       ? 0x0000000900000007ull : 0);
    }
}

static void
test_read_formats (void)
{
  /* perf_event_open(2), "Reading results": without GROUP, value then
     time_enabled, time_running, id, lost as set; with GROUP, nr,
     time_enabled, time_running, then nr times {value, id, lost}.  */
  static const struct
  {
    uint64_t read_format;
    uint64_t nr;
    size_t size;
  } cases[] = {
    { 0, 0, 8 },
    { ST_PERF_FORMAT_ID, 0, 16 },
    { ST_PERF_FORMAT_TOTAL_TIME_ENABLED, 0, 16 },
    { ST_PERF_FORMAT_TOTAL_TIME_ENABLED | ST_PERF_FORMAT_TOTAL_TIME_RUNNING
      | ST_PERF_FORMAT_ID | ST_PERF_FORMAT_LOST, 0, 40 },
    { ST_PERF_FORMAT_GROUP, 3, 8 + 3 * 8 },
    { ST_PERF_FORMAT_GROUP, 0, 8 },
    { ST_PERF_FORMAT_GROUP | ST_PERF_FORMAT_ID, 2, 8 + 2 * 16 },
    { ST_PERF_FORMAT_GROUP | ST_PERF_FORMAT_TOTAL_TIME_ENABLED
      | ST_PERF_FORMAT_TOTAL_TIME_RUNNING | ST_PERF_FORMAT_ID
      | ST_PERF_FORMAT_LOST, 2, 8 + 16 + 2 * 24 },
    { ST_PERF_FORMAT_GROUP | ST_PERF_FORMAT_LOST, 1, 8 + 16 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      StPerfAttr a = attr_of (ST_PERF_SAMPLE_READ | ST_PERF_SAMPLE_CALLCHAIN
                              | ST_PERF_SAMPLE_IP);
      size_t at = 16 + cases[i].size;
      StPerfSample s;
      Rec r;

      a.read_format = cases[i].read_format;
      rec_begin (&r);
      rec_u64 (&r, 8, 0x401000);
      for (size_t k = 16; k < at; k += 8)
        rec_u64 (&r, k, 0xeeeeeeee);
      if (cases[i].read_format & ST_PERF_FORMAT_GROUP)
        rec_u64 (&r, 16, cases[i].nr);
      rec_u64 (&r, at, 0);               /* CALLCHAIN nr */
      rec_done (&r);
      parse_ok (&a, &r, &s);
      g_assert_cmpuint (s.callchain_at, ==, at);
      g_assert_cmpuint (s.callchain_end, ==, at + 8);

      /* One byte short of the values: READ runs past.  */
      {
        g_autofree char *why = parse_cut (&a, &r, at - 1, &s);
        g_assert_cmpstr (why, ==, "READ field runs past the end of the "
                         "record");
      }
    }
}

static void
test_read_group_overflow (void)
{
  /* A group count whose byte size overflows 64 bits.  */
  StPerfAttr a = attr_of (ST_PERF_SAMPLE_READ);
  StPerfSample s;
  Rec r;
  g_autofree char *why = NULL;

  a.read_format = ST_PERF_FORMAT_GROUP | ST_PERF_FORMAT_ID;
  rec_begin (&r);
  rec_u64 (&r, 8, (G_MAXUINT64 / 16) + 2);
  rec_u64 (&r, 16, 1);
  rec_u64 (&r, 24, 2);
  rec_done (&r);
  why = parse_cut (&a, &r, r.size, &s);
  g_assert_cmpstr (why, ==, "READ field runs past the end of the record");
}

static void
test_callchain_overflow (void)
{
  static const uint64_t counts[] = { 3, G_MAXUINT64 / 8 + 1, G_MAXUINT64,
                                     1ull << 61 };

  for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
    {
      StPerfAttr a = attr_of (ST_PERF_SAMPLE_CALLCHAIN);
      StPerfSample s;
      Rec r;
      g_autofree char *why = NULL;

      rec_begin (&r);
      rec_u64 (&r, 8, counts[i]);
      rec_u64 (&r, 16, 0x401000);
      rec_u64 (&r, 24, 0x401001);
      rec_done (&r);
      why = parse_cut (&a, &r, r.size, &s);
      g_assert_cmpstr (why, ==, "CALLCHAIN field runs past the end of the "
                       "record");
    }
}

static void
test_raw_padding (void)
{
  /* RAW: u32 size, then size bytes, size + 4 a multiple of 8.  */
  StPerfAttr a = attr_of (ST_PERF_SAMPLE_RAW | ST_PERF_SAMPLE_REGS_USER);
  StPerfSample s;
  Rec r;
  g_autofree char *why = NULL;

  rec_begin (&r);
  rec_u32 (&r, 8, 12);
  rec_u64 (&r, 24, ABI_NONE);
  rec_done (&r);
  parse_ok (&a, &r, &s);
  g_assert_cmpuint (s.regs_user_at, ==, 24);
  g_assert_cmpuint (s.stack_user_end, ==, 32);
  rec_u32 (&r, 8, 13);
  why = parse_cut (&a, &r, r.size, &s);
  g_assert_cmpstr (why, ==, "RAW size 13 + 4 is not a multiple of 8");
  g_clear_pointer (&why, g_free);
  rec_u32 (&r, 8, 28);
  why = parse_cut (&a, &r, r.size, &s);
  g_assert_cmpstr (why, ==, "RAW field runs past the end of the record");
  g_clear_pointer (&why, g_free);
  /* The largest size: no overflow in size + 4.  */
  rec_u32 (&r, 8, G_MAXUINT32 - 3);
  why = parse_cut (&a, &r, r.size, &s);
  g_assert_cmpstr (why, ==, "RAW field runs past the end of the record");
}

static void
test_branch_stack (void)
{
  /* nr, hw_idx only with PERF_SAMPLE_BRANCH_HW_INDEX, nr entries of 24
     bytes (from, to, flags).  */
  for (int hw_index = 0; hw_index <= 1; hw_index++)
    {
      StPerfAttr a = attr_of (ST_PERF_SAMPLE_BRANCH_STACK
                              | ST_PERF_SAMPLE_REGS_USER);
      size_t at = 16 + (hw_index ? 8 : 0);
      StPerfSample s;
      Rec r;

      a.branch_sample_type = hw_index ? ST_PERF_BRANCH_HW_INDEX : 0;
      rec_begin (&r);
      rec_u64 (&r, 8, 2);
      if (hw_index)
        rec_u64 (&r, 16, 5);
      for (size_t k = at; k < at + 48; k += 8)
        rec_u64 (&r, k, 0x400000 + k);
      rec_u64 (&r, at + 48, ABI_NONE);
      rec_done (&r);
      parse_ok (&a, &r, &s);
      g_assert_cmpuint (s.regs_user_at, ==, at + 48);
      {
        g_autofree char *why = parse_cut (&a, &r, at + 47, &s);
        g_assert_cmpstr (why, ==, "BRANCH_STACK field runs past the end of "
                         "the record");
      }
    }
}

static void
test_regs_user (void)
{
  /* x86_64 as perf --call-graph=dwarf records it: mask 0xff0fff, 20
     registers (formats.md); abi 0 (a kernel thread): no registers.  */
  StPerfAttr a = attr_of (ST_PERF_SAMPLE_REGS_USER
                          | ST_PERF_SAMPLE_STACK_USER);
  StPerfSample s;
  Rec r;

  a.sample_regs_user = 0xff0fff;
  rec_begin (&r);
  rec_u64 (&r, 8, ABI_64);
  for (int i = 0; i < 20; i++)
    rec_u64 (&r, 16 + 8 * i, 0x100 + i);
  rec_u64 (&r, 176, 0);                  /* STACK_USER size 0 */
  rec_done (&r);
  parse_ok (&a, &r, &s);
  g_assert_cmpuint (s.n_regs, ==, 20);
  g_assert_true (s.regs == r.b + 16);
  g_assert_cmpuint (s.regs_user_at, ==, 8);
  /* size 0: no data and no dyn_size.  */
  g_assert_cmpuint (s.stack_size, ==, 0);
  g_assert_cmpuint (s.dyn_size, ==, 0);
  g_assert_cmpuint (s.stack_user_end, ==, 184);

  rec_begin (&r);
  rec_u64 (&r, 8, ABI_NONE);
  rec_u64 (&r, 16, 0);
  rec_done (&r);
  parse_ok (&a, &r, &s);
  g_assert_cmpuint (s.abi, ==, 0);
  g_assert_cmpuint (s.n_regs, ==, 0);
  g_assert_null (s.regs);
  g_assert_cmpuint (s.stack_user_end, ==, 24);

  /* abi 64 and the registers cut: REGS_USER runs past.  */
  rec_begin (&r);
  rec_u64 (&r, 8, ABI_64);
  for (int i = 0; i < 19; i++)
    rec_u64 (&r, 16 + 8 * i, 0x100 + i);
  rec_done (&r);
  {
    g_autofree char *why = parse_cut (&a, &r, r.size, &s);
    g_assert_cmpstr (why, ==, "REGS_USER field runs past the end of the "
                     "record");
  }
}

static void
test_stack_user (void)
{
  /* size, size bytes, dyn_size (only when size != 0).  */
  static const uint64_t bad_sizes[] = { 24, 17, G_MAXUINT64, 1ull << 63 };
  StPerfAttr a = attr_of (ST_PERF_SAMPLE_STACK_USER);
  StPerfSample s;
  Rec r;

  rec_begin (&r);
  rec_u64 (&r, 8, 16);
  rec_u64 (&r, 16, 1);
  rec_u64 (&r, 24, 2);
  rec_u64 (&r, 32, 9);
  rec_done (&r);
  parse_ok (&a, &r, &s);
  g_assert_cmpuint (s.stack_size, ==, 16);
  g_assert_true (s.stack == r.b + 16);
  g_assert_cmpuint (s.dyn_size, ==, 9);
  g_assert_cmpuint (s.stack_user_end, ==, 40);
  /* Without dyn_size: cut.  */
  {
    g_autofree char *why = parse_cut (&a, &r, 32, &s);
    g_assert_cmpstr (why, ==, "STACK_USER field runs past the end of the "
                     "record");
  }
  for (guint i = 0; i < G_N_ELEMENTS (bad_sizes); i++)
    {
      g_autofree char *why = NULL;

      rec_u64 (&r, 8, bad_sizes[i]);
      why = parse_cut (&a, &r, r.size, &s);
      g_assert_cmpstr (why, ==, "STACK_USER field runs past the end of the "
                       "record");
    }
}

static void
test_no_fields (void)
{
  /* sample_type 0 and the fields stacktrace does not read: empty ranges
     right after the header.  */
  static const uint64_t types[] = {
    0, ST_PERF_SAMPLE_WEIGHT | ST_PERF_SAMPLE_DATA_SRC
       | ST_PERF_SAMPLE_TRANSACTION | ST_PERF_SAMPLE_PHYS_ADDR
  };

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    {
      StPerfAttr a = attr_of (types[i]);
      StPerfSample s;
      Rec r;

      rec_begin (&r);
      rec_done (&r);
      parse_ok (&a, &r, &s);
      g_assert_cmpuint (s.callchain_at, ==, 8);
      g_assert_cmpuint (s.callchain_end, ==, 8);
      g_assert_cmpuint (s.regs_user_at, ==, 8);
      g_assert_cmpuint (s.stack_user_end, ==, 8);
      g_assert_null (s.ips);
      g_assert_null (s.stack);
    }
}

/* --- locating (st_perf_sample_locate) ----------------------------------- */

/* The first SIZE bytes of R, from an exact-size copy: st_perf_sample_locate
   says what st_perf_sample_parse says.  */
static void
assert_locate_agrees (const StPerfAttr *a, const Rec *r, size_t size)
{
  uint8_t *copy = g_memdup2 (r->b, MAX (size, 1));
  StPerfSampleSpans spans;
  StPerfSample s;
  g_autofree char *want = st_perf_sample_parse (a, copy, size, &s);
  g_autofree char *why = st_perf_sample_locate (a, copy, size, &spans);

  g_free (copy);
  g_assert_cmpstr (why, ==, want);
  if (want != NULL)
    return;
  g_assert_cmpuint (spans.callchain_at, ==, s.callchain_at);
  g_assert_cmpuint (spans.callchain_end, ==, s.callchain_end);
  g_assert_cmpuint (spans.regs_user_at, ==, s.regs_user_at);
  g_assert_cmpuint (spans.stack_user_end, ==, s.stack_user_end);
}

static void
assert_locate_agrees_cut (const StPerfAttr *a, const Rec *r)
{
  for (size_t size = 0; size <= r->size; size++)
    assert_locate_agrees (a, r, size);
}

/* A record of sample_type ST: 8-byte fields before CALLCHAIN, two
   callchain entries, ABI registers (two: mask 3), STACK bytes of stack
   and a dyn_size, then WEIGHT.  */
static void
locate_record (Rec *r, uint64_t st, uint64_t abi, uint64_t stack)
{
  size_t at = 8;

  rec_begin (r);
  for (int bit = 0; bit < 64; bit++)
    if ((st & (1ull << bit))
        && ((1ull << bit) & (ST_PERF_SAMPLE_IDENTIFIER | ST_PERF_SAMPLE_IP
                             | ST_PERF_SAMPLE_TID | ST_PERF_SAMPLE_TIME
                             | ST_PERF_SAMPLE_ADDR | ST_PERF_SAMPLE_ID
                             | ST_PERF_SAMPLE_STREAM_ID | ST_PERF_SAMPLE_CPU
                             | ST_PERF_SAMPLE_PERIOD)))
      {
        rec_u64 (r, at, 0x1000 + (uint64_t) bit);
        at += 8;
      }
  if (st & ST_PERF_SAMPLE_CALLCHAIN)
    {
      rec_u64 (r, at, 2);
      rec_u64 (r, at + 8, CONTEXT_KERNEL);
      rec_u64 (r, at + 16, 0xffffffff81000010ull);
      at += 24;
    }
  if (st & ST_PERF_SAMPLE_REGS_USER)
    {
      rec_u64 (r, at, abi);
      at += 8;
      if (abi != ABI_NONE)
        {
          rec_u64 (r, at, 0xa0);
          rec_u64 (r, at + 8, 0xb0);
          at += 16;
        }
    }
  if (st & ST_PERF_SAMPLE_STACK_USER)
    {
      rec_u64 (r, at, stack);
      at += 8;
      for (uint64_t i = 0; i < stack; i += 8)
        rec_u64 (r, at + i, 0x1111111111111111ull);
      at += stack;
      if (stack != 0)
        {
          rec_u64 (r, at, stack - 4);
          at += 8;
        }
    }
  if (st & ST_PERF_SAMPLE_WEIGHT)
    rec_u64 (r, at, 55);
  rec_done (r);
}

static void
test_locate_quick (void)
{
  /* The field sets located without the parser: fixed fields before
     CALLCHAIN (none, some, all), with or without CALLCHAIN, REGS_USER
     (ABI 0 or registers), STACK_USER (empty or not), and a field
     after them.  */
  static const uint64_t before[] = {
    0, ST_PERF_SAMPLE_IP | ST_PERF_SAMPLE_TID,
    ST_PERF_SAMPLE_IDENTIFIER | ST_PERF_SAMPLE_IP | ST_PERF_SAMPLE_TID
    | ST_PERF_SAMPLE_TIME | ST_PERF_SAMPLE_ADDR | ST_PERF_SAMPLE_ID
    | ST_PERF_SAMPLE_STREAM_ID | ST_PERF_SAMPLE_CPU | ST_PERF_SAMPLE_PERIOD
  };
  static const uint64_t after[] = {
    ST_PERF_SAMPLE_CALLCHAIN, ST_PERF_SAMPLE_REGS_USER,
    ST_PERF_SAMPLE_STACK_USER, ST_PERF_SAMPLE_WEIGHT
  };

  for (guint b = 0; b < G_N_ELEMENTS (before); b++)
    for (guint set = 0; set < 1u << G_N_ELEMENTS (after); set++)
      for (int abi = 0; abi < 2; abi++)
        for (int stack = 0; stack < 2; stack++)
          {
            StPerfAttr a = attr_of (before[b]);
            Rec r;

            for (guint i = 0; i < G_N_ELEMENTS (after); i++)
              if (set & (1u << i))
                a.sample_type |= after[i];
            a.sample_regs_user = 0x3;
            locate_record (&r, a.sample_type, abi ? ABI_64 : ABI_NONE,
                           stack ? 24 : 0);
            assert_locate_agrees_cut (&a, &r);
          }
}

static void
test_locate_parsed (void)
{
  /* With READ, RAW or BRANCH_STACK: the parser's offsets and errors.  */
  StPerfAttr a = attr_of (EVERY_FIELD);
  Rec r;

  a.sample_regs_user = 0x3;
  every_field_record (&r);
  assert_locate_agrees_cut (&a, &r);
}

static void
test_locate_overflow (void)
{
  /* Counts whose byte sizes overflow, or run past the end.  */
  static const uint64_t counts[] = { 3, G_MAXUINT64 / 8 + 1, G_MAXUINT64,
                                     1ull << 61, 1ull << 63, 17 };
  StPerfAttr a = attr_of (ST_PERF_SAMPLE_CALLCHAIN | ST_PERF_SAMPLE_REGS_USER
                          | ST_PERF_SAMPLE_STACK_USER);

  a.sample_regs_user = 0x3;
  for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
    {
      Rec r;

      /* The callchain's nr, then the stack's size.  */
      locate_record (&r, a.sample_type, ABI_64, 16);
      rec_u64 (&r, 8, counts[i]);
      assert_locate_agrees (&a, &r, r.size);
      locate_record (&r, a.sample_type, ABI_64, 16);
      rec_u64 (&r, 8 + 24 + 24, counts[i]);
      assert_locate_agrees (&a, &r, r.size);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/perf-sample/every-field", test_every_field);
  g_test_add_func ("/perf-sample/every-cut", test_every_cut);
  g_test_add_func ("/perf-sample/identifier-first", test_identifier_first);
  g_test_add_func ("/perf-sample/fields-before-callchain",
                   test_fields_before_callchain);
  g_test_add_func ("/perf-sample/read-formats", test_read_formats);
  g_test_add_func ("/perf-sample/read-group-overflow",
                   test_read_group_overflow);
  g_test_add_func ("/perf-sample/callchain-overflow",
                   test_callchain_overflow);
  g_test_add_func ("/perf-sample/raw-padding", test_raw_padding);
  g_test_add_func ("/perf-sample/branch-stack", test_branch_stack);
  g_test_add_func ("/perf-sample/regs-user", test_regs_user);
  g_test_add_func ("/perf-sample/stack-user", test_stack_user);
  g_test_add_func ("/perf-sample/no-fields", test_no_fields);
  g_test_add_func ("/perf-sample/locate-quick", test_locate_quick);
  g_test_add_func ("/perf-sample/locate-parsed", test_locate_parsed);
  g_test_add_func ("/perf-sample/locate-overflow", test_locate_overflow);
  return g_test_run ();
}
