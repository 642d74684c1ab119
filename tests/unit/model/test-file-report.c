/* The report of unusable files (model/file-report.c): what the user
   reads after the run to learn which files cost samples and what to do.

   Checked against the contract of file-report.h with hand-made modules:
   the unusable files most samples first, ties by name; a module reported
   again (fetched later, opened again after an eviction) keeps its
   samples and takes the latest word; a file without call frame
   information becomes unusable at its first sample; the totals by
   verification; the bound (ST_FILE_REPORT_MAX listed, the rest counted);
   the printed text line by line (the cause, the reason, the advice for
   the cause and for whether a build-id was recorded, at most
   ST_SUMMARY_UNUSABLE_FILES files then a summary, unsampled files only with
   -v); names from the input printed escaped, one line each.  */
#include "config.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "model/file-report.h"
#include "summary-text.h"

static void
add_ok (StFileReport *r, const char *key, const char *name,
        StFileVerification how)
{
  st_file_report_module (r, key, name, name, ST_FILE_SOURCE_RECORDED, how,
                         ST_FILE_OK, NULL, TRUE);
}

static void
add_bad (StFileReport *r, const char *key, const char *name,
         StFileProblem problem, const char *detail, gboolean has_build_id)
{
  st_file_report_module (r, key, name, NULL, ST_FILE_SOURCE_NONE,
                         ST_FILE_UNVERIFIED, problem, detail, has_build_id);
}

static void
cost (StFileReport *r, const char *key, guint n)
{
  for (guint i = 0; i < n; i++)
    st_file_report_cost (r, key);
}

static char *
printed (const StFileReport *r, gboolean verbose)
{
  return summary_text_files (r, verbose);
}

static const StFileEntry *
entry (GPtrArray *list, guint i)
{
  g_assert_cmpuint (i, <, list->len);
  return list->pdata[i];
}

static void
test_order (void)
{
  StFileReport *r = st_file_report_new ();

  add_bad (r, "b:c", "/c", ST_FILE_MISSING, "/c: missing", TRUE);
  add_bad (r, "b:a", "/a", ST_FILE_NOT_ELF, "/a: not an ELF file", TRUE);
  add_bad (r, "b:b", "/b", ST_FILE_REPLACED, "/b: replaced", FALSE);
  add_bad (r, "b:d", "/d", ST_FILE_MISSING, "/d: missing", TRUE);
  add_ok (r, "b:e", "/e", ST_FILE_VERIFIED_BUILD_ID);
  cost (r, "b:b", 5);
  cost (r, "b:c", 2);
  cost (r, "b:a", 2);

  /* 5, then the two of 2 by name, then the unsampled one; the usable
     file is not among them.  */
  GPtrArray *bad = st_file_report_unusable (r);
  g_assert_cmpuint (bad->len, ==, 4);
  g_assert_cmpstr (entry (bad, 0)->name, ==, "/b");
  g_assert_cmpuint (entry (bad, 0)->samples, ==, 5);
  g_assert_cmpstr (entry (bad, 1)->name, ==, "/a");
  g_assert_cmpstr (entry (bad, 2)->name, ==, "/c");
  g_assert_cmpstr (entry (bad, 3)->name, ==, "/d");
  g_assert_cmpuint (entry (bad, 3)->samples, ==, 0);
  g_assert_null (entry (bad, 0)->path);
  g_assert_cmpstr (entry (bad, 0)->detail, ==, "/b: replaced");
  g_ptr_array_unref (bad);

  GPtrArray *all = st_file_report_all (r);
  g_assert_cmpuint (all->len, ==, 5);
  static const char *const by_name[] = { "/a", "/b", "/c", "/d", "/e" };
  for (guint i = 0; i < all->len; i++)
    g_assert_cmpstr (entry (all, i)->name, ==, by_name[i]);
  g_assert_cmpstr (entry (all, 4)->path, ==, "/e");
  g_assert_null (entry (all, 4)->detail);
  g_ptr_array_unref (all);
  st_file_report_free (r);
}

/* A module reported again: the latest word, the samples kept.  */
static void
test_again (void)
{
  StFileReport *r = st_file_report_new ();
  StFileReportTotals t;

  add_bad (r, "b:01", "/usr/lib/libx.so", ST_FILE_MISSING,
           "/usr/lib/libx.so: missing", TRUE);
  cost (r, "b:01", 3);
  /* Fetched by debuginfod: usable now; the 3 samples it cost before
     stay with it but are no longer counted as lost.  */
  st_file_report_module (r, "b:01", "/other/name", "/cache/x",
                         ST_FILE_SOURCE_DEBUGINFOD, ST_FILE_VERIFIED_BUILD_ID,
                         ST_FILE_OK, "ignored when usable", TRUE);
  GPtrArray *all = st_file_report_all (r);
  g_assert_cmpuint (all->len, ==, 1);
  g_assert_cmpstr (entry (all, 0)->name, ==, "/usr/lib/libx.so");
  g_assert_cmpstr (entry (all, 0)->path, ==, "/cache/x");
  g_assert_null (entry (all, 0)->detail);
  g_assert_cmpuint (entry (all, 0)->source, ==, ST_FILE_SOURCE_DEBUGINFOD);
  g_assert_cmpuint (entry (all, 0)->samples, ==, 3);
  g_ptr_array_unref (all);
  st_file_report_totals (r, &t);
  g_assert_cmpuint (t.modules, ==, 1);
  g_assert_cmpuint (t.unusable, ==, 0);
  g_assert_cmpuint (t.unusable_samples, ==, 0);
  g_assert_cmpuint (t.verified_build_id, ==, 1);

  /* Evicted, and its file gone when opened again.  */
  add_bad (r, "b:01", "/usr/lib/libx.so", ST_FILE_REPLACED, "replaced",
           TRUE);
  cost (r, "b:01", 1);
  st_file_report_totals (r, &t);
  g_assert_cmpuint (t.unusable, ==, 1);
  g_assert_cmpuint (t.unusable_samples, ==, 4);
  st_file_report_free (r);
}

/* The entry of BAD named NAME.  */
static const StFileEntry *
named (GPtrArray *bad, const char *name)
{
  for (guint i = 0; i < bad->len; i++)
    if (g_strcmp0 (((const StFileEntry *) bad->pdata[i])->name, name) == 0)
      return bad->pdata[i];
  g_assert_not_reached ();
}

static void
test_no_unwind_data (void)
{
  StFileReport *r = st_file_report_new ();
  StFileReportTotals t;

  add_ok (r, "b:02", "/usr/lib/libnocfi.so", ST_FILE_VERIFIED_INODE);
  st_file_report_totals (r, &t);
  g_assert_cmpuint (t.verified_inode, ==, 1);
  g_assert_cmpuint (t.unusable, ==, 0);

  st_file_report_no_unwind_data (r, "b:02", ST_NO_CFI_SECTIONS);
  st_file_report_no_unwind_data (r, "b:02", ST_NO_CFI_SECTIONS);
  GPtrArray *bad = st_file_report_unusable (r);
  g_assert_cmpuint (bad->len, ==, 1);
  g_assert_cmpuint (entry (bad, 0)->problem, ==, ST_FILE_NO_UNWIND_DATA);
  g_assert_cmpuint (entry (bad, 0)->samples, ==, 2);
  g_assert_cmpstr (entry (bad, 0)->detail, ==,
                   "/usr/lib/libnocfi.so: no .eh_frame or .debug_frame, "
                   "and no debug file with one was found");
  g_ptr_array_unref (bad);

  /* Code built without unwind tables: no debug file, or one without
     .debug_frame (a problem of its own, with its own advice).  */
  add_ok (r, "b:04", "/opt/notables", ST_FILE_VERIFIED_BUILD_ID);
  add_ok (r, "b:05", "/opt/nodebugframe", ST_FILE_VERIFIED_BUILD_ID);
  st_file_report_no_unwind_data (r, "b:04", ST_NO_CFI_CODE);
  st_file_report_no_unwind_data (r, "b:05", ST_NO_CFI_DEBUG_FILE);
  st_file_report_no_unwind_data (r, "b:05", ST_NO_CFI_DEBUG_FILE);
  bad = st_file_report_unusable (r);
  g_assert_cmpuint (bad->len, ==, 3);
  g_assert_cmpuint (named (bad, "/opt/nodebugframe")->problem, ==,
                    ST_FILE_DEBUG_WITHOUT_CFI);
  g_assert_cmpstr (named (bad, "/opt/nodebugframe")->detail, ==,
                   "/opt/nodebugframe: built without unwind tables (its "
                   ".eh_frame covers little of its code), and its debug "
                   "file has no .debug_frame");
  g_assert_cmpstr (st_file_problem_name (ST_FILE_DEBUG_WITHOUT_CFI), ==,
                   "debug file without unwind data");
  g_assert_nonnull (strstr (st_file_problem_advice (ST_FILE_DEBUG_WITHOUT_CFI,
                                                    TRUE),
                            "-fasynchronous-unwind-tables"));
  g_assert_cmpuint (named (bad, "/opt/notables")->problem, ==,
                    ST_FILE_NO_UNWIND_DATA);
  g_assert_cmpstr (named (bad, "/opt/notables")->detail, ==,
                   "/opt/notables: built without unwind tables (its "
                   ".eh_frame covers little of its code, no .debug_frame), "
                   "and no debug file was found");
  g_ptr_array_unref (bad);

  /* An unusable module keeps its own problem; the sample counts.  */
  add_bad (r, "b:03", "/gone", ST_FILE_MISSING, "/gone: missing", TRUE);
  st_file_report_no_unwind_data (r, "b:03", ST_NO_CFI_SECTIONS);
  bad = st_file_report_unusable (r);
  g_assert_cmpuint (named (bad, "/gone")->problem, ==, ST_FILE_MISSING);
  g_assert_cmpstr (named (bad, "/gone")->detail, ==, "/gone: missing");
  g_assert_cmpuint (named (bad, "/gone")->samples, ==, 1);
  g_ptr_array_unref (bad);

  /* A module never listed: the sample still counts as lost.  */
  st_file_report_no_unwind_data (r, "b:unknown", ST_NO_CFI_CODE);
  st_file_report_cost (r, "b:unknown");
  st_file_report_totals (r, &t);
  g_assert_cmpuint (t.modules, ==, 4);
  g_assert_cmpuint (t.unusable, ==, 4);
  g_assert_cmpuint (t.unusable_samples, ==, 8);
  st_file_report_free (r);
}

static void
test_totals_and_bound (void)
{
  StFileReport *r = st_file_report_new ();
  StFileReportTotals t;

  st_file_report_totals (r, &t);
  g_assert_cmpuint (t.modules, ==, 0);
  for (guint i = 0; i < ST_FILE_REPORT_MAX + 5; i++)
    {
      g_autofree char *key = g_strdup_printf ("f:%u", i);
      g_autofree char *name = g_strdup_printf ("/lib/%05u.so", i);
      if (i % 4 == 3)
        add_bad (r, key, name, ST_FILE_MISSING, "missing", FALSE);
      else
        add_ok (r, key, name, (StFileVerification) (i % 4));
    }
  /* Past the bound: counted, not listed; their samples lost all the
     same.  A module listed stays updatable.  */
  g_autofree char *last = g_strdup_printf ("f:%u", ST_FILE_REPORT_MAX + 4);
  cost (r, last, 2);
  cost (r, "f:3", 1);
  add_ok (r, "f:0", "/lib/00000.so", ST_FILE_VERIFIED_INODE);

  st_file_report_totals (r, &t);
  g_assert_cmpuint (t.modules, ==, ST_FILE_REPORT_MAX + 5);
  g_assert_cmpuint (t.not_listed, ==, 5);
  /* Of the 4096 listed: i % 4 == 0 unverified (1024, one made inode),
     1 build-id, 2 inode, 3 unusable.  */
  g_assert_cmpuint (t.unverified, ==, 1023);
  g_assert_cmpuint (t.verified_build_id, ==, 1024);
  g_assert_cmpuint (t.verified_inode, ==, 1025);
  g_assert_cmpuint (t.unusable, ==, 1024);
  g_assert_cmpuint (t.unusable_samples, ==, 3);
  GPtrArray *all = st_file_report_all (r);
  g_assert_cmpuint (all->len, ==, ST_FILE_REPORT_MAX);
  g_ptr_array_unref (all);
  st_file_report_free (r);
  st_file_report_free (NULL);
}

static void
test_print (void)
{
  StFileReport *r = st_file_report_new ();

  add_bad (r, "b:1", "/usr/lib/liba.so", ST_FILE_BUILD_ID_MISMATCH,
           "/usr/lib/liba.so: build-id mismatch: recorded 01, found 02",
           TRUE);
  add_bad (r, "f:2", "/opt/b", ST_FILE_MISSING,
           "/opt/b: missing (looked in: recorded-path)", FALSE);
  add_bad (r, "f:3", "/dev/zero", ST_FILE_NOT_REGULAR, NULL, FALSE);
  add_bad (r, "f:4", "/unsampled", ST_FILE_MISSING, "/unsampled: missing",
           FALSE);
  add_ok (r, "b:5", "/usr/bin/prog", ST_FILE_VERIFIED_BUILD_ID);
  cost (r, "b:1", 7);
  cost (r, "f:2", 3);
  cost (r, "f:3", 1);

  g_autofree char *text = printed (r, FALSE);
  g_assert_cmpstr (text, ==,
    "stacktrace: files that could not be used, by samples lost:\n"
    "stacktrace:   /usr/lib/liba.so: build-id mismatch, 7 sample(s)\n"
    "stacktrace:     /usr/lib/liba.so: build-id mismatch: recorded 01, "
    "found 02\n"
    "stacktrace:     advice: give the files as recorded: --symfs DIR, "
    "--buildid-dir DIR (an unpacked perf archive) or DEBUGINFOD_URLS\n"
    "stacktrace:   /opt/b: missing, 3 sample(s)\n"
    "stacktrace:     /opt/b: missing (looked in: recorded-path)\n"
    "stacktrace:     advice: give the files as recorded with --symfs DIR "
    "(record with --buildid-mmap to allow --buildid-dir and debuginfod)\n"
    "stacktrace:   /dev/zero: not a regular file, 1 sample(s)\n"
    "stacktrace:     advice: give the real file's root with --symfs DIR\n"
    "stacktrace: 1 more unusable file(s), 0 sample(s) lost in them\n");

  g_autofree char *verbose = printed (r, TRUE);
  g_assert_true (g_str_has_prefix (verbose,
    "stacktrace: files: 5 module(s): 1 verified by build-id, 0 by inode, "
    "0 unverified, 4 unusable, 0 mapped data (not ELF, never sampled)\n"
    "stacktrace:   /dev/zero: unusable (not a regular file)\n"
    "stacktrace:   /opt/b: unusable (missing)\n"
    "stacktrace:   /unsampled: unusable (missing)\n"
    "stacktrace:   /usr/bin/prog: /usr/bin/prog (recorded-path, build-id)\n"
    "stacktrace:   /usr/lib/liba.so: unusable (build-id mismatch)\n"
    "stacktrace: files that could not be used, by samples lost:\n"));
  /* With -v the unsampled file is listed too, with its advice.  */
  g_assert_true (g_str_has_suffix (verbose,
    "stacktrace:   /unsampled: missing, 0 sample(s)\n"
    "stacktrace:     /unsampled: missing\n"
    "stacktrace:     advice: give the files as recorded with --symfs DIR "
    "(record with --buildid-mmap to allow --buildid-dir and debuginfod)\n"));
  st_file_report_free (r);

  /* Nothing unusable, or nothing that cost a sample: nothing said.  */
  r = st_file_report_new ();
  add_ok (r, "b:5", "/usr/bin/prog", ST_FILE_UNVERIFIED);
  g_autofree char *quiet = printed (r, FALSE);
  g_assert_cmpstr (quiet, ==, "");
  add_bad (r, "f:4", "/unsampled", ST_FILE_MISSING, "missing", FALSE);
  g_autofree char *still = printed (r, FALSE);
  g_assert_cmpstr (still, ==, "");
  st_file_report_free (r);
}

/* A data file a process maps (/etc/ld.so.cache) is not ELF and no
   sample stops in it: not counted or listed as unusable, named as data
   with -v.  Sampled, a non-ELF file is a loss like any other.  */
static void
test_data_files (void)
{
  StFileReport *r = st_file_report_new ();
  StFileReportTotals t;

  add_bad (r, "f:1", "/etc/ld.so.cache", ST_FILE_NOT_ELF,
           "/etc/ld.so.cache: not an ELF file", FALSE);
  add_ok (r, "b:2", "/usr/bin/prog", ST_FILE_VERIFIED_BUILD_ID);
  st_file_report_totals (r, &t);
  g_assert_cmpuint (t.modules, ==, 2);
  g_assert_cmpuint (t.unusable, ==, 0);
  g_assert_cmpuint (t.data_files, ==, 1);
  GPtrArray *bad = st_file_report_unusable (r);
  g_assert_cmpuint (bad->len, ==, 0);
  g_ptr_array_unref (bad);
  g_autofree char *quiet = printed (r, FALSE);
  g_assert_cmpstr (quiet, ==, "");
  g_autofree char *verbose = printed (r, TRUE);
  g_assert_cmpstr (verbose, ==,
    "stacktrace: files: 2 module(s): 1 verified by build-id, 0 by inode, "
    "0 unverified, 0 unusable, 1 mapped data (not ELF, never sampled)\n"
    "stacktrace:   /etc/ld.so.cache: mapped data (not ELF, never sampled)\n"
    "stacktrace:   /usr/bin/prog: /usr/bin/prog (recorded-path, build-id)\n");
  g_assert_null (strstr (verbose, "--symfs"));

  cost (r, "f:1", 1);
  st_file_report_totals (r, &t);
  g_assert_cmpuint (t.unusable, ==, 1);
  g_assert_cmpuint (t.data_files, ==, 0);
  g_autofree char *sampled = printed (r, FALSE);
  g_assert_nonnull (strstr (sampled, "/etc/ld.so.cache: not ELF, 1 sample(s)"));
  st_file_report_free (r);
}

/* Eleven costly files: ten shown, most costly first, the rest summed.  */
static void
test_print_bound (void)
{
  StFileReport *r = st_file_report_new ();

  for (guint i = 1; i <= ST_SUMMARY_UNUSABLE_FILES + 3; i++)
    {
      g_autofree char *key = g_strdup_printf ("k%u", i);
      g_autofree char *name = g_strdup_printf ("/f%02u", i);
      add_bad (r, key, name, ST_FILE_NO_UNWIND_DATA, NULL, TRUE);
      cost (r, key, 100 - i);
    }
  g_autofree char *text = printed (r, FALSE);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  /* A header, two lines per file, the summary, the empty rest.  */
  g_assert_cmpuint (g_strv_length (lines), ==,
                    1 + 2 * ST_SUMMARY_UNUSABLE_FILES + 1 + 1);
  g_assert_cmpstr (lines[1], ==,
                   "stacktrace:   /f01: no unwind data, 99 sample(s)");
  g_assert_cmpstr (lines[2], ==, "stacktrace:     advice: install its debug "
                   "info (or set DEBUGINFOD_URLS)");
  g_assert_cmpstr (lines[2 * ST_SUMMARY_UNUSABLE_FILES - 1], ==,
                   "stacktrace:   /f10: no unwind data, 90 sample(s)");
  /* 89 + 88 + 87.  */
  g_assert_cmpstr (lines[2 * ST_SUMMARY_UNUSABLE_FILES + 1], ==,
                   "stacktrace: 3 more unusable file(s), 264 sample(s) lost "
                   "in them");
  st_file_report_free (r);
}

/* Names and reasons come from the input (a recorded path is whatever
   the program mapped): a newline must not forge a line of our own, an
   escape sequence must not reach the terminal.  */
static void
test_untrusted_names (void)
{
  StFileReport *r = st_file_report_new ();

  add_bad (r, "f:1", "/tmp/x\nstacktrace: all good\x1b[2J",
           ST_FILE_MISSING, "/tmp/x\nstacktrace: all good\x1b[2J: missing",
           FALSE);
  add_ok (r, "f:2", "/tmp/ok\r\xff", ST_FILE_UNVERIFIED);
  cost (r, "f:1", 1);

  g_autofree char *text = printed (r, TRUE);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 8);
  g_assert_null (strchr (text, '\x1b'));
  g_assert_null (strchr (text, '\r'));
  g_assert_true (g_utf8_validate (text, -1, NULL));
  g_assert_cmpstr (lines[1], ==, "stacktrace:   /tmp/ok\\r\\xff: /tmp/ok\\r\\xff "
                   "(recorded-path, unverified)");
  g_assert_cmpstr (lines[2], ==, "stacktrace:   /tmp/x\\nstacktrace: all "
                   "good\\x1b[2J: unusable (missing)");
  g_assert_cmpstr (lines[4], ==, "stacktrace:   /tmp/x\\nstacktrace: all "
                   "good\\x1b[2J: missing, 1 sample(s)");
  g_assert_cmpstr (lines[5], ==, "stacktrace:     /tmp/x\\nstacktrace: all "
                   "good\\x1b[2J: missing");
  st_file_report_free (r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/file-report/order", test_order);
  g_test_add_func ("/file-report/again", test_again);
  g_test_add_func ("/file-report/no-unwind-data", test_no_unwind_data);
  g_test_add_func ("/file-report/totals-and-bound", test_totals_and_bound);
  g_test_add_func ("/file-report/print", test_print);
  g_test_add_func ("/file-report/print-bound", test_print_bound);
  g_test_add_func ("/file-report/data-files", test_data_files);
  g_test_add_func ("/file-report/untrusted-names", test_untrusted_names);
  return g_test_run ();
}
