/* Unwinding statistics and their summary (stats.c).

   Hand-made unwind results with known sums: every counter per process
   and in total (status, frames, stitching, frame-pointer chains, causes,
   engine paths and fallbacks, unprimed), the success rate (complete /
   samples, 100 % with no sample), the per-process bound (past
   ST_STATS_MAX_PROCESSES the least recently active are summed as one),
   events in and out and records the recorder lost, damage per action with its bytes and
   the lowest offset, and the summary's lines written out by hand from
   those sums: causes by name (unwind-result's names), damage by action
   (damage.h's names), the last line chosen by what the input held,
   bookkeeping records only with -v unless data went with them.  */
#include "config.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "stats.h"
#include "summary-text.h"

static StUnwindResult
result (StUnwindStatus status, StUnwindCause cause, uint32_t n_ips)
{
  StUnwindResult r = { 0 };

  r.status = status;
  r.cause = cause;
  r.n_ips = n_ips;
  return r;
}

static char *
printed (const StStats *s, gboolean verbose)
{
  return summary_text (s, verbose);
}

static const StProcessStats *
process (const StStats *s, int32_t pid, GPtrArray **keep)
{
  *keep = st_stats_processes (s);
  for (guint i = 0; i < (*keep)->len; i++)
    if (((const StProcessStats *) (*keep)->pdata[i])->pid == pid)
      return (*keep)->pdata[i];
  return NULL;
}

static void
test_counters (void)
{
  StStats *s = st_stats_new ();
  StUnwindResult r;

  /* pid 1: 2 complete (one stitched, 3 frames borrowed; one continued by
     the frame-pointer chain, by the lean walk), 1 truncated at the end
     of the stack copy, handed to libdwfl for a signal frame.  */
  r = result (ST_UNWIND_COMPLETE, ST_CAUSE_NONE, 10);
  r.n_stitched = 3;
  r.path = ST_PATH_RULES;
  st_stats_unwind (s, 1, "one", &r);
  r = result (ST_UNWIND_COMPLETE, ST_CAUSE_NONE, 7);
  r.n_fp_chain = 2;
  r.n_fp_frames = 1;
  r.path = ST_PATH_RULES;
  r.lean = true;
  st_stats_unwind (s, 1, "one", &r);
  r = result (ST_UNWIND_TRUNCATED, ST_CAUSE_STACK_END, 4);
  r.path = ST_PATH_FALLBACK;
  r.fallback = ST_FALLBACK_SIGNAL;
  r.stitch_refused = true;
  st_stats_unwind (s, 1, "one", &r);

  /* pid 2: 1 failed without maps, 1 truncated in no module, unprimed;
     renamed in between (exec).  */
  r = result (ST_UNWIND_FAILED, ST_CAUSE_NO_MAPS, 0);
  st_stats_unwind (s, 2, "two", &r);
  r = result (ST_UNWIND_TRUNCATED, ST_CAUSE_NO_MODULE, 2);
  r.unprimed = true;
  st_stats_unwind (s, 2, "renamed", &r);
  /* A result without a name keeps the name known.  */
  r = result (ST_UNWIND_COMPLETE, ST_CAUSE_NONE, 5);
  st_stats_unwind (s, 2, NULL, &r);

  const StUnwindCounters *t = st_stats_total (s);
  g_assert_cmpuint (t->samples, ==, 6);
  g_assert_cmpuint (t->complete, ==, 3);
  g_assert_cmpuint (t->truncated, ==, 2);
  g_assert_cmpuint (t->failed, ==, 1);
  g_assert_cmpuint (t->frames, ==, 10 + 7 + 4 + 0 + 2 + 5);
  g_assert_cmpuint (t->stitched, ==, 1);
  g_assert_cmpuint (t->fp_chain, ==, 1);
  g_assert_cmpuint (t->stitch_refused, ==, 1);
  g_assert_cmpuint (t->unprimed, ==, 1);
  g_assert_cmpuint (t->fp_frames, ==, 1);
  g_assert_cmpuint (t->lean, ==, 1);
  g_assert_cmpuint (t->by_cause[ST_CAUSE_NONE], ==, 3);
  g_assert_cmpuint (t->by_cause[ST_CAUSE_STACK_END], ==, 1);
  g_assert_cmpuint (t->by_cause[ST_CAUSE_NO_MAPS], ==, 1);
  g_assert_cmpuint (t->by_cause[ST_CAUSE_NO_MODULE], ==, 1);
  g_assert_cmpuint (t->by_path[ST_PATH_DWFL], ==, 3);
  g_assert_cmpuint (t->by_path[ST_PATH_RULES], ==, 2);
  g_assert_cmpuint (t->by_path[ST_PATH_FALLBACK], ==, 1);
  g_assert_cmpuint (t->by_fallback[ST_FALLBACK_SIGNAL], ==, 1);
  g_assert_cmpuint (t->by_fallback[ST_FALLBACK_NONE], ==, 5);
  g_assert_cmpfloat_with_epsilon (st_unwind_success_rate (t), 50.0, 1e-9);

  GPtrArray *list;
  const StProcessStats *one = process (s, 1, &list);
  g_assert_nonnull (one);
  g_assert_cmpstr (one->comm, ==, "one");
  g_assert_cmpuint (one->counters.samples, ==, 3);
  g_assert_cmpuint (one->counters.complete, ==, 2);
  g_assert_cmpuint (one->counters.frames, ==, 21);
  g_assert_cmpfloat_with_epsilon (st_unwind_success_rate (&one->counters),
                                  200.0 / 3, 1e-9);
  g_ptr_array_unref (list);
  const StProcessStats *two = process (s, 2, &list);
  g_assert_cmpstr (two->comm, ==, "renamed");
  g_assert_cmpuint (two->counters.failed, ==, 1);
  g_assert_cmpuint (two->counters.unprimed, ==, 1);
  g_assert_cmpuint (list->len, ==, 2);
  g_ptr_array_unref (list);

  /* Out-of-range enums are not counted anywhere but in the totals.  */
  r = result (ST_UNWIND_TRUNCATED, (StUnwindCause) 999, 1);
  r.path = (StUnwindPath) 999;
  r.fallback = (StFallbackReason) 999;
  st_stats_unwind (s, 3, "odd", &r);
  t = st_stats_total (s);         /* a snapshot: summed again */
  g_assert_cmpuint (t->samples, ==, 7);
  g_assert_cmpuint (t->truncated, ==, 3);
  guint64 causes = 0;
  for (guint i = 0; i < ST_CAUSE_N; i++)
    causes += t->by_cause[i];
  g_assert_cmpuint (causes, ==, 6);
  st_stats_free (s);
}

static void
test_success_rate (void)
{
  StUnwindCounters c = { 0 };

  /* No sample: nothing failed.  */
  g_assert_cmpfloat (st_unwind_success_rate (&c), ==, 100.0);
  c.samples = 4;
  c.complete = 3;
  g_assert_cmpfloat (st_unwind_success_rate (&c), ==, 75.0);
  c.complete = 0;
  g_assert_cmpfloat (st_unwind_success_rate (&c), ==, 0.0);
  c.samples = UINT64_MAX;
  c.complete = UINT64_MAX;
  g_assert_cmpfloat (st_unwind_success_rate (&c), ==, 100.0);

  /* Printed: never rounded up to 100 while a sample failed.  */
  c.samples = 10000;
  c.complete = 9999;
  g_autofree char *one = g_strdup_printf ("%.1f",
                                          st_unwind_success_shown (&c, 1));
  g_assert_cmpstr (one, ==, "99.9");
  g_autofree char *two = g_strdup_printf ("%.2f",
                                          st_unwind_success_shown (&c, 2));
  g_assert_cmpstr (two, ==, "99.99");
  c.samples = 300000;
  c.complete = 299999;
  g_autofree char *two_more = g_strdup_printf ("%.2f",
                                               st_unwind_success_shown (&c, 2));
  g_assert_cmpstr (two_more, ==, "99.99");
  /* Elsewhere rounded as usual.  */
  c.complete = 20000;
  c.samples = 30000;
  g_autofree char *thirds = g_strdup_printf ("%.1f",
                                             st_unwind_success_shown (&c, 1));
  g_assert_cmpstr (thirds, ==, "66.7");
  c.complete = c.samples;
  g_assert_cmpfloat (st_unwind_success_shown (&c, 1), ==, 100.0);
  c.samples = UINT64_MAX;
  c.complete = UINT64_MAX - 1;
  g_autofree char *huge = g_strdup_printf ("%.1f",
                                           st_unwind_success_shown (&c, 1));
  g_assert_cmpstr (huge, ==, "99.9");
}

/* Past ST_STATS_MAX_PROCESSES processes, the least recently active
   quarter is folded into one row: the table stays bounded, new
   processes are still counted one by one, and the totals stay exact.  */
static void
test_process_bound (void)
{
  StStats *s = st_stats_new ();
  StUnwindResult ok = result (ST_UNWIND_COMPLETE, ST_CAUSE_NONE, 1);
  StUnwindResult bad = result (ST_UNWIND_FAILED, ST_CAUSE_NO_CFI, 0);
  const guint quarter = ST_STATS_MAX_PROCESSES / 4;

  for (int32_t pid = 1; pid <= ST_STATS_MAX_PROCESSES; pid++)
    st_stats_unwind (s, pid, "many", &ok);
  /* Pid 1 active again: the oldest are now 2 .. QUARTER + 1.  */
  st_stats_unwind (s, 1, "many", &ok);
  for (int32_t pid = 0; pid < 3; pid++)
    st_stats_unwind (s, ST_STATS_MAX_PROCESSES + 100 + pid, "late", &bad);

  GPtrArray *list = st_stats_processes (s);
  g_assert_cmpuint (list->len, ==, ST_STATS_MAX_PROCESSES - quarter + 3);
  g_ptr_array_unref (list);
  const StUnwindCounters *t = st_stats_total (s);
  g_assert_cmpuint (t->samples, ==, ST_STATS_MAX_PROCESSES + 4);
  g_assert_cmpuint (t->complete, ==, ST_STATS_MAX_PROCESSES + 1);
  g_assert_cmpuint (t->failed, ==, 3);

  /* Many more than the bound, one sample each: still bounded, still
     exact.  */
  for (int32_t pid = 1000000; pid < 1000000 + 5 * ST_STATS_MAX_PROCESSES;
       pid++)
    st_stats_unwind (s, pid, "churn", &ok);
  list = st_stats_processes (s);
  g_assert_cmpuint (list->len, <=, ST_STATS_MAX_PROCESSES);
  g_ptr_array_unref (list);
  t = st_stats_total (s);
  g_assert_cmpuint (t->samples, ==, 6 * ST_STATS_MAX_PROCESSES + 4);

  g_autofree char *text = printed (s, TRUE);
  g_assert_nonnull (strstr (text, "stacktrace: other processes (not counted "
                            "one by one): "));
  g_assert_null (strstr (text, "(many)"));
  g_assert_nonnull (strstr (text, "(churn)"));
  st_stats_free (s);
}

static void
test_events_and_damage (void)
{
  StStats *s = st_stats_new ();
  StEvent sample = { .kind = ST_EVENT_SAMPLE };
  StEvent raw = { .kind = ST_EVENT_STACK_USER };
  StEvent lost = { .kind = ST_EVENT_LOST };

  st_stats_event (s, &sample, TRUE);
  st_stats_event (s, &raw, FALSE);
  st_stats_event (s, &raw, TRUE);
  lost.lost.count = 40;
  st_stats_event (s, &lost, TRUE);
  lost.lost.count = 2;
  st_stats_event (s, &lost, FALSE);
  g_assert_cmpuint (st_stats_events_in (s), ==, 5);
  g_assert_cmpuint (st_stats_events_out (s), ==, 3);

  g_assert_cmpuint (st_stats_damaged (s), ==, 0);
  StDamage d = { .action = ST_DAMAGE_DROPPED, .offset = 5000, .n_bytes = 24 };
  st_stats_damage (s, &d);
  d.offset = 4096;
  d.n_bytes = 16;
  st_stats_damage (s, &d);
  d.action = ST_DAMAGE_TRUNCATED;
  d.offset = 9000;
  d.n_bytes = 7;
  st_stats_damage (s, &d);
  /* An action past the known ones is not counted.  */
  d.action = (StDamageAction) 99;
  d.offset = 1;
  st_stats_damage (s, &d);
  g_assert_cmpuint (st_stats_damaged (s), ==, 3);
  g_assert_cmpuint (st_stats_first_damage (s), ==, 4096);
  g_assert_cmpuint (st_stats_damage_count (s, ST_DAMAGE_DROPPED), ==, 2);
  g_assert_cmpuint (st_stats_damage_bytes (s, ST_DAMAGE_DROPPED), ==, 40);
  g_assert_cmpuint (st_stats_damage_count (s, ST_DAMAGE_TRUNCATED), ==, 1);
  g_assert_cmpuint (st_stats_damage_bytes (s, ST_DAMAGE_TRUNCATED), ==, 7);
  g_assert_cmpuint (st_stats_damage_count (s, ST_DAMAGE_PASSED), ==, 0);
  g_assert_cmpuint (st_stats_damage_count (s, (StDamageAction) 99), ==, 0);
  /* Damage at offset 0 is the lowest (0 is not "none yet"), and later
     damage does not move it.  */
  d.action = ST_DAMAGE_SKIPPED;
  d.offset = 0;
  d.n_bytes = 8;
  st_stats_damage (s, &d);
  d.offset = 100;
  st_stats_damage (s, &d);
  g_assert_cmpuint (st_stats_first_damage (s), ==, 0);

  st_stats_joined (s);
  g_autofree char *text = printed (s, FALSE);
  g_assert_cmpstr (text, ==,
    "stacktrace: the recorder lost 42 record(s) (reported in 2 LOST "
    "record(s))\n"
    "stacktrace: damaged input (first at offset 0): 2 dropped (40 bytes), "
    "2 skipped (16 bytes), 1 cut off (7 bytes)\n"
    "stacktrace: 5 events read, 3 written (1 kernel part(s) written with "
    "their raw stack as one sample)\n"
    "stacktrace: 2 raw-stack samples passed through (not unwound)\n");
  st_stats_free (s);
}

/* The summary of a run that unwound, line by line.  */
static void
test_print (void)
{
  StStats *s = st_stats_new ();
  StUnwindResult r;
  StEvent raw = { .kind = ST_EVENT_STACK_USER };

  for (int i = 0; i < 4; i++)
    st_stats_event (s, &raw, TRUE);
  r = result (ST_UNWIND_COMPLETE, ST_CAUSE_NONE, 6);
  r.path = ST_PATH_RULES;
  r.n_stitched = 1;
  st_stats_unwind (s, 9, "app", &r);
  r.n_stitched = 0;
  st_stats_unwind (s, 9, "app", &r);
  r = result (ST_UNWIND_TRUNCATED, ST_CAUSE_NO_CFI, 3);
  r.path = ST_PATH_FALLBACK;
  r.fallback = ST_FALLBACK_EXPRESSION;
  r.n_fp_frames = 2;
  st_stats_unwind (s, 9, "app", &r);
  r = result (ST_UNWIND_FAILED, ST_CAUSE_LOOP, 0);
  r.path = ST_PATH_RULES;
  st_stats_unwind (s, 4, "a\nb", &r);
  /* Bookkeeping without data: only with -v.  */
  st_stats_no_counterpart (s, ST_EVENT_OTHER, "FINISHED_ROUND");
  st_stats_no_counterpart (s, ST_EVENT_OTHER, "FINISHED_ROUND");
  st_stats_no_counterpart (s, ST_EVENT_OTHER, "ID_INDEX");

  g_autofree char *text = printed (s, FALSE);
  g_assert_cmpstr (text, ==,
    "stacktrace: not unwound to the root, by cause: no-cfi=1 loop=1\n"
    "stacktrace: fast engine: 3 samples by cached CFI rules (0 by the lean "
    "walk), 1 handed to libdwfl (expression=1), 2 frame(s) by the "
    "frame-pointer step (no CFI)\n"
    "stacktrace: 15 user frames in the unwound samples (3.8 per sample)\n"
    "stacktrace: 4 events read, 4 written\n"
    "stacktrace: total: 4 samples, 2 unwound to the root, 1 truncated, 1 "
    "failed (50.0% success); 1 reached the root by stitching\n"
    "stacktrace: sources of complete chains: 1 by DWARF alone, 1 stitched "
    "from the thread's known stack, 0 continued by the recorder's "
    "frame-pointer chain\n");

  /* -v: a line per process, most samples first, names escaped; the
     bookkeeping records by name.  */
  g_autofree char *verbose = printed (s, TRUE);
  g_assert_true (g_str_has_prefix (verbose,
    "stacktrace: pid 9 (app): 3 samples, 2 unwound to the root, 1 "
    "truncated, 0 failed (66.7% success); 1 reached the root by "
    "stitching\n"
    "stacktrace: pid 4 (a\\nb): 1 samples, 0 unwound to the root, 0 "
    "truncated, 1 failed (0.0% success)\n"
    "stacktrace: not unwound"));
  g_assert_nonnull (strstr (verbose,
    "stacktrace: 3 event(s) have no counterpart in the output format and "
    "were not written: FINISHED_ROUND=2, ID_INDEX=1\n"));

  /* A sample left out is data: said without -v.  */
  st_stats_no_counterpart (s, ST_EVENT_SAMPLE, "SAMPLE");
  g_autofree char *lossy = printed (s, FALSE);
  g_assert_nonnull (strstr (lossy, "4 event(s) have no counterpart in the "
                            "output format and were not written: "
                            "FINISHED_ROUND=2, ID_INDEX=1, SAMPLE=1\n"));
  st_stats_free (s);
}

/* An empty input, and priming's line with workers.  */
static void
test_print_edges (void)
{
  StStats *s = st_stats_new ();

  g_assert_cmpstr (st_stats_priming (s)->mode, ==, "sync");
  g_assert_null (st_stats_file_report (s));
  g_autofree char *empty = printed (s, TRUE);
  g_assert_cmpstr (empty, ==,
    "stacktrace: 0 events read, 0 written\n"
    "stacktrace: no raw-stack samples in this input: record with "
    "--call-graph=dwarf\n");
  /* While the run goes on, nothing unwound yet is no verdict on the
     input: its samples may wait for their modules (SIGUSR1 early in a
     --priming defer run said "record with --call-graph=dwarf").  */
  g_autofree char *so_far = summary_text_so_far (s, FALSE);
  g_assert_cmpstr (so_far, ==,
    "stacktrace: 0 events read, 0 written\n"
    "stacktrace: total: 0 samples, 0 unwound to the root, 0 truncated, "
    "0 failed (100.0% success)\n");

  StPrimingStats p = { .mode = "defer", .threads = 2,
                       .modules_prepared = 5, .modules_pending = 1,
                       .waits = 3, .deferred = 30, .stalls = 1, .forced = 2,
                       .cap = 64 << 20, .held_max = 3 << 19 };
  st_stats_set_priming (s, &p);
  g_assert_cmpuint (st_stats_priming (s)->modules_prepared, ==, 5);
  g_autofree char *primed = printed (s, FALSE);
  g_assert_true (g_str_has_prefix (primed,
    "stacktrace: priming (defer): 5 module(s) prepared on 2 worker "
    "thread(s), 1 in preparation; 3 wait(s) for modules not ready, 30 "
    "sample(s) unwound late (at most 1.5 MiB held); the 64 MiB cap held "
    "the input back 1 time(s), 2 sample(s) unwound before a download; 0 "
    "sample(s) unprimed (unwound before their modules were ready)\n"));

  /* The file report is printed in its place.  */
  StFileReport *files = st_file_report_new ();
  st_file_report_module (files, "k", "/lost.so", NULL, ST_FILE_SOURCE_NONE,
                         ST_FILE_UNVERIFIED, ST_FILE_MISSING, NULL, FALSE);
  st_file_report_cost (files, "k");
  st_stats_set_file_report (s, files);
  g_assert_true (st_stats_file_report (s) == files);
  g_autofree char *with_files = printed (s, FALSE);
  g_assert_nonnull (strstr (with_files, "stacktrace:   /lost.so: missing, 1 "
                            "sample(s)\n"));
  st_stats_free (s);
  st_file_report_free (files);
  st_stats_free (NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/stats/counters", test_counters);
  g_test_add_func ("/stats/success-rate", test_success_rate);
  g_test_add_func ("/stats/process-bound", test_process_bound);
  g_test_add_func ("/stats/events-and-damage", test_events_and_damage);
  g_test_add_func ("/stats/print", test_print);
  g_test_add_func ("/stats/print-edges", test_print_edges);
  return g_test_run ();
}
