/* The stats file (src/stats-file.c) over the library's snapshot
   (StStatistics): the documented keys and values in both formats,
   the top offenders' order and limit, escaping of process names.  */
#include "config.h"

#include <glib.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api-private.h"
#include "stats-file.h"
#include "summary-text.h"

static void
unwind (StStats *s, int32_t pid, const char *comm, StUnwindStatus status,
        StUnwindCause cause, guint times)
{
  StUnwindResult r = { .status = status, .cause = cause,
                       .n_ips = status == ST_UNWIND_FAILED ? 0 : 4 };

  for (guint i = 0; i < times; i++)
    st_stats_unwind (s, pid, comm, &r);
}

static StStats *
sample_stats (void)
{
  StStats *s = st_stats_new ();

  unwind (s, 10, "good", ST_UNWIND_COMPLETE, ST_CAUSE_NONE, 50);
  unwind (s, 20, "bad\nname=\"x\"", ST_UNWIND_TRUNCATED, ST_CAUSE_NO_CFI, 3);
  unwind (s, 20, NULL, ST_UNWIND_COMPLETE, ST_CAUSE_NONE, 1);
  unwind (s, 30, "worse", ST_UNWIND_FAILED, ST_CAUSE_NO_MODULE, 5);
  unwind (s, 30, NULL, ST_UNWIND_TRUNCATED, ST_CAUSE_STACK_END, 2);
  /* Twelve more processes with one miss each: the list stops at ten.  */
  for (int pid = 100; pid < 112; pid++)
    unwind (s, pid, "one", ST_UNWIND_TRUNCATED, ST_CAUSE_MEMORY, 1);
  return s;
}

static const StStatsRun run = {
  .state = "running",
  .wall_time_ms = 1795400000123,
  .uptime_ms = 4567,
};

/* The stats file of S, through the public snapshot as the command
   makes it.  */
static char *
st_stats_export (const StStats *s, const StStatsRun *r, StStatsFormat format)
{
  static const StDebuginfodStats debuginfod = { 3, 2 };
  StStatistics *stats = st_api_statistics_new (s, &debuginfod, 8192);
  char *text = st_stats_file_text (stats, r, format);

  st_statistics_free (stats);
  return text;
}

static void
assert_line (const char *text, const char *line)
{
  g_autofree char *needle = g_strdup_printf ("\n%s\n", line);
  g_autofree char *framed = g_strdup_printf ("\n%s", text);

  if (strstr (framed, needle) == NULL)
    g_error ("no line '%s' in:\n%s", line, text);
}

/* Damage counted by kind, with bytes and the first offset, in both
   formats.  */
static void
test_damage (void)
{
  StStats *s = st_stats_new ();
  StDamage skipped = { ST_DAMAGE_SKIPPED, 673064, 100000, "garbage" };
  StDamage cut = { ST_DAMAGE_TRUNCATED, 4096, 12, "cut" };

  st_stats_damage (s, &skipped);
  st_stats_damage (s, &cut);
  g_autofree char *text = st_stats_export (s, &run, ST_STATS_FORMAT_TEXT);
  assert_line (text, "damage.total=2");
  assert_line (text, "damage.first_offset=4096");
  assert_line (text, "damage.skipped=1");
  assert_line (text, "damage.skipped_bytes=100000");
  assert_line (text, "damage.cut_off=1");
  assert_line (text, "damage.cut_off_bytes=12");
  assert_line (text, "damage.passed=0");
  assert_line (text, "damage.dropped=0");
  g_autofree char *json = st_stats_export (s, &run, ST_STATS_FORMAT_JSON);
  g_assert_nonnull (strstr (json, "\"damage\": {\n    \"total\": 2,"));
  g_assert_nonnull (strstr (json, "\"skipped_bytes\": 100000,"));
  st_stats_free (s);
}

static void
test_text (void)
{
  StStats *s = sample_stats ();
  g_autofree char *text = st_stats_export (s, &run, ST_STATS_FORMAT_TEXT);

  g_assert_true (g_str_has_prefix (text, "version=1\n"));
  g_assert_true (g_str_has_suffix (text, "\n"));
  assert_line (text, "state=running");
  assert_line (text, "time_unix_ms=1795400000123");
  assert_line (text, "time=2026-11-23T02:13:20.123Z");
  assert_line (text, "uptime_ms=4567");
  assert_line (text, "input_bytes=8192");
  assert_line (text, "samples=73");
  assert_line (text, "unwound_to_root=51");
  assert_line (text, "truncated=17");
  assert_line (text, "failed=5");
  assert_line (text, "stitched=0");
  assert_line (text, "unprimed=0");
  assert_line (text, "success_rate_percent=69.86");
  assert_line (text, "cause.no_cfi=3");
  assert_line (text, "cause.stack_end=2");
  assert_line (text, "cause.no_module=5");
  assert_line (text, "cause.memory=12");
  assert_line (text, "debuginfod.queries=3");
  assert_line (text, "debuginfod.found=2");
  assert_line (text, "sampled_processes=15");
  assert_line (text, "top.count=10");
  /* Most samples not unwound first: pid 30 (7), then 20 (3).  */
  assert_line (text, "top.1.pid=30");
  assert_line (text, "top.1.comm=worse");
  assert_line (text, "top.1.samples=7");
  assert_line (text, "top.1.not_unwound=7");
  assert_line (text, "top.1.failed=5");
  assert_line (text, "top.1.success_rate_percent=0.00");
  assert_line (text, "top.2.pid=20");
  /* A name stays on its line.  */
  assert_line (text, "top.2.comm=bad?name=\"x\"");
  assert_line (text, "top.2.success_rate_percent=25.00");
  assert_line (text, "top.3.pid=100");
  assert_line (text, "top.10.pid=107");
  g_assert_null (strstr (text, "top.11."));
  g_assert_null (strstr (text, "pid=10\n"));   /* nothing to blame */

  /* Every line is KEY=VALUE.  */
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
    g_assert_nonnull (strchr (lines[i], '='));
  st_stats_free (s);
}

static void
test_json (void)
{
  StStats *s = sample_stats ();
  g_autofree char *json = st_stats_export (s, &run, ST_STATS_FORMAT_JSON);

  g_assert_true (g_str_has_prefix (json, "{\n  \"version\": 1,"));
  g_assert_true (g_str_has_suffix (json, "\n}\n"));
  g_assert_nonnull (strstr (json, "\"state\": \"running\","));
  g_assert_nonnull (strstr (json, "\"success_rate_percent\": 69.86,"));
  g_assert_nonnull (strstr (json, "\"cause\": {\n    \"stack_end\": 2,"));
  g_assert_nonnull (strstr (json, "\"debuginfod\": {\n    \"queries\": 3,"));
  g_assert_nonnull (strstr (json, "\"top\": [\n    {\n      \"pid\": 30,"));
  g_assert_nonnull (strstr (json, "\"comm\": \"bad\\u000aname=\\\"x\\\"\""));
  g_assert_null (strstr (json, "top.count"));

  /* Balanced and never a trailing comma.  */
  int depth = 0;
  gboolean in_string = FALSE;
  for (const char *c = json; *c; c++)
    {
      if (in_string)
        {
          if (*c == '\\')
            c++;
          else if (*c == '"')
            in_string = FALSE;
          continue;
        }
      if (*c == '"')
        in_string = TRUE;
      else if (*c == '{' || *c == '[')
        depth++;
      else if (*c == '}' || *c == ']')
        depth--;
      else if (*c == ',')
        {
          const char *n = c + 1;
          while (*n == ' ' || *n == '\n')
            n++;
          g_assert_true (*n != '}' && *n != ']');
        }
      g_assert_cmpint (depth, >=, 0);
    }
  g_assert_cmpint (depth, ==, 0);
  st_stats_free (s);
}

/* JIT-style priming: the unprimed samples and the priming figures.  */
static void
test_priming (void)
{
  StStats *s = st_stats_new ();
  StUnwindResult r = { ST_UNWIND_FAILED, ST_CAUSE_NO_MODULE, 1 };
  StPrimingStats p = {
    .mode = "defer", .threads = 2, .modules_prepared = 14,
    .modules_pending = 1, .waits = 3, .deferred = 40, .stalls = 2,
    .forced = 1, .cap = 16 << 20, .held = 4096, .held_max = 1 << 20,
  };

  r.unprimed = TRUE;
  st_stats_unwind (s, 5, "new", &r);
  r.unprimed = FALSE;
  st_stats_unwind (s, 5, "new", &r);
  g_autofree char *before = st_stats_export (s, &run, ST_STATS_FORMAT_TEXT);
  assert_line (before, "priming.mode=sync");
  assert_line (before, "priming.threads=0");
  st_stats_set_priming (s, &p);

  g_autofree char *text = st_stats_export (s, &run, ST_STATS_FORMAT_TEXT);
  g_autofree char *json = st_stats_export (s, &run, ST_STATS_FORMAT_JSON);
  assert_line (text, "unprimed=1");
  assert_line (text, "priming.mode=defer");
  assert_line (text, "priming.threads=2");
  assert_line (text, "priming.modules_prepared=14");
  assert_line (text, "priming.modules_pending=1");
  assert_line (text, "priming.waits=3");
  assert_line (text, "priming.deferred=40");
  assert_line (text, "priming.stalls=2");
  assert_line (text, "priming.forced=1");
  assert_line (text, "priming.held_bytes=4096");
  assert_line (text, "priming.cap_bytes=16777216");
  g_assert_nonnull (strstr (json, "\"priming\": {\n    \"mode\": \"defer\","));
  g_assert_nonnull (strstr (json, "\"unprimed\": 1,"));

  /* The summary says it too.  */
  char *buf = summary_text (s, FALSE);
  g_assert_nonnull (strstr (buf, "stacktrace: priming (defer): 14 module(s) "
                            "prepared on 2 worker thread(s), 1 in "
                            "preparation; 3 wait(s)"));
  g_assert_nonnull (strstr (buf, "; 1 sample(s) unprimed"));
  g_free (buf);
  st_stats_free (s);
}

/* No samples: no offenders, an empty array, the rate of the summary.  */
static void
test_empty (void)
{
  StStats *s = st_stats_new ();
  g_autofree char *text = st_stats_export (s, &run, ST_STATS_FORMAT_TEXT);
  g_autofree char *json = st_stats_export (s, &run, ST_STATS_FORMAT_JSON);

  assert_line (text, "samples=0");
  assert_line (text, "top.count=0");
  assert_line (text, "success_rate_percent=100.00");
  g_assert_nonnull (strstr (json, "\"top\": []"));
  st_stats_free (s);
}

static char *
summary (const StStats *s, gboolean verbose)
{
  return summary_text (s, verbose);
}

/* The summary says what happened: no raw stacks at all, raw stacks
   passed through, and the input's bookkeeping records (no counterpart
   in the output) only with -v unless data went with them.  */
static void
test_summary_wording (void)
{
  StStats *s = st_stats_new ();
  StEvent ev = { .kind = ST_EVENT_SAMPLE };
  char *text;

  st_stats_event (s, &ev, TRUE);
  st_stats_no_counterpart (s, ST_EVENT_OTHER, "FINISHED_ROUND");
  text = summary (s, FALSE);
  g_assert_nonnull (strstr (text, "stacktrace: no raw-stack samples in this "
                            "input: record with --call-graph=dwarf\n"));
  g_assert_null (strstr (text, "total:"));
  g_assert_null (strstr (text, "no counterpart"));
  g_free (text);
  text = summary (s, TRUE);
  g_assert_nonnull (strstr (text, "1 event(s) have no counterpart in the "
                            "output format and were not written: "
                            "FINISHED_ROUND=1\n"));
  g_free (text);

  ev.kind = ST_EVENT_STACK_USER;
  st_stats_event (s, &ev, TRUE);
  st_stats_event (s, &ev, TRUE);
  st_stats_no_counterpart (s, ST_EVENT_MAP, "MMAP");
  text = summary (s, FALSE);
  g_assert_nonnull (strstr (text, "stacktrace: 2 raw-stack samples passed "
                            "through (not unwound)\n"));
  g_assert_nonnull (strstr (text, "2 event(s) have no counterpart in the "
                            "output format and were not written: "
                            "FINISHED_ROUND=1, MMAP=1\n"));
  g_free (text);
  st_stats_free (s);
}

/* A decimal comma locale must not leak into the numbers.  */
static void
test_locale (void)
{
  StStats *s = sample_stats ();

  if (setlocale (LC_NUMERIC, "de_DE.UTF-8") == NULL
      && setlocale (LC_NUMERIC, "fr_FR.UTF-8") == NULL)
    {
      g_test_skip ("no locale with a decimal comma");
      st_stats_free (s);
      return;
    }
  g_autofree char *text = st_stats_export (s, &run, ST_STATS_FORMAT_TEXT);
  setlocale (LC_NUMERIC, "C");
  assert_line (text, "success_rate_percent=69.86");
  st_stats_free (s);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/stats-export/text", test_text);
  g_test_add_func ("/stats-export/damage", test_damage);
  g_test_add_func ("/stats-export/json", test_json);
  g_test_add_func ("/stats-export/empty", test_empty);
  g_test_add_func ("/stats-export/priming", test_priming);
  g_test_add_func ("/stats-export/locale", test_locale);
  g_test_add_func ("/stats-export/summary-wording", test_summary_wording);
  return g_test_run ();
}
