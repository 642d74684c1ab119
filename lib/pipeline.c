/* The filter loop.  A kernel-only SAMPLE frame of a capture is held back
   for one event: if the next is the STACK_USER frame of the same sample
   (our convention for carrying a raw-stack sample's kernel part), the two
   become one unwound sample.  */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "format/domain.h"
#include "model/module-cache.h"
#include "model/process-table.h"
#include "pipeline.h"
#include "report/chain-dump.h"
#include "unwind/dwfl-unwinder.h"
#include "unwind/stitcher.h"

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

  /* The held-back kernel-only SAMPLE: a copy of the event and its frame.  */
  gboolean held;
  StEvent held_event;
  GByteArray *held_raw;

  uint64_t ips[ST_UNWIND_MAX_FRAMES];
  uint64_t sps[ST_UNWIND_MAX_FRAMES];
};

StPipeline *
st_pipeline_new (StReader *reader, StWriter *writer,
                 const StPipelineOptions *options)
{
  StPipeline *p = g_new0 (StPipeline, 1);

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
  p->held_raw = g_byte_array_new ();
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
  g_byte_array_unref (p->held_raw);
  g_free (p);
}

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
hold (StPipeline *p, const StEvent *ev)
{
  g_byte_array_set_size (p->held_raw, 0);
  g_byte_array_append (p->held_raw, ev->raw, ev->raw_len);
  p->held_event = *ev;
  p->held_event.raw = p->held_raw->data;
  p->held_event.sample.ips = (const uint64_t *)
    (p->held_raw->data + ((const uint8_t *) ev->sample.ips - ev->raw));
  p->held = TRUE;
}

static void
release_held (StPipeline *p)
{
  if (p->held)
    pass (p, &p->held_event);
  p->held = FALSE;
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

static void
unwind (StPipeline *p, const StEvent *raw_ev)
{
  StProcess *proc = st_process_table_get (p->processes, raw_ev->pid);
  StUnwindResult r;
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

  Dwfl *dwfl = NULL;
  if (p->options.chains != NULL || p->callgraph != NULL)
    dwfl = st_dwfl_unwinder_dwfl (p->unwinder, proc);
  if (p->options.chains != NULL)
    st_chain_dump_line (p->options.chains, dwfl, ev, p->ips, r.n_ips);
  if (p->callgraph != NULL)
    st_callgraph_add (p->callgraph, dwfl, proc->comm, p->ips, r.n_ips);

  if (p->writer != NULL)
    st_writer_unwound (p->writer, ev, p->ips, r.n_ips);
  st_stats_event (p->stats, ev, p->writer != NULL);
}

static void
handle (StPipeline *p, const StEvent *ev)
{
  st_process_table_apply (p->processes, ev);
  if (p->stitcher != NULL && ev->kind == ST_EVENT_EXIT)
    st_stitcher_forget_thread (p->stitcher, ev->tid);

  if (p->options.mode != ST_MODE_NAIVE)
    {
      pass (p, ev);
      return;
    }

  if (ev->kind == ST_EVENT_STACK_USER)
    {
      StEvent merged = *ev;
      if (p->held && p->held_event.pid == ev->pid
          && p->held_event.tid == ev->tid && p->held_event.time == ev->time
          && ev->stack.n_callchain == 0)
        {
          merged.stack.callchain = p->held_event.sample.ips;
          merged.stack.n_callchain = p->held_event.sample.n_ips;
          st_stats_event (p->stats, &p->held_event, FALSE);
          p->held = FALSE;
        }
      release_held (p);
      unwind (p, &merged);
      return;
    }

  release_held (p);
  if (is_kernel_only (ev))
    hold (p, ev);
  else
    pass (p, ev);
}

gboolean
st_pipeline_run (StPipeline *p, GError **error)
{
  StEvent ev;
  int rc;
  uint64_t n = 0;

  while ((rc = st_reader_next (p->reader, &ev, error)) > 0)
    {
      handle (p, &ev);
      if ((++n & 1023) == 0 && p->writer != NULL
          && st_writer_failed (p->writer))
        break;
    }
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
