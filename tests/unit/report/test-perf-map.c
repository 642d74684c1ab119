/* The perf map parser on lines written by hand as V8 and perf-map-agent
   write them, and on broken ones: each bad line reported with the file
   and its line number and skipped, the good lines around it kept; a
   line cut by the end left for later; random bytes never crash.  Also
   the table the names go to: the latest range wins where they overlap.  */
#include "config.h"

#include <glib.h>
#include <string.h>

#include "report/perf-map.h"

static void
collect (const char *message, void *user)
{
  g_ptr_array_add (user, g_strdup (message));
}

typedef struct
{
  StJitTable *table;
  StPerfMapCounts counts;
  GPtrArray *messages;
  size_t used;
} Parsed;

static void
parse (Parsed *p, const char *text, gboolean at_end)
{
  memset (p, 0, sizeof *p);
  p->table = st_jit_table_new ();
  p->messages = g_ptr_array_new_with_free_func (g_free);
  p->used = st_perf_map_parse (text, strlen (text), at_end,
                               "/tmp/perf-42.map", 1, p->table, &p->counts,
                               collect, p->messages);
}

static void
parsed_clear (Parsed *p)
{
  st_jit_table_free (p->table);
  g_ptr_array_unref (p->messages);
}

static void
test_good (void)
{
  Parsed p;

  parse (&p, "3ef0a4c0 1a0 JS:*sorter /tmp/bench.js:3:16\n"
             "0x7f0010002000 0x40 LazyCompile:~work bench.js:1\r\n"
             "\n"
             "7f0010003000\t20  Interpreter: a name  with  spaces\n", TRUE);
  g_assert_cmpuint (p.counts.lines, ==, 4);
  g_assert_cmpuint (p.counts.named, ==, 3);
  g_assert_cmpuint (p.counts.bad, ==, 0);
  g_assert_cmpuint (p.messages->len, ==, 0);
  g_assert_cmpstr (st_jit_table_lookup (p.table, 0x3ef0a4c0), ==,
                   "JS:*sorter /tmp/bench.js:3:16");
  g_assert_cmpstr (st_jit_table_lookup (p.table, 0x3ef0a4c0 + 0x19f), ==,
                   "JS:*sorter /tmp/bench.js:3:16");
  g_assert_null (st_jit_table_lookup (p.table, 0x3ef0a4c0 + 0x1a0));
  g_assert_null (st_jit_table_lookup (p.table, 0x3ef0a4bf));
  g_assert_cmpstr (st_jit_table_lookup (p.table, 0x7f0010002010), ==,
                   "LazyCompile:~work bench.js:1");
  g_assert_cmpstr (st_jit_table_lookup (p.table, 0x7f001000301f), ==,
                   "Interpreter: a name  with  spaces");
  parsed_clear (&p);
}

static void
test_bad_lines (void)
{
  Parsed p;

  parse (&p, "1000 10 good one\n"
             "zzzz 10 no start\n"
             "2000 name without size\n"
             "3000 10\n"
             "4000 0 empty\n"
             "ffffffffffffff00 1000 wraps\n"
             "11112222333344445 10 seventeen digits\n"
             "5000 10 good two\n", TRUE);
  g_assert_cmpuint (p.counts.lines, ==, 8);
  g_assert_cmpuint (p.counts.named, ==, 2);
  g_assert_cmpuint (p.counts.bad, ==, 6);
  /* The first ST_PERF_MAP_MESSAGES_MAX, each with file and line.  */
  g_assert_cmpuint (p.messages->len, ==, ST_PERF_MAP_MESSAGES_MAX);
  g_assert_cmpstr (p.messages->pdata[0], ==, "/tmp/perf-42.map:2: no "
                   "hexadecimal start address; line skipped");
  g_assert_cmpstr (p.messages->pdata[1], ==, "/tmp/perf-42.map:3: no "
                   "hexadecimal size; line skipped");
  g_assert_cmpstr (p.messages->pdata[2], ==, "/tmp/perf-42.map:4: no "
                   "name after the size; line skipped");
  g_assert_cmpstr (p.messages->pdata[3], ==, "/tmp/perf-42.map:5: size 0; "
                   "line skipped");
  g_assert_cmpstr (p.messages->pdata[4], ==, "/tmp/perf-42.map:6: the range "
                   "wraps around the address space; line skipped");
  g_assert_cmpstr (st_jit_table_lookup (p.table, 0x1000), ==, "good one");
  g_assert_cmpstr (st_jit_table_lookup (p.table, 0x5008), ==, "good two");
  parsed_clear (&p);
}

/* A line still being written is left for the next read, which goes on
   with the right line numbers.  */
static void
test_partial_line (void)
{
  const char *text = "1000 10 one\n2000 10 tw";
  Parsed p;

  parse (&p, text, FALSE);
  g_assert_cmpuint (p.used, ==, strlen ("1000 10 one\n"));
  g_assert_cmpuint (p.counts.lines, ==, 1);
  g_assert_null (st_jit_table_lookup (p.table, 0x2000));
  const char *rest = "2000 10 two\nzzz\n";
  st_perf_map_parse (rest, strlen (rest), FALSE, "/tmp/perf-42.map",
                     p.counts.lines + 1, p.table, &p.counts, collect,
                     p.messages);
  g_assert_cmpstr (st_jit_table_lookup (p.table, 0x2000), ==, "two");
  g_assert_cmpuint (p.messages->len, ==, 1);
  g_assert_cmpstr (p.messages->pdata[0], ==, "/tmp/perf-42.map:3: no "
                   "hexadecimal start address; line skipped");
  parsed_clear (&p);

  /* At the end, the cut line is read as it is.  */
  parse (&p, text, TRUE);
  g_assert_cmpuint (p.used, ==, strlen (text));
  g_assert_cmpstr (st_jit_table_lookup (p.table, 0x2000), ==, "tw");
  parsed_clear (&p);
}

/* A name from the file is printed escaped in messages.  */
static void
test_escaped_file_name (void)
{
  StJitTable *t = st_jit_table_new ();
  StPerfMapCounts counts = { 0 };
  g_autoptr (GPtrArray) messages = g_ptr_array_new_with_free_func (g_free);

  st_perf_map_parse ("x\n", 2, TRUE, "/tmp/a\nb", 1, t, &counts, collect,
                     messages);
  g_assert_cmpuint (messages->len, ==, 1);
  g_assert_null (strchr (messages->pdata[0], '\n'));
  st_jit_table_free (t);
}

/* Code freed and its addresses reused: the line written last names
   them; ranges nested or overlapping are each found.  */
static void
test_overlaps (void)
{
  Parsed p;

  parse (&p, "1000 100 old\n"
             "1040 10 inner\n"
             "1000 100 new\n"
             "10f0 100 straddles\n", TRUE);
  g_assert_cmpstr (st_jit_table_lookup (p.table, 0x1000), ==, "new");
  g_assert_cmpstr (st_jit_table_lookup (p.table, 0x1045), ==, "new");
  g_assert_cmpstr (st_jit_table_lookup (p.table, 0x10f0), ==, "straddles");
  g_assert_cmpstr (st_jit_table_lookup (p.table, 0x11ef), ==, "straddles");
  g_assert_null (st_jit_table_lookup (p.table, 0x11f0));
  parsed_clear (&p);
}

/* Random bytes and random lines of digits and blanks: no crash, every
   line counted, every bad line counted.  */
static void
test_random (void)
{
  GRand *rand = g_rand_new_with_seed (23);
  const char alphabet[] = "0123456789abcdefxX \t\n\r\0zG-";

  for (guint round = 0; round < 2000; round++)
    {
      size_t len = (size_t) g_rand_int_range (rand, 0, 300);
      char *text = g_malloc (len + 1);
      for (size_t i = 0; i < len; i++)
        text[i] = round % 2
                  ? (char) g_rand_int_range (rand, 0, 256)
                  : alphabet[g_rand_int_range (rand, 0,
                                               sizeof alphabet - 1)];
      StJitTable *t = st_jit_table_new ();
      StPerfMapCounts counts = { 0 };
      size_t used = st_perf_map_parse (text, len, round % 4 < 2, "r", 1, t,
                                       &counts, NULL, NULL);
      g_assert_cmpuint (used, <=, len);
      g_assert_cmpuint (counts.named + counts.bad, <=, counts.lines);
      g_assert_cmpuint (st_jit_table_size (t), ==, counts.named);
      for (guint k = 0; k < 20; k++)
        st_jit_table_lookup (t, g_rand_int (rand));
      st_jit_table_free (t);
      g_free (text);
    }
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/perf-map/good", test_good);
  g_test_add_func ("/perf-map/bad-lines", test_bad_lines);
  g_test_add_func ("/perf-map/partial-line", test_partial_line);
  g_test_add_func ("/perf-map/escaped-file-name", test_escaped_file_name);
  g_test_add_func ("/perf-map/overlaps", test_overlaps);
  g_test_add_func ("/perf-map/random", test_random);
  return g_test_run ();
}
