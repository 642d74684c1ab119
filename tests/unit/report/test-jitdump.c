/* The jitdump reader on files laid out by hand from perf's
   jitdump-specification.txt: loads and moves named, records of other
   kinds skipped; every cut of a file (each byte length) and every
   damaged length field either reads the records before it or fails
   with the offset, never reads past the data (ASan watches: the image
   is copied to a buffer of exactly its length).  */
#include "config.h"

#include <glib.h>
#include <string.h>

#include "report/jitdump.h"

static void
put32 (GByteArray *b, uint32_t v)
{
  g_byte_array_append (b, (const guint8 *) &v, 4);
}

static void
put64 (GByteArray *b, uint64_t v)
{
  g_byte_array_append (b, (const guint8 *) &v, 8);
}

static void
header (GByteArray *b)
{
  put32 (b, ST_JITDUMP_MAGIC);
  put32 (b, 1);               /* version */
  put32 (b, 40);              /* total_size */
  put32 (b, 62);              /* EM_X86_64 */
  put32 (b, 0);
  put32 (b, 4242);            /* pid */
  put64 (b, 123456789);       /* timestamp */
  put64 (b, 0);               /* flags */
}

static void
code_load (GByteArray *b, uint64_t addr, uint64_t size, uint64_t index,
           const char *name)
{
  size_t name_len = strlen (name) + 1;

  put32 (b, 0);
  put32 (b, (uint32_t) (16 + 40 + name_len + size));
  put64 (b, 1000);
  put32 (b, 4242);
  put32 (b, 4243);
  put64 (b, addr);            /* vma */
  put64 (b, addr);            /* code_addr */
  put64 (b, size);
  put64 (b, index);
  g_byte_array_append (b, (const guint8 *) name, (guint) name_len);
  for (uint64_t i = 0; i < size; i++)
    g_byte_array_append (b, (const guint8 *) "\xcc", 1);
}

static void
code_move (GByteArray *b, uint64_t from, uint64_t to, uint64_t size,
           uint64_t index)
{
  put32 (b, 1);
  put32 (b, 16 + 48);
  put64 (b, 2000);
  put32 (b, 4242);
  put32 (b, 4243);
  put64 (b, to);
  put64 (b, from);
  put64 (b, to);
  put64 (b, size);
  put64 (b, index);
}

/* A DEBUG_INFO record with no entries: skipped.  */
static void
debug_info (GByteArray *b)
{
  put32 (b, 2);
  put32 (b, 16 + 16);
  put64 (b, 1500);
  put64 (b, 0x1000);          /* code_addr */
  put64 (b, 0);               /* nr_entry */
}

static GByteArray *
sample_file (void)
{
  GByteArray *b = g_byte_array_new ();

  header (b);
  code_load (b, 0x7f0000001000, 0x40, 1, "Interpreter");
  debug_info (b);
  code_load (b, 0x7f0000002000, 0x20, 2, "Ljava/lang/String;hashCode()I");
  code_move (b, 0x7f0000002000, 0x7f0000009000, 0x20, 2);
  return b;
}

typedef struct
{
  StJitTable *table;
  StJitdumpCounts counts;
  size_t offset;
  GError *error;
  gboolean ok;
} Read;

/* Reads LEN bytes of B, copied to a buffer of exactly that size.  */
static void
read_bytes (Read *r, const GByteArray *b, size_t len, gboolean truncated_ok)
{
  guint8 *copy = g_memdup2 (b->data, MAX (len, 1));

  memset (r, 0, sizeof *r);
  r->table = st_jit_table_new ();
  r->ok = st_jitdump_read (copy, len, 0, "jit-4242.dump", truncated_ok,
                           &r->offset, r->table, &r->counts, &r->error);
  g_free (copy);
}

static void
read_clear (Read *r)
{
  st_jit_table_free (r->table);
  g_clear_error (&r->error);
}

static void
test_records (void)
{
  g_autoptr (GByteArray) b = sample_file ();
  Read r;

  read_bytes (&r, b, b->len, FALSE);
  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  g_assert_cmpuint (r.counts.loads, ==, 2);
  g_assert_cmpuint (r.counts.moves, ==, 1);
  g_assert_cmpuint (r.counts.skipped, ==, 1);
  g_assert_cmpuint (r.offset, ==, b->len);
  g_assert_cmpstr (st_jit_table_lookup (r.table, 0x7f0000001000), ==,
                   "Interpreter");
  g_assert_cmpstr (st_jit_table_lookup (r.table, 0x7f000000103f), ==,
                   "Interpreter");
  g_assert_null (st_jit_table_lookup (r.table, 0x7f0000001040));
  g_assert_cmpstr (st_jit_table_lookup (r.table, 0x7f0000009010), ==,
                   "Ljava/lang/String;hashCode()I");
  read_clear (&r);
}

/* Read in two goes, as a file a JIT is still writing: the second read
   takes the records appended, from where the first stopped.  */
static void
test_incremental (void)
{
  g_autoptr (GByteArray) b = g_byte_array_new ();
  StJitTable *t = st_jit_table_new ();
  StJitdumpCounts counts = { 0 };
  size_t offset = 0;
  GError *error = NULL;

  header (b);
  code_load (b, 0x1000, 0x10, 1, "first");
  size_t first_end = b->len;
  code_load (b, 0x2000, 0x10, 2, "second");
  /* The first read sees the second record cut.  */
  g_assert_true (st_jitdump_read (b->data, first_end + 20, 0, "j", TRUE,
                                  &offset, t, &counts, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (offset, ==, first_end);
  g_assert_null (st_jit_table_lookup (t, 0x2000));
  /* The rest, as read from the file at OFFSET.  */
  g_assert_true (st_jitdump_read (b->data + offset, b->len - offset, offset,
                                  "j", TRUE, &offset, t, &counts, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (offset, ==, b->len);
  g_assert_cmpstr (st_jit_table_lookup (t, 0x1000), ==, "first");
  g_assert_cmpstr (st_jit_table_lookup (t, 0x2000), ==, "second");
  st_jit_table_free (t);
}

/* Every length of the file: a cut record is an error naming its offset
   (or, TRUNCATED_OK, the end of what there is); the records before it
   are named.  */
static void
test_every_cut (void)
{
  g_autoptr (GByteArray) b = sample_file ();

  for (size_t len = 0; len <= b->len; len++)
    for (int ok = 0; ok < 2; ok++)
      {
        Read r;
        read_bytes (&r, b, len, ok);
        if (len < 40)
          {
            g_assert_false (r.ok);
            g_assert_nonnull (strstr (r.error->message, "jit-4242.dump: "
                                      "offset 0:"));
          }
        else if (!r.ok)
          {
            g_assert_false (ok);
            g_assert_nonnull (strstr (r.error->message, "offset "));
          }
        g_assert_cmpuint (r.offset, <=, len);
        read_clear (&r);
      }
}

/* Damaged fields: sizes too small, too large, a name without its NUL, a
   code size past the record, a byte-swapped or wrong magic.  */
static void
test_damage (void)
{
  struct
  {
    size_t at;                /* offset of the u32 or u64 to change */
    int width;
    uint64_t value;
    const char *message;
  } cases[] = {
    { 0, 4, 0x4454694A, "jit-4242.dump: offset 0: a jitdump of the other "
      "byte order (not read)" },
    { 0, 4, 0x12345678, "jit-4242.dump: offset 0: not a jitdump file (bad "
      "magic)" },
    { 8, 4, 39, "jit-4242.dump: offset 8: bad header size" },
    { 8, 4, 0xffffffff, "jit-4242.dump: offset 8: bad header size" },
    { 44, 4, 15, "jit-4242.dump: offset 40: a record shorter than its "
      "header" },
    { 44, 4, 0xfffffff0, "jit-4242.dump: offset 40: a record past the end "
      "of the file" },
    { 44, 4, 16 + 40, "jit-4242.dump: offset 40: a CODE_LOAD record too "
      "short for its fields" },
    /* code_size (record offset 40 + 16 + 24) larger than the record.  */
    { 40 + 16 + 24, 8, 0x41, "jit-4242.dump: offset 40: a CODE_LOAD "
      "record shorter than its code" },
    { 40 + 16 + 24, 8, UINT64_MAX, "jit-4242.dump: offset 40: a CODE_LOAD "
      "record shorter than its code" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GByteArray) b = sample_file ();
      if (cases[i].width == 4)
        {
          uint32_t v = (uint32_t) cases[i].value;
          memcpy (b->data + cases[i].at, &v, 4);
        }
      else
        memcpy (b->data + cases[i].at, &cases[i].value, 8);
      Read r;
      read_bytes (&r, b, b->len, FALSE);
      g_assert_false (r.ok);
      g_assert_cmpstr (r.error->message, ==, cases[i].message);
      read_clear (&r);
    }

  /* The name's NUL gone: the name would run into the code bytes and
     the record's end.  */
  g_autoptr (GByteArray) b = g_byte_array_new ();
  header (b);
  code_load (b, 0x1000, 0, 1, "x");
  b->data[b->len - 1] = 'y';
  Read r;
  read_bytes (&r, b, b->len, FALSE);
  g_assert_false (r.ok);
  g_assert_cmpstr (r.error->message, ==, "jit-4242.dump: offset 40: a "
                   "CODE_LOAD record whose name is not terminated");
  read_clear (&r);
}

/* Random bytes after a valid header: no crash, no read past the end.  */
static void
test_random (void)
{
  GRand *rand = g_rand_new_with_seed (5);

  for (guint round = 0; round < 3000; round++)
    {
      g_autoptr (GByteArray) b = g_byte_array_new ();
      header (b);
      guint n = (guint) g_rand_int_range (rand, 0, 200);
      for (guint i = 0; i < n; i++)
        {
          guint8 byte = (guint8) g_rand_int_range (rand, 0, 256);
          /* Small record sizes now and then, so records get read.  */
          if ((i % 16 == 4 || i % 16 == 0) && g_rand_boolean (rand))
            byte = (guint8) g_rand_int_range (rand, 0, 80);
          else if (i % 16 > 4 && i % 16 < 8)
            byte = 0;
          g_byte_array_append (b, &byte, 1);
        }
      Read r;
      read_bytes (&r, b, b->len, g_rand_boolean (rand));
      g_assert_cmpuint (r.offset, <=, b->len);
      read_clear (&r);
    }
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/jitdump/records", test_records);
  g_test_add_func ("/jitdump/incremental", test_incremental);
  g_test_add_func ("/jitdump/every-cut", test_every_cut);
  g_test_add_func ("/jitdump/damage", test_damage);
  g_test_add_func ("/jitdump/random", test_random);
  return g_test_run ();
}
