/* perf_event_attr patching for unwound callchains (format/perf-attr.c).

   Attributes of every size perf has written (perf_event.h's
   PERF_ATTR_SIZE_VER0..VER8: 64, 72, 80, 96, 104, 112, 120, 128, 136;
   formats.md: perf 6.1 writes 128, newer perf 136 and may grow it: 144
   here) laid out by hand with the field offsets of perf_event.h
   (sample_type 24, read_format 32, the flag word 40 with
   exclude_callchain_user bit 22 and sample_id_all bit 18,
   sample_regs_user 80, sample_stack_user 88, clockid 92, config3 128):
   what the patch changes (formats.md, "Writing callchains for perf
   report") and that it changes nothing else, nor any field the attr's
   own size does not cover.  The EVENT_DESC feature (u32 nr, u32
   attr_size, then per event the attr, u32 nr_ids, a u32-length string,
   u64 ids[nr_ids]), well-formed and cut anywhere.  */
#include "config.h"

#include <string.h>

#include <glib.h>

#include "format/perf-attr.h"
#include "format/perf-types.h"

/* perf record --call-graph=dwarf (perf 6.1, formats.md): IP TID TIME ADDR
   CALLCHAIN PERIOD REGS_USER STACK_USER DATA_SRC = bits 0 1 2 3 5 8 12
   13 15.  */
#define DWARF_SAMPLE_TYPE   0xb12full
#define UNWOUND_SAMPLE_TYPE 0x812full   /* without bits 12 and 13 */

#define FLAG_SAMPLE_ID_ALL          (1ull << 18)
#define FLAG_EXCLUDE_CALLCHAIN_USER (1ull << 22)
#define DWARF_FLAGS (1ull << 0 | 1ull << 1 | 1ull << 8 | 1ull << 9 \
                     | FLAG_SAMPLE_ID_ALL | FLAG_EXCLUDE_CALLCHAIN_USER \
                     | 1ull << 23 | 1ull << 24)

static void
set_u32 (uint8_t *b, size_t at, uint32_t v)
{
  memcpy (b + at, &v, 4);
}

static void
set_u64 (uint8_t *b, size_t at, uint64_t v)
{
  memcpy (b + at, &v, 8);
}

static uint64_t
get_u64 (const uint8_t *b, size_t at)
{
  uint64_t v;

  memcpy (&v, b + at, 8);
  return v;
}

/* LEN bytes: an attr whose size field says SIZE, of a dwarf recording,
   every byte the fields below do not set filled with 0xa0 + its offset
   (so that a stray write shows), the fields past LEN left out.  */
static uint8_t *
dwarf_attr (size_t len, uint32_t size)
{
  uint8_t full[256];
  uint8_t *attr;

  for (size_t i = 0; i < sizeof full; i++)
    full[i] = (uint8_t) (0xa0 + i);
  set_u32 (full, 0, 1);                           /* type SOFTWARE */
  set_u32 (full, 4, size);
  set_u64 (full, 8, 0);                           /* config CPU_CLOCK */
  set_u64 (full, 16, 4000);                       /* sample_freq */
  set_u64 (full, 24, DWARF_SAMPLE_TYPE);
  set_u64 (full, 32, ST_PERF_FORMAT_ID);          /* read_format */
  set_u64 (full, 40, DWARF_FLAGS);
  set_u64 (full, 80, 0xff0fffull);                /* sample_regs_user */
  set_u32 (full, 88, 8192);                       /* sample_stack_user */
  set_u32 (full, 92, 1);                          /* clockid MONOTONIC */
  attr = g_malloc (MAX (len, 1));
  memcpy (attr, full, len);
  return attr;
}

/* What the patch must make of ORIG (LEN bytes, VALID of them the attr's):
   the same but for the four fields, each only if covered.  */
static uint8_t *
expected_patch (const uint8_t *orig, size_t len, size_t valid)
{
  uint8_t *want = g_memdup2 (orig, len);

  set_u64 (want, 24, UNWOUND_SAMPLE_TYPE);
  set_u64 (want, 40, DWARF_FLAGS & ~FLAG_EXCLUDE_CALLCHAIN_USER);
  if (valid >= 88)
    set_u64 (want, 80, 0);
  if (valid >= 92)
    set_u32 (want, 88, 0);
  return want;
}

static void
test_sample_types (void)
{
  g_assert_true (st_perf_attr_has_raw_stacks (DWARF_SAMPLE_TYPE));
  g_assert_true (st_perf_attr_has_raw_stacks (ST_PERF_SAMPLE_REGS_USER
                                              | ST_PERF_SAMPLE_STACK_USER));
  /* One of the two is nothing to unwind.  */
  g_assert_false (st_perf_attr_has_raw_stacks (DWARF_SAMPLE_TYPE
                                               & ~ST_PERF_SAMPLE_STACK_USER));
  g_assert_false (st_perf_attr_has_raw_stacks (DWARF_SAMPLE_TYPE
                                               & ~ST_PERF_SAMPLE_REGS_USER));
  g_assert_false (st_perf_attr_has_raw_stacks (0));

  g_assert_cmphex (st_perf_attr_unwound_sample_type (DWARF_SAMPLE_TYPE), ==,
                   UNWOUND_SAMPLE_TYPE);
  /* CALLCHAIN added when the recording had none (--user-regs without
     -g).  */
  g_assert_cmphex (st_perf_attr_unwound_sample_type (0x3007), ==, 0x27);
}

static void
test_patch_each_version (void)
{
  /* The versions, a future larger one, and sizes that cut the raw-stack
     fields.  */
  static const uint32_t sizes[] = { 64, 72, 80, 96, 104, 112, 120, 128, 136,
                                    144, 88, 92 };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      size_t len = sizes[i];
      uint8_t *attr = dwarf_attr (len, sizes[i]);
      uint8_t *want = expected_patch (attr, len, len);

      g_test_message ("attr of %zu bytes", len);
      g_assert_true (st_perf_attr_patch_unwound (attr, len));
      g_assert_cmpmem (attr, len, want, len);
      /* sample_id_all (the trailer's layout) and read_format (the READ
         field's) stay: every other record keeps its layout.  */
      g_assert_true (get_u64 (attr, 40) & FLAG_SAMPLE_ID_ALL);
      g_assert_cmphex (get_u64 (attr, 32), ==, ST_PERF_FORMAT_ID);
      /* Patched again: nothing to do, nothing changed.  */
      g_assert_false (st_perf_attr_patch_unwound (attr, len));
      g_assert_cmpmem (attr, len, want, len);
      g_free (want);
      g_free (attr);
    }
}

static void
test_patch_own_size (void)
{
  /* The attr's size field, not the bytes it sits in, says which fields
     it has: an 80-byte attr in a 128-byte slot (a file whose attr_size
     is larger) keeps the bytes at 80..91 as they are.  */
  uint8_t *attr = dwarf_attr (128, 80);
  uint8_t *want = expected_patch (attr, 128, 80);

  g_assert_true (st_perf_attr_patch_unwound (attr, 128));
  g_assert_cmpmem (attr, 128, want, 128);
  g_assert_cmphex (get_u64 (attr, 80), ==, 0xff0fffull);
  g_free (want);
  g_free (attr);

  /* Size 0 is PERF_ATTR_SIZE_VER0: 64 bytes.  */
  attr = dwarf_attr (128, 0);
  want = expected_patch (attr, 128, 64);
  g_assert_true (st_perf_attr_patch_unwound (attr, 128));
  g_assert_cmpmem (attr, 128, want, 128);
  g_free (want);
  g_free (attr);

  /* A size field beyond the slot: only the slot is written (ASan checks
     the exact-size buffer).  */
  attr = dwarf_attr (96, 136);
  want = expected_patch (attr, 96, 96);
  g_assert_true (st_perf_attr_patch_unwound (attr, 96));
  g_assert_cmpmem (attr, 96, want, 96);
  g_free (want);
  g_free (attr);
}

static void
test_patch_refused (void)
{
  static const struct
  {
    size_t len;
    uint32_t size;
    uint64_t sample_type;
  } cases[] = {
    { 63, 64, DWARF_SAMPLE_TYPE },      /* shorter than VER0 */
    { 0, 64, DWARF_SAMPLE_TYPE },
    { 128, 32, DWARF_SAMPLE_TYPE },     /* own size below VER0 */
    { 128, 63, DWARF_SAMPLE_TYPE },
    { 128, 128, DWARF_SAMPLE_TYPE & ~ST_PERF_SAMPLE_STACK_USER },
    { 128, 128, ST_PERF_SAMPLE_IP | ST_PERF_SAMPLE_CALLCHAIN },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      size_t len = cases[i].len;
      uint8_t *attr = dwarf_attr (len, cases[i].size);
      uint8_t *orig;

      if (len >= 32)
        set_u64 (attr, 24, cases[i].sample_type);
      orig = g_memdup2 (attr, MAX (len, 1));
      g_assert_false (st_perf_attr_patch_unwound (attr, len));
      g_assert_cmpmem (attr, len, orig, len);
      g_free (orig);
      g_free (attr);
    }
}

/* --- EVENT_DESC ------------------------------------------------------- */

typedef struct
{
  GByteArray *b;
  GArray *attr_at;   /* guint: where each attr starts */
} Desc;

static void
put_bytes (GByteArray *b, const void *p, size_t n)
{
  g_byte_array_append (b, p, (guint) n);
}

static void
put32 (GByteArray *b, uint32_t v)
{
  put_bytes (b, &v, 4);
}

static void
put64 (GByteArray *b, uint64_t v)
{
  put_bytes (b, &v, 8);
}

/* perf's EVENT_DESC of N events with attrs of ATTR_SIZE bytes; event i
   has i + 1 ids and the name "cpu-clock" (perf pads the string to 8 with
   its NUL).  */
static Desc
event_desc (uint32_t n, uint32_t attr_size)
{
  static const char name[16] = "cpu-clock";
  Desc d = { g_byte_array_new (), g_array_new (FALSE, FALSE, sizeof (guint)) };

  put32 (d.b, n);
  put32 (d.b, attr_size);
  for (uint32_t i = 0; i < n; i++)
    {
      uint8_t *attr = dwarf_attr (attr_size, attr_size);
      guint at = d.b->len;

      g_array_append_val (d.attr_at, at);
      put_bytes (d.b, attr, attr_size);
      g_free (attr);
      put32 (d.b, i + 1);
      put32 (d.b, sizeof name);
      put_bytes (d.b, name, sizeof name);
      for (uint32_t k = 0; k <= i; k++)
        put64 (d.b, 100 + 10 * i + k);
    }
  return d;
}

static void
desc_free (Desc *d)
{
  g_byte_array_unref (d->b);
  g_array_unref (d->attr_at);
}

static void
test_event_desc (void)
{
  static const uint32_t sizes[] = { 64, 96, 128, 136 };

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      Desc d = event_desc (3, sizes[s]);
      uint8_t *want = g_memdup2 (d.b->data, d.b->len);

      for (guint i = 0; i < d.attr_at->len; i++)
        {
          guint at = g_array_index (d.attr_at, guint, i);
          uint8_t *patched = expected_patch (d.b->data + at, sizes[s],
                                             sizes[s]);

          memcpy (want + at, patched, sizes[s]);
          g_free (patched);
        }
      g_assert_true (st_perf_event_desc_patch_unwound (d.b->data, d.b->len));
      g_assert_cmpmem (d.b->data, d.b->len, want, d.b->len);
      g_free (want);
      desc_free (&d);
    }
}

static void
test_event_desc_malformed (void)
{
  /* Cut anywhere, even right after the first event: refused, and not
     one byte changed, not even of the events before the cut.  */
  Desc d = event_desc (2, 128);
  guint len = d.b->len;

  for (guint cut = 0; cut < len; cut++)
    {
      uint8_t *sec = g_memdup2 (d.b->data, MAX (cut, 1));

      g_assert_false (st_perf_event_desc_patch_unwound (sec, cut));
      g_assert_cmpmem (sec, cut, d.b->data, cut);
      g_free (sec);
    }

  /* Counts that would overflow: ids, the string length, the events.  */
  {
    guint ids_at = g_array_index (d.attr_at, guint, 0) + 128;
    uint8_t *sec = g_memdup2 (d.b->data, len);

    set_u32 (sec, ids_at, G_MAXUINT32);
    g_assert_false (st_perf_event_desc_patch_unwound (sec, len));
    set_u32 (sec, ids_at, 1);
    set_u32 (sec, ids_at + 4, G_MAXUINT32);
    g_assert_false (st_perf_event_desc_patch_unwound (sec, len));
    set_u32 (sec, ids_at + 4, 16);
    set_u32 (sec, 0, 3);
    g_assert_false (st_perf_event_desc_patch_unwound (sec, len));
    g_assert_cmpmem (sec + 8, 128, d.b->data + 8, 128);
    /* attr_size below VER0.  */
    set_u32 (sec, 0, 2);
    set_u32 (sec, 4, 63);
    g_assert_false (st_perf_event_desc_patch_unwound (sec, len));
    g_free (sec);
  }

  /* No events: nothing to do, and well-formed.  */
  {
    uint8_t empty[8] = { 0, 0, 0, 0, 128, 0, 0, 0 };

    g_assert_true (st_perf_event_desc_patch_unwound (empty, 8));
  }
  desc_free (&d);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/perf-attr/sample-types", test_sample_types);
  g_test_add_func ("/perf-attr/patch-each-version", test_patch_each_version);
  g_test_add_func ("/perf-attr/patch-own-size", test_patch_own_size);
  g_test_add_func ("/perf-attr/patch-refused", test_patch_refused);
  g_test_add_func ("/perf-attr/event-desc", test_event_desc);
  g_test_add_func ("/perf-attr/event-desc-malformed",
                   test_event_desc_malformed);
  return g_test_run ();
}
