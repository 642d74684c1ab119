/* The filter loop.  A kernel-only SAMPLE frame of a capture is held back
   for one event: if the next is the STACK_USER frame of the same sample
   (our convention for carrying a raw-stack sample's kernel part), the two
   become one unwound sample.  */
#include "config.h"

#include <inttypes.h>
#include <string.h>
#include <stdio.h>

#include "format/domain.h"
#include "model/module-cache.h"
#include "model/process-table.h"
#include "pipeline.h"
#include "report/chain-dump.h"
#include "unwind/dwfl-unwinder.h"
#include "unwind/stitcher.h"
#include "reorder.h"

/* Bound of the events buffered to put a perf round in time order.  */
#define ST_REORDER_MAX_BYTES (512u << 20)

/* Damage messages printed one by one; later ones are only counted.  */
#define ST_DAMAGE_MESSAGES_MAX 20

/* Threads whose last complete chain is kept for stitching.  */
#define ST_STITCH_MAX_THREADS 4096

struct StPipeline
{
  StReader *reader;
  StWriter *writer;
  StPipelineOptions options;
  StStats *stats;
  StCallgraph *callgraph;
  StProcessTable *processes;
  StModuleCache *modules;
  StDwflUnwinder *unwinder;
  StStitcher *stitcher;       /* NULL when stitching is off */

  /* The held-back kernel-only SAMPLE (a copy), or NULL.  */
  StEvent *held;
  StReorder *reorder;         /* perf input: time order for processing */

  uint64_t ips[ST_UNWIND_MAX_FRAMES];
  uint64_t sps[ST_UNWIND_MAX_FRAMES];
};

/* Damaged input is never silent: counted, and printed up to a limit.  */
static void
on_damage (const StDamage *d, void *user)
{
  StPipeline *p = user;
  uint64_t n = st_stats_damaged (p->stats);

  st_stats_damage (p->stats, d);
  if (p->options.messages == NULL)
    return;
  if (n < ST_DAMAGE_MESSAGES_MAX)
    fprintf (p->options.messages, "stacktrace: %s\n", d->message);
  else if (n == ST_DAMAGE_MESSAGES_MAX)
    fprintf (p->options.messages, "stacktrace: more damaged input; further "
             "messages are suppressed (the statistics count them)\n");
}

StPipeline *
st_pipeline_new (StReader *reader, StWriter *writer,
                 const StPipelineOptions *options)
{
  StPipeline *p = g_new0 (StPipeline, 1);
  StDamageHandler damage = { on_damage, p };

  p->reader = reader;
  p->writer = writer;
  p->options = *options;
  p->stats = st_stats_new ();
  if (options->callgraph)
    p->callgraph = st_callgraph_new ();
  p->processes = st_process_table_new ();
  p->modules = st_module_cache_new (options->symfs);
  p->unwinder = st_dwfl_unwinder_new (p->modules);
  if (options->stitch)
    p->stitcher = st_stitcher_new (ST_STITCH_MAX_THREADS);
  st_reader_set_damage_handler (reader, &damage);
  return p;
}

void
st_pipeline_free (StPipeline *p)
{
  if (p == NULL)
    return;
  /* Processes hold Dwfls that reference the cached Elfs: free them first.  */
  st_process_table_free (p->processes);
  st_dwfl_unwinder_free (p->unwinder);
  st_module_cache_free (p->modules);
  st_stitcher_free (p->stitcher);
  st_callgraph_free (p->callgraph);
  st_stats_free (p->stats);
  g_free (p->held);
  st_reorder_free (p->reorder);
  g_free (p);
}

/* What processing a raw-stack sample leaves for its emission.  */
typedef struct
{
  char *chain_line;     /* the --chains line, symbolized at its time */
  uint32_t n_ips;
  uint64_t ips[];
} Unwound;

static void
pass (StPipeline *p, const StEvent *ev)
{
  gboolean written = FALSE;

  if (p->writer != NULL)
    {
      written = st_writer_event (p->writer, ev);
      if (!written)
        st_stats_no_counterpart (p->stats, ev);
    }
  st_stats_event (p->stats, ev, written);
}

static gboolean
is_kernel_only (const StEvent *ev)
{
  if (ev->kind != ST_EVENT_SAMPLE || ev->source != ST_FORMAT_SYSPROF
      || ev->sample.n_ips == 0 || ev->sample.ips[0] != ST_CONTEXT_KERNEL)
    return FALSE;
  for (uint32_t i = 0; i < ev->sample.n_ips; i++)
    if (ev->sample.ips[i] == ST_CONTEXT_USER)
      return FALSE;
  return TRUE;
}

static void
release_held (StPipeline *p)
{
  if (p->held != NULL)
    pass (p, p->held);
  g_clear_pointer (&p->held, g_free);
}

static void
debug_line (StPipeline *p, const StEvent *ev, const StUnwindResult *r)
{
  fprintf (p->options.debug, "stacktrace: offset %" PRIu64 ": pid %d tid %d "
           "time %" PRId64 ": %s after %u frame(s) (%s)%s%s\n", ev->offset,
           ev->pid, ev->tid, ev->time,
           r->status == ST_UNWIND_FAILED ? "failed" : "truncated", r->n_ips,
           st_unwind_cause_name (r->cause), r->detail ? ": " : "",
           r->detail ? r->detail : "");
}

/* Completes a chain cut by the end of the stack copy from the thread's
   last complete chain, and remembers complete chains.  */
static void
stitch (StPipeline *p, const StProcess *proc, const StEvent *ev,
        StUnwindResult *r)
{
  if (r->status == ST_UNWIND_TRUNCATED && r->cause == ST_CAUSE_STACK_END)
    {
      uint32_t n = r->n_ips;
      r->n_stitched = st_stitcher_stitch (p->stitcher, ev->pid, ev->tid,
                                          proc->exec_count, p->ips, p->sps,
                                          &n, ST_UNWIND_MAX_FRAMES);
      if (r->n_stitched > 0)
        {
          r->n_ips = n;
          r->status = ST_UNWIND_COMPLETE;
          r->cause = ST_CAUSE_NONE;
        }
    }
  if (r->status == ST_UNWIND_COMPLETE)
    st_stitcher_remember (p->stitcher, ev->pid, ev->tid, proc->exec_count,
                          p->ips, p->sps, r->n_ips);
}

static Unwound *
unwind (StPipeline *p, const StEvent *raw_ev)
{
  StProcess *proc = st_process_table_get (p->processes, raw_ev->pid);
  StUnwindResult r;

  st_process_table_use_unwind_state (p->processes, proc);
  StEvent cut;
  const StEvent *ev = raw_ev;

  if (p->options.truncate_stack > 0
      && raw_ev->stack.stack_size > p->options.truncate_stack)
    {
      /* For testing stitching: as if the recorder had copied less.  */
      cut = *raw_ev;
      cut.stack.stack_size = p->options.truncate_stack;
      ev = &cut;
    }
  st_dwfl_unwinder_unwind (p->unwinder, proc, ev, p->ips, p->sps,
                           ST_UNWIND_MAX_FRAMES, &r);
  if (p->stitcher != NULL)
    stitch (p, proc, ev, &r);
  st_stats_unwind (p->stats, ev->pid, proc->comm, &r);
  if (r.status != ST_UNWIND_COMPLETE && p->options.debug != NULL)
    debug_line (p, ev, &r);

  Unwound *u = g_malloc (sizeof *u + r.n_ips * sizeof (uint64_t));
  u->n_ips = r.n_ips;
  memcpy (u->ips, p->ips, r.n_ips * sizeof (uint64_t));
  u->chain_line = NULL;

  /* Symbolize now: the process's mappings are those of the sample's time.  */
  Dwfl *dwfl = NULL;
  if (p->options.chains != NULL || p->callgraph != NULL)
    dwfl = st_dwfl_unwinder_dwfl (p->unwinder, proc);
  if (p->options.chains != NULL)
    u->chain_line = st_chain_dump_line (dwfl, ev, p->ips, r.n_ips);
  if (p->callgraph != NULL)
    st_callgraph_add (p->callgraph, dwfl, proc->comm, p->ips, r.n_ips);
  return u;
}

/* In time order: the event's effect on the process model, and unwinding.  */
static void *
process_event (const StEvent *ev, void *user)
{
  StPipeline *p = user;

  st_process_table_apply (p->processes, ev);
  if (p->stitcher != NULL && ev->kind == ST_EVENT_EXIT)
    st_stitcher_forget_thread (p->stitcher, ev->tid);
  if (ev->kind == ST_EVENT_STACK_USER && p->options.mode == ST_MODE_NAIVE)
    return unwind (p, ev);
  return NULL;
}

static void
emit_unwound (StPipeline *p, const StEvent *ev, Unwound *u)
{
  StEvent merged = *ev;

  if (p->held != NULL && p->held->pid == ev->pid && p->held->tid == ev->tid
      && p->held->time == ev->time && ev->stack.n_callchain == 0)
    {
      merged.stack.callchain = p->held->sample.ips;
      merged.stack.n_callchain = p->held->sample.n_ips;
      st_stats_event (p->stats, p->held, FALSE);
    }
  else
    release_held (p);
  if (u->chain_line != NULL)
    fputs (u->chain_line, p->options.chains);
  if (p->writer != NULL)
    st_writer_unwound (p->writer, &merged, u->ips, u->n_ips);
  st_stats_event (p->stats, ev, p->writer != NULL);
  g_clear_pointer (&p->held, g_free);
}

/* In input order: writing.  */
static void
emit_event (const StEvent *ev, void *result, void *user)
{
  StPipeline *p = user;
  Unwound *u = result;

  if (u != NULL)
    {
      emit_unwound (p, ev, u);
      g_free (u->chain_line);
      g_free (u);
      return;
    }
  release_held (p);
  if (p->options.mode == ST_MODE_NAIVE && is_kernel_only (ev))
    p->held = st_event_copy (ev);   /* may be the kernel part of a raw stack */
  else
    pass (p, ev);
}

static void
handle (StPipeline *p, const StEvent *ev)
{
  if (p->reorder != NULL)
    st_reorder_push (p->reorder, ev);
  else
    emit_event (ev, process_event (ev, p), p);
}

gboolean
st_pipeline_run (StPipeline *p, GError **error)
{
  StEvent ev;
  int rc;
  uint64_t n = 0;

  /* perf.data is time-ordered only per CPU; a capture is written in
     order, and so is what we convert into one.  */
  if (st_reader_format (p->reader) == ST_FORMAT_PERF)
    p->reorder = st_reorder_new (process_event, emit_event, p,
                                 ST_REORDER_MAX_BYTES,
                                 p->options.output_format == ST_FORMAT_SYSPROF);

  while ((rc = st_reader_next (p->reader, &ev, error)) > 0)
    {
      handle (p, &ev);
      if ((++n & 1023) == 0 && p->writer != NULL
          && st_writer_failed (p->writer))
        break;
    }
  if (p->reorder != NULL)
    st_reorder_flush (p->reorder);
  release_held (p);

  gboolean ok = rc >= 0;
  if (p->writer != NULL)
    {
      /* Report the write error unless a read error came first.  */
      GError *werr = NULL;
      if (!st_writer_finish (p->writer, &werr))
        {
          if (ok)
            g_propagate_error (error, werr);
          else
            g_error_free (werr);
          ok = FALSE;
        }
    }
  if (p->reorder != NULL && st_reorder_overflows (p->reorder) > 0)
    fprintf (stderr, "stacktrace: warning: a perf round exceeded %u MiB; "
             "%u time(s) events were processed in input order\n",
             ST_REORDER_MAX_BYTES >> 20, st_reorder_overflows (p->reorder));
  return ok;
}

const StStats *
st_pipeline_stats (const StPipeline *p)
{
  return p->stats;
}

const StCallgraph *
st_pipeline_callgraph (const StPipeline *p)
{
  return p->callgraph;
}
