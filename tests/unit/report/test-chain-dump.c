/* The --chains line of a sample (report/chain-dump.c).

   The format of doc/FORMATS: PID, TID, TIME, the addresses in hex
   separated by commas, the names separated by semicolons, tab-separated,
   one line.  Known answers: a test program (deep-recursion, built at
   check time) mapped into a made-up process; its functions' addresses
   from binutils' nm, so each address inside a function must be named
   by it; an address in the program with no symbol as
   [BASENAME+0xVADDR]; an address in no module as [unknown].  Also the
   edges: no address at all, negative pid and time, the 256 addresses a
   chain may have, no Dwfl.  */
#include "config.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "mapped-program.h"
#include "report/chain-dump.h"

#ifndef ST_PROGS_DIR
#define ST_PROGS_DIR "progs"
#endif

static StEvent
event (int32_t pid, int32_t tid, int64_t time)
{
  StEvent ev = { .kind = ST_EVENT_STACK_USER, .pid = pid, .tid = tid,
                 .time = time };
  return ev;
}

static void
test_named (void)
{
  g_autofree char *path = g_build_filename (ST_PROGS_DIR, "deep-recursion",
                                            NULL);
  MappedProgram mp;

  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("test program not built");
      return;
    }
  uint64_t leaf = nm_symbol (path, "st_leaf_work");
  uint64_t recurse = nm_symbol (path, "st_recurse");
  uint64_t main_fn = nm_symbol (path, "main");
  if (leaf == 0 || recurse == 0 || main_fn == 0)
    {
      g_test_skip ("no nm, or symbols missing");
      return;
    }
  g_assert_true (mapped_program_open (&mp, path, 4321));
  Dwfl *dwfl = mapped_program_dwfl (&mp);
  g_assert_nonnull (dwfl);
  StSymbolizer *s = st_symbolizer_new ();

  /* Inside functions, at their first byte, and outside every module.  */
  const uint64_t ips[] = {
    mp.base + leaf + 4, mp.base + recurse + 1, mp.base + recurse,
    mp.base + main_fn + 2, 0x1000,
  };
  StEvent ev = event (4321, 4322, 123456789);
  g_autofree char *line = st_chain_dump_line (s, dwfl, &ev, ips,
                                              G_N_ELEMENTS (ips));
  g_autofree char *expected = g_strdup_printf (
    "4321\t4322\t123456789\t0x%" G_GINT64_MODIFIER "x,0x%"
    G_GINT64_MODIFIER "x,0x%" G_GINT64_MODIFIER "x,0x%" G_GINT64_MODIFIER
    "x,0x1000\tst_leaf_work;st_recurse;st_recurse;main;[unknown]\n",
    (guint64) ips[0], (guint64) ips[1], (guint64) ips[2], (guint64) ips[3]);
  g_assert_cmpstr (line, ==, expected);

  /* An address in the module no symbol covers: the module's name and
     the ELF address (the base taken off).  The file's first page (the
     ELF header) is mapped and part of the module.  */
  const uint64_t header[] = { mp.base + 0x10 };
  g_autofree char *bare = st_chain_dump_line (s, dwfl, &ev, header, 1);
  g_autofree char *bare_expected =
    g_strdup_printf ("4321\t4322\t123456789\t0x%" G_GINT64_MODIFIER "x\t"
                     "[deep-recursion+0x10]\n", (guint64) header[0]);
  g_assert_cmpstr (bare, ==, bare_expected);
  st_symbolizer_free (s);
  mapped_program_close (&mp);
}

/* Names that would split the line, its fields or its symbols (JIT
   names from a perf map here: a JVM's hold ';'): escaped.  */
static void
test_escaped_names (void)
{
  g_autofree char *dir = g_dir_make_tmp ("st-chain-dump-XXXXXX", NULL);
  g_autofree char *map = g_build_filename (dir, "perf-9.map", NULL);
  g_assert_true (g_file_set_contents (map, "1000 10 Ljava/lang/String;"
                                      "hashCode()I\n2000 10 a\tb\\c\n",
                                      -1, NULL));
  StJitNames *jit = st_jit_names_new (NULL, dir, NULL, NULL);
  StSymbolizer *s = st_symbolizer_new ();
  st_symbolizer_set_jit_names (s, jit);
  st_symbolizer_set_process (s, 9, NULL);
  const uint64_t ips[] = { 0x1000, 0x2000, 0x3000 };
  StEvent ev = event (9, 9, 1);

  g_autofree char *line = st_chain_dump_line (s, NULL, &ev, ips, 3);
  g_assert_cmpstr (line, ==, "9\t9\t1\t0x1000,0x2000,0x3000\t"
                   "Ljava/lang/String\\x3bhashCode()I;a\\tb\\\\c;"
                   "[unknown]\n");
  g_auto (GStrv) fields = g_strsplit (line, "\t", -1);
  g_assert_cmpuint (g_strv_length (fields), ==, 5);
  st_symbolizer_free (s);
  st_jit_names_free (jit);
  g_unlink (map);
  g_rmdir (dir);
}

static void
test_edges (void)
{
  StSymbolizer *s = st_symbolizer_new ();

  /* No address: the fields are there, empty.  */
  StEvent ev = event (-1, 0, -5);
  g_autofree char *empty = st_chain_dump_line (s, NULL, &ev, NULL, 0);
  g_assert_cmpstr (empty, ==, "-1\t0\t-5\t\t\n");

  /* No Dwfl: every name unknown; the largest addresses in full.  */
  const uint64_t ips[] = { UINT64_MAX, 0 };
  ev = event (G_MAXINT32, G_MININT32, G_MAXINT64);
  g_autofree char *none = st_chain_dump_line (s, NULL, &ev, ips, 2);
  g_assert_cmpstr (none, ==, "2147483647\t-2147483648\t9223372036854775807\t"
                   "0xffffffffffffffff,0x0\t[unknown];[unknown]\n");

  /* A chain as long as they come: one line, every address.  */
  uint64_t many[256];
  for (guint i = 0; i < G_N_ELEMENTS (many); i++)
    many[i] = 0x400000 + i;
  ev = event (1, 1, 0);
  g_autofree char *lng = st_chain_dump_line (s, NULL, &ev, many, 256);
  g_auto (GStrv) fields = g_strsplit (lng, "\t", -1);
  g_assert_cmpuint (g_strv_length (fields), ==, 5);
  g_auto (GStrv) addrs = g_strsplit (fields[3], ",", -1);
  g_assert_cmpuint (g_strv_length (addrs), ==, 256);
  g_assert_cmpstr (addrs[255], ==, "0x4000ff");
  g_auto (GStrv) names = g_strsplit (fields[4], ";", -1);
  g_assert_cmpuint (g_strv_length (names), ==, 256);
  g_assert_cmpstr (names[255], ==, "[unknown]\n");
  g_assert_null (strchr (fields[4], '\t'));
  st_symbolizer_free (s);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/chain-dump/named", test_named);
  g_test_add_func ("/chain-dump/edges", test_edges);
  g_test_add_func ("/chain-dump/escaped-names", test_escaped_names);
  return g_test_run ();
}
