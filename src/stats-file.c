/* The stats file's snapshots.  One walk over the fields feeds both formats: a
   nested name (cause, debuginfod, top) is a key prefix in the text format
   ("cause.no_cfi=3", "top.1.pid=42") and an object or array in JSON.  */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include <stacktrace-1/stacktrace.h>

#include "stats-file.h"

typedef struct
{
  GString *out;
  StStatsFormat format;
  GString *prefix;        /* text: the key prefix, e.g. "top.1." */
  GArray *prefix_lens;    /* text: prefix length before each level */
  gboolean first;         /* JSON: the next member needs no comma */
  int depth;              /* JSON: nesting, for indentation */
} Emitter;

static gboolean
is_text (const Emitter *e)
{
  return e->format == ST_STATS_FORMAT_TEXT;
}

/* Starts the member KEY (NULL: an array element).  */
static void
member (Emitter *e, const char *key)
{
  if (is_text (e))
    {
      g_string_append_printf (e->out, "%s%s=", e->prefix->str, key);
      return;
    }
  if (!e->first)
    g_string_append_c (e->out, ',');
  g_string_append_printf (e->out, "\n%*s", 2 * e->depth, "");
  if (key != NULL)
    g_string_append_printf (e->out, "\"%s\": ", key);
  e->first = FALSE;
}

static void
end_member (Emitter *e)
{
  if (is_text (e))
    g_string_append_c (e->out, '\n');
}

static void
put_u64 (Emitter *e, const char *key, uint64_t value)
{
  member (e, key);
  g_string_append_printf (e->out, "%" PRIu64, value);
  end_member (e);
}

static void
put_i64 (Emitter *e, const char *key, int64_t value)
{
  member (e, key);
  g_string_append_printf (e->out, "%" PRId64, value);
  end_member (e);
}

/* A percentage with two decimals, with a '.' whatever the locale.  */
static void
put_percent (Emitter *e, const char *key, double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  member (e, key);
  g_string_append (e->out, g_ascii_formatd (buf, sizeof buf, "%.2f", value));
  end_member (e);
}

/* Text values must stay on one line and JSON strings valid UTF-8.  */
static void
put_string (Emitter *e, const char *key, const char *value)
{
  g_autofree char *valid = g_utf8_make_valid (value, -1);

  member (e, key);
  if (!is_text (e))
    g_string_append_c (e->out, '"');
  for (const char *c = valid; *c != '\0'; c++)
    {
      unsigned char u = (unsigned char) *c;

      if (is_text (e))
        g_string_append_c (e->out, u < 0x20 || u == 0x7f ? '?' : *c);
      else if (u == '"' || u == '\\')
        g_string_append_printf (e->out, "\\%c", *c);
      else if (u < 0x20 || u == 0x7f)
        g_string_append_printf (e->out, "\\u%04x", u);
      else
        g_string_append_c (e->out, *c);
    }
  if (!is_text (e))
    g_string_append_c (e->out, '"');
  end_member (e);
}

/* Opens a nested object or array KEY, or (KEY NULL, INDEX > 0) the
   INDEXth element of the enclosing array.  */
static void
begin (Emitter *e, const char *key, guint index, gboolean array)
{
  if (is_text (e))
    {
      guint len = (guint) e->prefix->len;

      g_array_append_val (e->prefix_lens, len);
      if (key != NULL)
        g_string_append_printf (e->prefix, "%s.", key);
      else
        g_string_append_printf (e->prefix, "%u.", index);
      return;
    }
  member (e, key);
  g_string_append_c (e->out, array ? '[' : '{');
  e->depth++;
  e->first = TRUE;
}

static void
end (Emitter *e, gboolean array)
{
  if (is_text (e))
    {
      guint len = g_array_index (e->prefix_lens, guint,
                                 e->prefix_lens->len - 1);

      g_array_set_size (e->prefix_lens, e->prefix_lens->len - 1);
      g_string_truncate (e->prefix, len);
      return;
    }
  e->depth--;
  if (!e->first)
    g_string_append_printf (e->out, "\n%*s", 2 * e->depth, "");
  g_string_append_c (e->out, array ? ']' : '}');
  e->first = FALSE;
}

static uint64_t
not_unwound (const StCounters *c)
{
  return c->samples - c->complete;
}

/* Most samples not unwound to the root first; then most samples, then
   the lowest pid, so the order is stable.  */
static gint
by_offence (gconstpointer a, gconstpointer b)
{
  const StProcessCounters *x = a, *y = b;
  uint64_t nx = not_unwound (&x->counters), ny = not_unwound (&y->counters);

  if (nx != ny)
    return nx > ny ? -1 : 1;
  if (x->counters.samples != y->counters.samples)
    return x->counters.samples > y->counters.samples ? -1 : 1;
  return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void
put_top_offenders (Emitter *e, const StStatistics *stats)
{
  size_t n_procs = st_statistics_n_processes (stats);
  g_autoptr (GArray) procs = g_array_sized_new (FALSE, FALSE,
                                                sizeof (StProcessCounters),
                                                (guint) n_procs);
  guint n = 0;

  for (size_t i = 0; i < n_procs; i++)
    {
      StProcessCounters p;
      if (st_statistics_get_process (stats, i, &p) == ST_OK)
        g_array_append_val (procs, p);
    }
  g_array_sort (procs, by_offence);
  while (n < procs->len && n < ST_STATS_TOP_OFFENDERS
         && not_unwound (&g_array_index (procs, StProcessCounters,
                                         n).counters) > 0)
    n++;

  if (is_text (e))
    put_u64 (e, "top.count", n);
  begin (e, "top", 0, TRUE);
  for (guint i = 0; i < n; i++)
    {
      const StProcessCounters *p = &g_array_index (procs, StProcessCounters,
                                                   i);
      const StCounters *c = &p->counters;

      begin (e, NULL, i + 1, FALSE);
      put_i64 (e, "pid", p->pid);
      put_string (e, "comm", p->comm != NULL ? p->comm : "");
      put_u64 (e, "samples", c->samples);
      put_u64 (e, "not_unwound", not_unwound (c));
      put_u64 (e, "truncated", c->truncated);
      put_u64 (e, "failed", c->failed);
      put_percent (e, "success_rate_percent",
                   st_counters_success_percent (c, 2));
      end (e, FALSE);
    }
  end (e, TRUE);
}

/* The files that could not be used, most samples lost first.  */
static void
put_files (Emitter *e, const StStatistics *stats)
{
  StFileCounters t = { 0 };
  size_t n = MIN (st_statistics_n_unusable_files (stats),
                  ST_STATS_UNUSABLE_FILES);

  st_statistics_get_files (stats, &t);
  begin (e, "files", 0, FALSE);
  put_u64 (e, "modules", t.modules);
  put_u64 (e, "verified_build_id", t.verified_build_id);
  put_u64 (e, "verified_inode", t.verified_inode);
  put_u64 (e, "unverified", t.unverified);
  put_u64 (e, "unusable", t.unusable);
  put_u64 (e, "unusable_samples", t.unusable_samples);
  if (is_text (e))
    put_u64 (e, "unusable_list.count", n);
  begin (e, "unusable_list", 0, TRUE);
  for (size_t i = 0; i < n; i++)
    {
      StModuleFile f;
      if (st_statistics_get_unusable_file (stats, i, &f) != ST_OK)
        continue;
      begin (e, NULL, (guint) i + 1, FALSE);
      put_string (e, "path", f.name);
      put_string (e, "reason", f.problem);
      put_string (e, "detail", f.detail != NULL ? f.detail : "");
      put_u64 (e, "samples", f.samples);
      put_string (e, "advice", f.advice);
      end (e, FALSE);
    }
  end (e, TRUE);
  end (e, FALSE);
}

/* Damaged spots of the input by what was done about them (the kinds of
   the summary line), their bytes, and where the first was.  */
static void
put_damage (Emitter *e, const StStatistics *stats)
{
  static const char *const keys[] = {
    [ST_DAMAGE_OUTCOME_PASSED] = "passed",
    [ST_DAMAGE_OUTCOME_DROPPED] = "dropped",
    [ST_DAMAGE_OUTCOME_SKIPPED] = "skipped",
    [ST_DAMAGE_OUTCOME_CUT_OFF] = "cut_off",
  };
  StDamageCounters d = { 0 };

  st_statistics_get_damage (stats, &d);
  begin (e, "damage", 0, FALSE);
  put_u64 (e, "total", d.places);
  put_u64 (e, "first_offset", d.first_offset);
  for (size_t i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      g_autofree char *bytes = g_strconcat (keys[i], "_bytes", NULL);
      put_u64 (e, keys[i], d.count[i]);
      put_u64 (e, bytes, d.bytes[i]);
    }
  end (e, FALSE);
}

static void
put_time (Emitter *e, int64_t wall_time_ms)
{
  g_autoptr (GDateTime) t =
    g_date_time_new_from_unix_utc (wall_time_ms / 1000);
  g_autofree char *iso = t != NULL ? g_date_time_format (t, "%Y-%m-%dT%H:%M:%S")
                                   : g_strdup ("1970-01-01T00:00:00");
  g_autofree char *with_ms = g_strdup_printf ("%s.%03dZ", iso,
                                              (int) (wall_time_ms % 1000));

  put_i64 (e, "time_unix_ms", wall_time_ms);
  put_string (e, "time", with_ms);
}

static const char *
priming_name (StPrimePolicy policy)
{
  return policy == ST_PRIME_DROP ? "drop"
         : policy == ST_PRIME_DEFER ? "defer" : "sync";
}

char *
st_stats_file_text (const StStatistics *stats, const StStatsRun *run,
                    StStatsFormat format)
{
  StCounters t = { 0 };
  StPrimingCounters pr = { 0 };
  Emitter e = {
    .out = g_string_new (NULL),
    .format = format,
    .prefix = g_string_new (NULL),
    .prefix_lens = g_array_new (FALSE, FALSE, sizeof (guint)),
    .first = TRUE,
  };

  st_statistics_get_counters (stats, &t);
  st_statistics_get_priming (stats, &pr);
  if (!is_text (&e))
    {
      g_string_append_c (e.out, '{');
      e.depth = 1;
    }
  put_u64 (&e, "version", ST_STATS_EXPORT_VERSION);
  put_string (&e, "state", run->state);
  put_time (&e, run->wall_time_ms);
  put_i64 (&e, "uptime_ms", run->uptime_ms);
  put_u64 (&e, "input_bytes", t.input_bytes);
  put_u64 (&e, "events_in", t.records_in);
  put_u64 (&e, "events_out", t.records_out);
  put_u64 (&e, "samples", t.samples);
  put_u64 (&e, "unwound_to_root", t.complete);
  put_u64 (&e, "truncated", t.truncated);
  put_u64 (&e, "failed", t.failed);
  put_u64 (&e, "stitched", t.stitched);
  begin (&e, "sources", 0, FALSE);
  put_u64 (&e, "dwarf", t.complete - t.stitched - t.fp_chain);
  put_u64 (&e, "stitched", t.stitched);
  put_u64 (&e, "frame_pointer_chain", t.fp_chain);
  put_u64 (&e, "stitch_refused", t.stitch_refused);
  end (&e, FALSE);
  put_u64 (&e, "unprimed", t.unprimed);
  put_percent (&e, "success_rate_percent",
               st_counters_success_percent (&t, 2));
  put_u64 (&e, "user_frames", t.frames);
  put_u64 (&e, "frames_by_frame_pointer_step", t.fp_frames);
  put_u64 (&e, "sampled_frames_by_code", t.code_frames);
  begin (&e, "cause", 0, FALSE);
  /* Every cause the library names ("?": no such cause).  */
  for (int i = ST_STOP_NONE + 1; i < ST_STOP_CAUSES; i++)
    {
      if (strcmp (st_stop_cause_name (i), "?") == 0)
        continue;
      g_autofree char *name = g_strdup (st_stop_cause_name (i));
      g_strdelimit (name, "-", '_');
      put_u64 (&e, name, t.by_cause[i]);
    }
  end (&e, FALSE);
  put_damage (&e, stats);
  begin (&e, "debuginfod", 0, FALSE);
  put_u64 (&e, "queries", t.debuginfod_queries);
  put_u64 (&e, "found", t.debuginfod_found);
  end (&e, FALSE);
  begin (&e, "priming", 0, FALSE);
  put_string (&e, "mode", priming_name (pr.policy));
  put_u64 (&e, "threads", pr.threads);
  put_u64 (&e, "modules_prepared", pr.modules_prepared);
  put_u64 (&e, "modules_pending", pr.modules_pending);
  put_u64 (&e, "waits", pr.waits);
  put_u64 (&e, "deferred", pr.deferred);
  put_u64 (&e, "stalls", pr.stalls);
  put_u64 (&e, "forced", pr.forced);
  put_u64 (&e, "held_bytes", pr.held_bytes);
  put_u64 (&e, "cap_bytes", pr.cap_bytes);
  end (&e, FALSE);
  put_files (&e, stats);
  put_u64 (&e, "sampled_processes", st_statistics_n_processes (stats));
  put_top_offenders (&e, stats);
  if (!is_text (&e))
    g_string_append (e.out, "\n}\n");

  g_string_free (e.prefix, TRUE);
  g_array_free (e.prefix_lens, TRUE);
  return g_string_free (e.out, FALSE);
}
