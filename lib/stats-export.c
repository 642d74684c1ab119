/* Statistics snapshots.  One walk over the fields feeds both formats: a
   nested name (cause, debuginfod, top) is a key prefix in the text format
   ("cause.no_cfi=3", "top.1.pid=42") and an object or array in JSON.  */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "stats-export.h"

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
not_unwound (const StUnwindCounters *c)
{
  return c->samples - c->complete;
}

/* Most samples not unwound to the root first; then most samples, then
   the lowest pid, so the order is stable.  */
static gint
by_offence (gconstpointer a, gconstpointer b)
{
  const StProcessStats *x = *(StProcessStats *const *) a;
  const StProcessStats *y = *(StProcessStats *const *) b;
  uint64_t nx = not_unwound (&x->counters), ny = not_unwound (&y->counters);

  if (nx != ny)
    return nx > ny ? -1 : 1;
  if (x->counters.samples != y->counters.samples)
    return x->counters.samples > y->counters.samples ? -1 : 1;
  return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void
put_top_offenders (Emitter *e, const StStats *stats)
{
  GPtrArray *procs = st_stats_processes (stats);
  guint n = 0;

  g_ptr_array_sort (procs, by_offence);
  while (n < procs->len && n < ST_STATS_TOP_OFFENDERS
         && not_unwound (&((StProcessStats *) procs->pdata[n])->counters) > 0)
    n++;

  if (is_text (e))
    put_u64 (e, "top.count", n);
  begin (e, "top", 0, TRUE);
  for (guint i = 0; i < n; i++)
    {
      const StProcessStats *p = procs->pdata[i];
      const StUnwindCounters *c = &p->counters;

      begin (e, NULL, i + 1, FALSE);
      put_i64 (e, "pid", p->pid);
      put_string (e, "comm", p->comm != NULL ? p->comm : "");
      put_u64 (e, "samples", c->samples);
      put_u64 (e, "not_unwound", not_unwound (c));
      put_u64 (e, "truncated", c->truncated);
      put_u64 (e, "failed", c->failed);
      put_percent (e, "success_rate_percent",
                   st_unwind_success_shown (c, 2));
      end (e, FALSE);
    }
  end (e, TRUE);
  g_ptr_array_unref (procs);
}

/* The files that could not be used, most samples lost first.  */
static void
put_files (Emitter *e, const StFileReport *files)
{
  StFileReportTotals t = { 0 };
  GPtrArray *bad = files != NULL ? st_file_report_unusable (files)
                                 : g_ptr_array_new ();
  guint n = MIN (bad->len, ST_STATS_UNUSABLE_FILES);

  if (files != NULL)
    st_file_report_totals (files, &t);
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
  for (guint i = 0; i < n; i++)
    {
      const StFileEntry *f = bad->pdata[i];
      begin (e, NULL, i + 1, FALSE);
      put_string (e, "path", f->name);
      put_string (e, "reason", st_file_problem_name (f->problem));
      put_string (e, "detail", f->detail != NULL ? f->detail : "");
      put_u64 (e, "samples", f->samples);
      put_string (e, "advice", st_file_problem_advice (f->problem,
                                                       f->has_build_id));
      end (e, FALSE);
    }
  end (e, TRUE);
  end (e, FALSE);
  g_ptr_array_unref (bad);
}

/* Damaged spots of the input by what was done about them (the kinds of
   the summary line), their bytes, and where the first was.  */
static void
put_damage (Emitter *e, const StStats *stats)
{
  static const char *const keys[ST_DAMAGE_N] = {
    [ST_DAMAGE_PASSED] = "passed",
    [ST_DAMAGE_DROPPED] = "dropped",
    [ST_DAMAGE_SKIPPED] = "skipped",
    [ST_DAMAGE_TRUNCATED] = "cut_off",
  };

  begin (e, "damage", 0, FALSE);
  put_u64 (e, "total", st_stats_damaged (stats));
  put_u64 (e, "first_offset", st_stats_first_damage (stats));
  for (int i = 0; i < ST_DAMAGE_N; i++)
    {
      g_autofree char *bytes = g_strconcat (keys[i], "_bytes", NULL);
      put_u64 (e, keys[i], st_stats_damage_count (stats, i));
      put_u64 (e, bytes, st_stats_damage_bytes (stats, i));
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

char *
st_stats_export (const StStats *stats, const StStatsRun *run,
                 StStatsFormat format)
{
  const StUnwindCounters *t = st_stats_total (stats);
  GPtrArray *procs = st_stats_processes (stats);
  Emitter e = {
    .out = g_string_new (NULL),
    .format = format,
    .prefix = g_string_new (NULL),
    .prefix_lens = g_array_new (FALSE, FALSE, sizeof (guint)),
    .first = TRUE,
  };

  if (!is_text (&e))
    {
      g_string_append_c (e.out, '{');
      e.depth = 1;
    }
  put_u64 (&e, "version", ST_STATS_EXPORT_VERSION);
  put_string (&e, "state", run->state);
  put_time (&e, run->wall_time_ms);
  put_i64 (&e, "uptime_ms", run->uptime_ms);
  put_u64 (&e, "input_bytes", run->input_bytes);
  put_u64 (&e, "events_in", st_stats_events_in (stats));
  put_u64 (&e, "events_out", st_stats_events_out (stats));
  put_u64 (&e, "samples", t->samples);
  put_u64 (&e, "unwound_to_root", t->complete);
  put_u64 (&e, "truncated", t->truncated);
  put_u64 (&e, "failed", t->failed);
  put_u64 (&e, "stitched", t->stitched);
  begin (&e, "sources", 0, FALSE);
  put_u64 (&e, "dwarf", t->complete - t->stitched - t->fp_chain);
  put_u64 (&e, "stitched", t->stitched);
  put_u64 (&e, "frame_pointer_chain", t->fp_chain);
  put_u64 (&e, "stitch_refused", t->stitch_refused);
  end (&e, FALSE);
  put_u64 (&e, "unprimed", t->unprimed);
  put_percent (&e, "success_rate_percent", st_unwind_success_shown (t, 2));
  put_u64 (&e, "user_frames", t->frames);
  put_u64 (&e, "frames_by_frame_pointer_step", t->fp_frames);
  put_u64 (&e, "sampled_frames_by_code", t->code_frames);
  begin (&e, "cause", 0, FALSE);
  for (int i = 1; i < ST_CAUSE_N; i++)
    {
      g_autofree char *name = g_strdup (st_unwind_cause_name (i));
      g_strdelimit (name, "-", '_');
      put_u64 (&e, name, t->by_cause[i]);
    }
  end (&e, FALSE);
  put_damage (&e, stats);
  begin (&e, "debuginfod", 0, FALSE);
  put_u64 (&e, "queries", run->debuginfod.queries);
  put_u64 (&e, "found", run->debuginfod.found);
  end (&e, FALSE);
  const StPrimingStats *pr = st_stats_priming (stats);
  begin (&e, "priming", 0, FALSE);
  put_string (&e, "mode", pr->mode);
  put_u64 (&e, "threads", pr->threads);
  put_u64 (&e, "modules_prepared", pr->modules_prepared);
  put_u64 (&e, "modules_pending", pr->modules_pending);
  put_u64 (&e, "waits", pr->waits);
  put_u64 (&e, "deferred", pr->deferred);
  put_u64 (&e, "stalls", pr->stalls);
  put_u64 (&e, "forced", pr->forced);
  put_u64 (&e, "held_bytes", pr->held);
  put_u64 (&e, "cap_bytes", pr->cap);
  end (&e, FALSE);
  put_files (&e, st_stats_file_report (stats));
  put_u64 (&e, "sampled_processes", procs->len);
  put_top_offenders (&e, stats);
  if (!is_text (&e))
    g_string_append (e.out, "\n}\n");

  g_ptr_array_unref (procs);
  g_string_free (e.prefix, TRUE);
  g_array_free (e.prefix_lens, TRUE);
  return g_string_free (e.out, FALSE);
}
