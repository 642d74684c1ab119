/* Unit tests: Sysprof 48's event attribute, and ring records checked
   against it.  Samples are built field by field in the kernel's order
   (IDENTIFIER, IP, TID, TIME, CALLCHAIN, REGS_USER, STACK_USER), then
   spoiled one way at a time.  */
#include "config.h"

#include <glib.h>
#include <string.h>

#include "format/perf-types.h"
#include "live/sysprof-layout.h"
#include "model/event.h"

#define STACK 64

static void
put64 (GByteArray *b, uint64_t v)
{
  g_byte_array_append (b, (const guint8 *) &v, 8);
}

/* A sample with N_REGS registers after ABI and a STACK_SIZE-byte copy
   of which DYN are valid, EXTRA words after it.  */
static GByteArray *
sample (uint64_t abi, guint n_regs, uint64_t stack_size, uint64_t dyn,
        guint extra)
{
  GByteArray *b = g_byte_array_new ();
  StPerfEventHeader h = { ST_PERF_RECORD_SAMPLE, ST_PERF_MISC_USER, 0 };

  g_byte_array_append (b, (const guint8 *) &h, sizeof h);
  put64 (b, 42);                          /* IDENTIFIER */
  put64 (b, 0x401000);                    /* IP */
  put64 (b, (uint64_t) 7 << 32 | 7);      /* pid, tid */
  put64 (b, 123456789);                   /* TIME */
  put64 (b, 2);                           /* CALLCHAIN */
  put64 (b, ST_CONTEXT_USER);
  put64 (b, 0x401000);
  put64 (b, abi);                         /* REGS_USER */
  for (guint i = 0; i < n_regs; i++)
    put64 (b, i);
  put64 (b, stack_size);                  /* STACK_USER */
  for (uint64_t i = 0; i < stack_size / 8; i++)
    put64 (b, i);
  if (stack_size > 0)
    put64 (b, dyn);
  for (guint i = 0; i < extra; i++)
    put64 (b, 0);
  ((StPerfEventHeader *) b->data)->size = (uint16_t) b->len;
  return b;
}

static char *
misfit (GByteArray *b)
{
  StPerfEventAttr attr;
  StPerfAttr a;
  char *why;

  st_sysprof_layout_attr (&attr, STACK);
  st_sysprof_layout_checked (&a, &attr);
  why = st_sysprof_layout_misfit (&a, b->data, b->len, NULL);
  g_byte_array_free (b, TRUE);
  return why;
}

static void
assert_misfit (GByteArray *b, const char *part)
{
  g_autofree char *why = misfit (b);

  g_assert_nonnull (why);
  g_assert_nonnull (strstr (why, part));
}

static void
test_attr (void)
{
  StPerfEventAttr attr;

  st_sysprof_layout_attr (&attr, 16384);
  g_assert_cmpuint (attr.size, ==, ST_PERF_ATTR_SIZE_VER7);
  g_assert_cmphex (attr.sample_type, ==, 0x13027);
  g_assert_cmphex (attr.sample_regs_user, ==, 0xff01ff);
  g_assert_cmpuint (attr.sample_stack_user, ==, 16384);
  g_assert_true (attr.flags & ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL);
  g_assert_true (attr.flags & ST_PERF_ATTR_FLAG_MMAP2);
}

static void
test_samples (void)
{
  g_assert_null (misfit (sample (2, 17, STACK, STACK, 0)));
  g_assert_null (misfit (sample (2, 17, STACK, 8, 0)));
  /* A 32-bit task, and a kernel thread (no registers, no stack).  */
  g_assert_null (misfit (sample (1, 17, STACK, STACK, 0)));
  g_assert_null (misfit (sample (0, 0, 0, 0, 0)));

  assert_misfit (sample (2, 17, STACK + 8, 8, 0), "more than the 64");
  assert_misfit (sample (2, 17, STACK, STACK + 8, 0), "dyn_size");
  assert_misfit (sample (3, 17, STACK, STACK, 0), "ABI 3");
  assert_misfit (sample (2, 17, STACK, STACK, 1), "after STACK_USER");
  /* Fewer registers than the mask: the stack size is read from a
     register, and the copy runs past the record.  */
  assert_misfit (sample (2, 9, STACK, STACK, 0), "past the end");

  GByteArray *cut = sample (2, 17, STACK, STACK, 0);
  g_byte_array_set_size (cut, 40);
  ((StPerfEventHeader *) cut->data)->size = 40;
  assert_misfit (cut, "CALLCHAIN");
}

/* A sample's stack copy cut to what the kernel filled: the record still
   fits the layout and parses to the same values, with only the filled
   bytes (rounded up to a word) left.  */
static void
test_cut_stack (void)
{
  static const struct
  {
    uint64_t dyn, kept;
  } cases[] = {
    { STACK, STACK }, { 8, 8 }, { 12, 16 }, { 0, 0 }, { STACK - 8, STACK - 8 },
  };
  StPerfEventAttr attr;
  StPerfAttr a;

  st_sysprof_layout_attr (&attr, STACK);
  st_sysprof_layout_checked (&a, &attr);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GByteArray *b = sample (2, 17, STACK, cases[i].dyn, 0);
      g_autofree uint8_t *was = g_memdup2 (b->data, b->len);
      StPerfSample before, after;
      char *why = st_sysprof_layout_misfit (&a, b->data, b->len, &before);
      size_t len;

      g_assert_null (why);
      len = st_sysprof_layout_cut_stack (b->data, b->len, &before);
      g_assert_cmpuint (len, ==, b->len - (STACK - cases[i].kept)
                                  - (cases[i].kept == 0 ? 8 : 0));
      g_assert_cmpuint (((StPerfEventHeader *) b->data)->size, ==, len);
      why = st_sysprof_layout_misfit (&a, b->data, len, &after);
      g_assert_null (why);
      g_assert_cmpuint (after.stack_size, ==, cases[i].kept);
      g_assert_cmpuint (after.dyn_size, ==, cases[i].kept ? cases[i].dyn : 0);
      g_assert_cmpuint (after.stack_user_end, ==, len);
      g_assert_cmpuint (after.time, ==, before.time);
      g_assert_cmpuint (after.nr, ==, before.nr);
      g_assert_cmpmem (after.regs, 17 * 8, was + (before.regs - b->data),
                       17 * 8);
      g_assert_cmpmem (after.stack, cases[i].dyn,
                       was + (before.stack - b->data), cases[i].dyn);
      g_byte_array_free (b, TRUE);
    }
}

/* A sample read in parts: where its stack copy begins, from its first
   bytes; the copy ended after its filled part gives the record
   st_sysprof_layout_cut_stack gives.  Records that do not end with a
   stack copy of the layout are left to be read whole.  */
static void
test_stack_at (void)
{
  StPerfEventAttr attr;
  StPerfAttr a;
  size_t at;

  st_sysprof_layout_attr (&attr, STACK);
  st_sysprof_layout_checked (&a, &attr);
  for (uint64_t dyn = 0; dyn <= STACK; dyn += 12)
    {
      GByteArray *b = sample (2, 17, STACK, dyn, 0);
      g_autofree uint8_t *cut = g_memdup2 (b->data, b->len);
      StPerfSample s;
      size_t len, whole;

      g_assert_null (st_sysprof_layout_misfit (&a, b->data, b->len, &s));
      /* The prefix ends with the stack size word, or goes on.  */
      g_assert_true (st_sysprof_layout_stack_at (&a, b->data,
                                                 s.stack - b->data, b->len,
                                                 &at));
      g_assert_cmpuint (at, ==, s.stack - b->data);
      g_assert_false (st_sysprof_layout_stack_at (&a, b->data,
                                                  s.stack - b->data - 1,
                                                  b->len, &at));
      g_assert_true (st_sysprof_layout_stack_at (&a, b->data, b->len,
                                                 b->len, &at));
      len = st_sysprof_layout_end_stack (cut, at, MIN (dyn, STACK));
      whole = st_sysprof_layout_cut_stack (b->data, b->len, &s);
      if (whole < b->len)
        {
          g_assert_cmpuint (len, ==, whole);
          g_assert_cmpmem (cut, len, b->data, whole);
        }
      g_byte_array_free (b, TRUE);
    }

  GByteArray *extra = sample (2, 17, STACK, 8, 1);
  g_assert_false (st_sysprof_layout_stack_at (&a, extra->data, extra->len,
                                              extra->len, &at));
  g_byte_array_free (extra, TRUE);
  GByteArray *big = sample (2, 17, STACK + 8, 8, 0);
  g_assert_false (st_sysprof_layout_stack_at (&a, big->data, big->len,
                                              big->len, &at));
  g_byte_array_free (big, TRUE);
  GByteArray *none = sample (0, 0, 0, 0, 0);
  g_assert_false (st_sysprof_layout_stack_at (&a, none->data, none->len,
                                              none->len, &at));
  g_byte_array_free (none, TRUE);
  /* A call chain count no record could hold.  */
  GByteArray *chain = sample (2, 17, STACK, 8, 0);
  uint64_t huge = G_MAXUINT64 / 4;
  memcpy (chain->data + 40, &huge, 8);
  g_assert_false (st_sysprof_layout_stack_at (&a, chain->data, chain->len,
                                              chain->len, &at));
  g_byte_array_free (chain, TRUE);
}

static void
test_other_records (void)
{
  GByteArray *b = g_byte_array_new ();
  StPerfEventHeader h = { ST_PERF_RECORD_MMAP2, 0, 0 };

  g_byte_array_append (b, (const guint8 *) &h, sizeof h);
  g_byte_array_set_size (b, sizeof (StPerfMmap2) + 8 + 16);
  ((StPerfEventHeader *) b->data)->size = (uint16_t) b->len;
  assert_misfit (b, "too short for its fields and sample_id (104)");

  GByteArray *fits = g_byte_array_new ();
  g_byte_array_append (fits, (const guint8 *) &h, sizeof h);
  g_byte_array_set_size (fits, sizeof (StPerfMmap2) + 8 + 24);
  g_assert_null (misfit (fits));

  /* A type the layout says nothing of: left to the reader.  */
  GByteArray *other = g_byte_array_new ();
  StPerfEventHeader t = { ST_PERF_RECORD_SWITCH, 0, 8 };
  g_byte_array_append (other, (const guint8 *) &t, sizeof t);
  g_assert_null (misfit (other));

  GByteArray *tiny = g_byte_array_new ();
  g_byte_array_set_size (tiny, 4);
  assert_misfit (tiny, "header");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sysprof-layout/attr", test_attr);
  g_test_add_func ("/sysprof-layout/samples", test_samples);
  g_test_add_func ("/sysprof-layout/cut-stack", test_cut_stack);
  g_test_add_func ("/sysprof-layout/stack-at", test_stack_at);
  g_test_add_func ("/sysprof-layout/other-records", test_other_records);
  return g_test_run ();
}
