/* StStatistics: a run's statistics copied out of the library's own
   (stats.h, the file report, debuginfod's counts) into plain records
   that own their strings, so that the snapshot outlives the run and
   can be read on any thread.  */
#include "config.h"

#include <string.h>

#include "api/api-private.h"
#include "model/file-report.h"
#include "report/callgraph-summary.h"

typedef struct
{
  char *name, *path, *detail;
  StFileSource source;
  StFileVerification verification;
  StFileProblem problem;
  gboolean has_build_id;
  gboolean data_file;
  uint64_t samples;
} FileCopy;

typedef struct
{
  int32_t pid;
  char *comm;
  StCounters counters;
} ProcessCopy;

struct StStatistics
{
  gint refs;                 /* atomic: the stream keeps its final one */
  StCounters counters;
  StDamageCounters damage;
  StPrimingCounters priming;
  StFileCounters files;
  GArray *all_files;         /* FileCopy, by name */
  GArray *unusable;          /* indexes into ALL_FILES, most lost first */
  GArray *processes;         /* ProcessCopy, most samples first */
  StCounters others;
  StEngineCounters engine;
  StRecordCounters records;
  GPtrArray *not_converted;  /* names (static strings), by name */
  GArray *not_converted_counts;  /* uint64_t, the same order */
};

typedef struct
{
  const char *name;          /* interned */
  uint32_t depth;
  uint64_t total, self;
} NodeCopy;

struct StCallGraph
{
  gint refs;                 /* atomic: the stream keeps its final one */
  uint64_t samples;
  GArray *nodes;             /* NodeCopy, depth first */
};

/* The unwinding fields of StCounters from the library's counters.  */
static void
unwind_counters (const StUnwindCounters *t, StCounters *out)
{
  out->samples = t->samples;
  out->complete = t->complete;
  out->truncated = t->truncated;
  out->failed = t->failed;
  out->frames = t->frames;
  out->stitched = t->stitched;
  out->unprimed = t->unprimed;
  for (int i = 0; i < ST_CAUSE_N && i < ST_STOP_CAUSES; i++)
    out->by_cause[i] = t->by_cause[i];
  out->fp_chain = t->fp_chain;
  out->stitch_refused = t->stitch_refused;
  out->fp_frames = t->fp_frames;
  out->code_frames = t->code_frames;
}

void
st_api_counters (const StStats *stats, StCounters *out)
{
  memset (out, 0, sizeof *out);
  unwind_counters (st_stats_total (stats), out);
  out->records_in = st_stats_events_in (stats);
  out->records_out = st_stats_events_out (stats);
  out->damaged = st_stats_damaged (stats);
}

static void
copy_damage (const StStats *stats, StDamageCounters *out)
{
  /* The public outcomes are the library's actions, in its order.  */
  G_STATIC_ASSERT (ST_DAMAGE_PASSED == (int) ST_DAMAGE_OUTCOME_PASSED
                   && ST_DAMAGE_DROPPED == (int) ST_DAMAGE_OUTCOME_DROPPED
                   && ST_DAMAGE_SKIPPED == (int) ST_DAMAGE_OUTCOME_SKIPPED
                   && ST_DAMAGE_TRUNCATED == (int) ST_DAMAGE_OUTCOME_CUT_OFF
                   && (int) ST_DAMAGE_N <= (int) ST_DAMAGE_OUTCOMES);

  out->places = st_stats_damaged (stats);
  out->first_offset = st_stats_first_damage (stats);
  for (int i = 0; i < ST_DAMAGE_N; i++)
    {
      out->count[i] = st_stats_damage_count (stats, i);
      out->bytes[i] = st_stats_damage_bytes (stats, i);
    }
}

static void
copy_engine (const StUnwindCounters *t, StEngineCounters *out)
{
  /* The public reasons are the library's, in its order.  */
  G_STATIC_ASSERT (ST_FALLBACK_ARCH == (int) ST_HANDOVER_ARCH
                   && ST_FALLBACK_EXPRESSION == (int) ST_HANDOVER_EXPRESSION
                   && ST_FALLBACK_SIGNAL == (int) ST_HANDOVER_SIGNAL_FRAME
                   && ST_FALLBACK_OTHER == (int) ST_HANDOVER_OTHER
                   && (int) ST_FALLBACK_N <= (int) ST_HANDOVER_REASONS);

  out->by_rules = t->by_path[ST_PATH_RULES];
  out->by_lean_walk = t->lean;
  out->handed_over = t->by_path[ST_PATH_FALLBACK];
  out->by_fp_step = t->fp_frames;
  for (int i = 0; i < ST_FALLBACK_N; i++)
    out->handed_over_by_reason[i] = t->by_fallback[i];
}

static void
copy_records (const StStats *stats, StStatistics *st)
{
  StStatsRecords r;
  GPtrArray *names = st_stats_no_counterpart_names (stats);

  st_stats_records (stats, &r);
  st->records.raw_stack_samples = r.raw_stacks_in;
  st->records.callchain_samples = r.with_chain;
  st->records.joined = r.joined;
  st->records.lost_records = r.lost_records;
  st->records.lost_by_recorder = r.lost_by_recorder;
  st->records.not_converted = r.no_counterpart;
  st->records.not_converted_data = r.data_left_out;
  /* The names are static strings of the readers: not copied.  */
  st->not_converted = names;
  st->not_converted_counts = g_array_sized_new (FALSE, FALSE,
                                                sizeof (uint64_t),
                                                names->len);
  for (guint i = 0; i < names->len; i++)
    {
      uint64_t n = st_stats_no_counterpart_count (stats, names->pdata[i]);
      g_array_append_val (st->not_converted_counts, n);
    }
}

static void
copy_priming (const StPrimingStats *p, StPrimingCounters *out)
{
  out->policy = g_strcmp0 (p->mode, "drop") == 0 ? ST_PRIME_DROP
                : g_strcmp0 (p->mode, "defer") == 0 ? ST_PRIME_DEFER
                : ST_PRIME_INLINE;
  out->threads = p->threads;
  out->modules_prepared = p->modules_prepared;
  out->modules_pending = p->modules_pending;
  out->waits = p->waits;
  out->deferred = p->deferred;
  out->stalls = p->stalls;
  out->forced = p->forced;
  out->cap_bytes = p->cap;
  out->held_bytes = p->held;
  out->held_max_bytes = p->held_max;
}

static void
clear_file (gpointer data)
{
  FileCopy *f = data;

  g_free (f->name);
  g_free (f->path);
  g_free (f->detail);
}

static void
clear_process (gpointer data)
{
  g_free (((ProcessCopy *) data)->comm);
}

static void
copy_files (const StFileReport *report, StStatistics *st)
{
  StFileReportTotals t = { 0 };

  if (report == NULL)
    return;
  st_file_report_totals (report, &t);
  st->files.modules = t.modules;
  st->files.verified_build_id = t.verified_build_id;
  st->files.verified_inode = t.verified_inode;
  st->files.unverified = t.unverified;
  st->files.unusable = t.unusable;
  st->files.unusable_samples = t.unusable_samples;
  st->files.data_files = t.data_files;
  st->files.not_listed = t.not_listed;

  GPtrArray *all = st_file_report_all (report);
  GHashTable *index_of = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < all->len; i++)
    {
      const StFileEntry *e = all->pdata[i];
      FileCopy f = {
        .name = g_strdup (e->name),
        .path = g_strdup (e->path),
        .detail = g_strdup (e->detail),
        .source = e->source,
        .verification = e->verification,
        .problem = e->problem,
        .has_build_id = e->has_build_id,
        .data_file = st_file_entry_is_data_file (e),
        .samples = e->samples,
      };
      g_array_append_val (st->all_files, f);
      g_hash_table_insert (index_of, (gpointer) e, GUINT_TO_POINTER (i));
    }
  GPtrArray *bad = st_file_report_unusable (report);
  for (guint i = 0; i < bad->len; i++)
    {
      guint index = GPOINTER_TO_UINT (g_hash_table_lookup (index_of,
                                                           bad->pdata[i]));
      g_array_append_val (st->unusable, index);
    }
  g_ptr_array_unref (bad);
  g_hash_table_unref (index_of);
  g_ptr_array_unref (all);
}

static gint
by_samples_desc (gconstpointer a, gconstpointer b)
{
  const ProcessCopy *x = a, *y = b;

  if (x->counters.samples != y->counters.samples)
    return x->counters.samples > y->counters.samples ? -1 : 1;
  return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void
copy_processes (const StStats *stats, StStatistics *st)
{
  GPtrArray *procs = st_stats_processes (stats);

  for (guint i = 0; i < procs->len; i++)
    {
      const StProcessStats *p = procs->pdata[i];
      ProcessCopy c = { .pid = p->pid, .comm = g_strdup (p->comm) };
      unwind_counters (&p->counters, &c.counters);
      g_array_append_val (st->processes, c);
    }
  g_array_sort (st->processes, by_samples_desc);
  g_ptr_array_unref (procs);
  unwind_counters (&st_stats_others (stats)->counters, &st->others);
}

StStatistics *
st_api_statistics_new (const StStats *stats,
                       const StDebuginfodStats *debuginfod,
                       uint64_t input_bytes)
{
  StStatistics *st = g_new0 (StStatistics, 1);

  st->refs = 1;
  st->all_files = g_array_new (FALSE, FALSE, sizeof (FileCopy));
  g_array_set_clear_func (st->all_files, clear_file);
  st->unusable = g_array_new (FALSE, FALSE, sizeof (guint));
  st->processes = g_array_new (FALSE, FALSE, sizeof (ProcessCopy));
  g_array_set_clear_func (st->processes, clear_process);

  st_api_counters (stats, &st->counters);
  st->counters.input_bytes = input_bytes;
  if (debuginfod != NULL)
    {
      st->counters.debuginfod_queries = debuginfod->queries;
      st->counters.debuginfod_found = debuginfod->found;
    }
  copy_damage (stats, &st->damage);
  copy_priming (st_stats_priming (stats), &st->priming);
  copy_files (st_stats_file_report (stats), st);
  copy_processes (stats, st);
  copy_engine (st_stats_total (stats), &st->engine);
  copy_records (stats, st);
  return st;
}

StStatistics *
st_api_statistics_ref (StStatistics *st)
{
  g_atomic_int_inc (&st->refs);
  return st;
}

void
st_statistics_free (StStatistics *st)
{
  if (st == NULL || !g_atomic_int_dec_and_test (&st->refs))
    return;
  g_array_unref (st->all_files);
  g_array_unref (st->unusable);
  g_array_unref (st->processes);
  g_ptr_array_unref (st->not_converted);
  g_array_unref (st->not_converted_counts);
  g_free (st);
}

double
st_counters_success_percent (const StCounters *c, unsigned decimals)
{
  if (c == NULL)
    return 100.0;
  return st_success_percent (c->complete, c->samples, decimals);
}

int
st_statistics_get_counters (const StStatistics *st, StCounters *out)
{
  if (st == NULL || out == NULL)
    return ST_E_INVALID;
  *out = st->counters;
  return ST_OK;
}

int
st_statistics_get_damage (const StStatistics *st, StDamageCounters *out)
{
  if (st == NULL || out == NULL)
    return ST_E_INVALID;
  *out = st->damage;
  return ST_OK;
}

int
st_statistics_get_priming (const StStatistics *st, StPrimingCounters *out)
{
  if (st == NULL || out == NULL)
    return ST_E_INVALID;
  *out = st->priming;
  return ST_OK;
}

int
st_statistics_get_engine (const StStatistics *st, StEngineCounters *out)
{
  if (st == NULL || out == NULL)
    return ST_E_INVALID;
  *out = st->engine;
  return ST_OK;
}

int
st_statistics_get_records (const StStatistics *st, StRecordCounters *out)
{
  if (st == NULL || out == NULL)
    return ST_E_INVALID;
  *out = st->records;
  return ST_OK;
}

size_t
st_statistics_n_not_converted (const StStatistics *st)
{
  return st != NULL ? st->not_converted->len : 0;
}

int
st_statistics_get_not_converted (const StStatistics *st, size_t index,
                                 const char **name, uint64_t *count)
{
  if (st == NULL || name == NULL || count == NULL
      || index >= st->not_converted->len)
    return ST_E_INVALID;
  *name = st->not_converted->pdata[index];
  *count = g_array_index (st->not_converted_counts, uint64_t, index);
  return ST_OK;
}

const char *
st_handover_reason_name (int reason)
{
  if (reason <= ST_FALLBACK_NONE || reason >= ST_FALLBACK_N)
    return "?";
  return st_fallback_reason_name ((StFallbackReason) reason);
}

static void
add_node (const char *name, unsigned depth, uint64_t total, uint64_t self,
          void *data)
{
  NodeCopy n = { name, depth, total, self };

  g_array_append_val ((GArray *) data, n);
}

StCallGraph *
st_api_call_graph_new (const StCallgraph *g)
{
  StCallGraph *copy = g_new0 (StCallGraph, 1);

  copy->refs = 1;
  copy->nodes = g_array_new (FALSE, FALSE, sizeof (NodeCopy));
  copy->samples = st_callgraph_samples (g);
  /* Names are interned for the process's life: not copied.  */
  st_callgraph_walk (g, add_node, copy->nodes);
  return copy;
}

StCallGraph *
st_api_call_graph_ref (StCallGraph *g)
{
  g_atomic_int_inc (&g->refs);
  return g;
}

void
st_call_graph_free (StCallGraph *g)
{
  if (g == NULL || !g_atomic_int_dec_and_test (&g->refs))
    return;
  g_array_unref (g->nodes);
  g_free (g);
}

uint64_t
st_call_graph_samples (const StCallGraph *g)
{
  return g != NULL ? g->samples : 0;
}

size_t
st_call_graph_n_nodes (const StCallGraph *g)
{
  return g != NULL ? g->nodes->len : 0;
}

int
st_call_graph_get_node (const StCallGraph *g, size_t index,
                        StCallGraphNode *out)
{
  if (g == NULL || out == NULL || index >= g->nodes->len)
    return ST_E_INVALID;
  const NodeCopy *n = &g_array_index (g->nodes, NodeCopy, index);
  memset (out, 0, sizeof *out);
  out->name = n->name;
  out->depth = n->depth;
  out->total = n->total;
  out->self = n->self;
  return ST_OK;
}

int
st_statistics_get_files (const StStatistics *st, StFileCounters *out)
{
  if (st == NULL || out == NULL)
    return ST_E_INVALID;
  *out = st->files;
  return ST_OK;
}

static void
public_file (const FileCopy *f, StModuleFile *out)
{
  gboolean usable = f->problem == ST_FILE_OK;

  memset (out, 0, sizeof *out);
  out->name = f->name;
  out->path = f->path;
  out->source = usable ? st_file_source_name (f->source) : NULL;
  out->verification = usable ? st_file_verification_name (f->verification)
                             : NULL;
  out->problem = usable ? NULL : st_file_problem_name (f->problem);
  out->detail = f->detail;
  out->advice = usable ? NULL : st_file_problem_advice (f->problem,
                                                        f->has_build_id);
  out->samples = f->samples;
  out->data_file = f->data_file;
}

size_t
st_statistics_n_files (const StStatistics *st)
{
  return st != NULL ? st->all_files->len : 0;
}

int
st_statistics_get_file (const StStatistics *st, size_t index,
                        StModuleFile *out)
{
  if (st == NULL || out == NULL || index >= st->all_files->len)
    return ST_E_INVALID;
  public_file (&g_array_index (st->all_files, FileCopy, index), out);
  return ST_OK;
}

size_t
st_statistics_n_unusable_files (const StStatistics *st)
{
  return st != NULL ? st->unusable->len : 0;
}

int
st_statistics_get_unusable_file (const StStatistics *st, size_t index,
                                 StModuleFile *out)
{
  if (st == NULL || out == NULL || index >= st->unusable->len)
    return ST_E_INVALID;
  public_file (&g_array_index (st->all_files, FileCopy,
                               g_array_index (st->unusable, guint, index)),
               out);
  return ST_OK;
}

size_t
st_statistics_n_processes (const StStatistics *st)
{
  return st != NULL ? st->processes->len : 0;
}

int
st_statistics_get_process (const StStatistics *st, size_t index,
                           StProcessCounters *out)
{
  if (st == NULL || out == NULL || index >= st->processes->len)
    return ST_E_INVALID;
  const ProcessCopy *p = &g_array_index (st->processes, ProcessCopy, index);
  memset (out, 0, sizeof *out);
  out->pid = p->pid;
  out->comm = p->comm;
  out->counters = p->counters;
  return ST_OK;
}

int
st_statistics_get_other_processes (const StStatistics *st, StCounters *out)
{
  if (st == NULL || out == NULL)
    return ST_E_INVALID;
  *out = st->others;
  return ST_OK;
}
