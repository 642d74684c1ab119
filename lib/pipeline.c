/* The filter loop: read, unwind, write in input order.  A capture's
   raw-stack sample split in two frames is joined (kernel-join.h) into
   one unwound sample; what an unwound sample gives --chains and the call
   graph is report/sample-report.h's; the unwinding counters go into the
   output when counter-schedule.h says.

   JIT-style priming: the policy is priming.h's; the loop shows it every
   event as read and asks it between events and while the input stalls.
   With defer, every event goes through the reorder window (perf.data:
   by time, a capture: as read), whose processing stops at a sample
   whose modules are not ready (process_event answers ST_REORDER_LATER)
   and resumes when the policy says so.  */
#include "config.h"

#include <inttypes.h>
#include <string.h>
#include <stdio.h>

#include "capture-mounts.h"
#include "counter-schedule.h"
#include "util/domain.h"
#include "format/record-names.h"
#include "model/file-report.h"
#include "model/module-cache.h"
#include "model/process-table.h"
#include "kernel-join.h"
#include "parallel-unwind.h"
#include "pipeline.h"
#include "priming.h"
#include "report/jit-names.h"
#include "report/sample-report.h"
#include "unwind/registers.h"
#include "util/heap-trim.h"
#include "util/printable.h"
#include "sample-unwinder.h"
#include "reorder.h"

/* Bound of the events buffered to put a perf round in time order.  */
#define ST_REORDER_MAX_BYTES (512u << 20)

/* Damage messages printed one by one; later ones are only counted.  */
#define ST_DAMAGE_MESSAGES_MAX 20

/* Events between two heap trims when the input never stalls.  */
#define TRIM_EVERY_EVENTS (1u << 16)

/* Modules whose first-sight pins wait for the workers' caches, at most
   (two descriptors each): more than a burst of new programs shows.  */
#define PIN_SHELF_ENTRIES 64

struct StPipeline
{
  StReader *reader;
  StWriter *writer;
  StPipelineOptions options;
  StStats *stats;
  StSampleReport *sample_report;  /* --chains and the call graph; NULL
                                     when neither is asked */
  StJitNames *jit_names;      /* with SAMPLE_REPORT: names of JIT code */
  StProcessTable *processes;
  StModuleCache *modules;
  StDebuginfod *debuginfod;   /* NULL when off */
  StPinShelf *pin_shelf;      /* --jobs: MODULES' first-sight pins, lent
                                 to the workers' caches */
  StSampleUnwinder *unwinder;  /* the per-sample unwinding service */
  StParallelUnwind *parallel; /* --jobs: samples walked on workers;
                                 NULL: on this thread */
  StCaptureMounts *mounts;    /* a capture's mount tables, to the
                                 file resolver */

  StKernelJoin *kernel_join;  /* a capture's held-back kernel part */
  StReorder *reorder;         /* perf input: time order for processing */

  gboolean stopped;           /* the check function asked to stop */
  gboolean abandoned;         /* ... as nobody reads the output now */
  gint64 trimmed_at;          /* monotonic time of the last heap trim */
  guint events_untrimmed;     /* handled since the last heap trim */
  uint64_t past_intact;       /* events read before the input file shrank,
                                 from the part it lost: left out */
  uint64_t past_intact_from;  /* the lowest offset of them */

  StPriming *priming;         /* when modules are prepared */
  StCounterSchedule *counters;  /* NULL when the output has none */

};

/* Damaged input is never silent: counted, and printed up to a limit.  */
static void
on_damage (const StDamage *d, void *user)
{
  StPipeline *p = user;
  uint64_t n = st_stats_damaged (p->stats);

  st_stats_damage (p->stats, d);
  if (p->options.report == NULL)
    return;
  if (n < ST_DAMAGE_MESSAGES_MAX)
    p->options.report (ST_REPORT_DAMAGE, d->message, p->options.report_data);
  else if (n == ST_DAMAGE_MESSAGES_MAX)
    p->options.report (ST_REPORT_DAMAGE, "more damaged input; further "
                       "messages are suppressed (the statistics count them)",
                       p->options.report_data);
}

/* A bad line of a perf map, a damaged jitdump: a warning (the names
   of the rest are still used).  */
static void
on_jit_names_problem (const char *message, void *user)
{
  StPipeline *p = user;

  if (p->options.report != NULL)
    {
      g_autofree char *line = g_strdup_printf ("JIT names: %s", message);
      p->options.report (ST_REPORT_WARNING, line, p->options.report_data);
    }
}

/* A set the counter schedule asks for, into the output (FALSE when
   its format has no counters).  */
static gboolean
write_counters (int64_t time, const StProgressCounters *counters, void *user)
{
  return st_writer_counters (user, time, counters);
}

/* A module cache looking for files as OPTIONS say (the finder: the
   caller's own, else DEBUGINFOD's); for a live input, holding the
   roots of its processes, or sharing ROOTS (may be NULL).  */
static StModuleCache *
module_cache_new (const StPipelineOptions *options, StDebuginfod *debuginfod,
                  StProcessRoots *roots)
{
  StFileResolver *resolver
    = st_file_resolver_new_full (options->symfs, options->buildid_dir,
                                 options->perf_cache_dir);
  if (options->given_files_only)
    st_file_resolver_set_given_only (resolver);
  StModuleCache *modules = st_module_cache_new_with_resolver (resolver);
  if (options->live && roots != NULL)
    st_file_resolver_share_roots (st_module_cache_resolver (modules), roots);
  else if (options->live)
    st_file_resolver_hold_roots (st_module_cache_resolver (modules));
  if (options->finder != NULL)
    st_module_cache_set_finder (modules, options->finder,
                                options->finder_data);
  else
    st_module_cache_set_finder (modules, st_debuginfod_module_finder,
                                debuginfod);
  /* Downloads only for the files samples need (see unwind_fetching).  */
  st_module_cache_set_lazy_fetch (modules, TRUE);
  return modules;
}

/* A worker's module cache (StModuleCacheMaker): it asks the pipeline's
   debuginfod, which asks each file once and gives every thread that
   answer, so that a file is fetched, or not, for every walk alike; it
   opens a file where the pipeline's cache did, when that one saw the
   mapping first (pins, roots), however late its own first walk there
   comes.  */
static StModuleCache *
worker_module_cache_new (guint worker, void *user)
{
  StPipeline *p = user;
  StFileResolver *ours = st_module_cache_resolver (p->modules);
  StModuleCache *c = module_cache_new (&p->options, p->debuginfod,
                                       st_file_resolver_roots (ours));

  st_module_cache_share_pins (c, p->pin_shelf, (int) worker);
  return c;
}

/* The workers' tables forget what ours forgets (parallel-unwind.h).  */
static void
forget_in_workers (int32_t pid, void *user)
{
  StPipeline *p = user;

  st_parallel_unwind_forget (p->parallel, pid);
}

/* More threads were asked for than can give one thread's result: said,
   not silently ignored.  */
static void
warn_one_thread (StPipeline *p)
{
  const StPipelineOptions *o = &p->options;
  const char *why = o->priming == ST_PRIMING_DROP
                    ? "with --priming drop" : "with a finder of the caller's";

  if (o->report == NULL)
    return;
  g_autofree char *line = g_strdup_printf ("--jobs %u: unwinding on one "
                                           "thread: workers are not used %s",
                                           o->jobs, why);
  o->report (ST_REPORT_WARNING, line, o->report_data);
}

/* Whether samples may be walked on workers with the same result: a
   sample is walked once its modules are ready (sync, or defer's wait;
   drop goes on with whatever is ready on this thread at that moment),
   with files fetched from debuginfod if at all (its answers are the
   same for every thread; a caller's finder promises no such thing).  A
   live input's roots and first-sight pins are this thread's, lent to
   the workers (worker_module_cache_new).  */
static gboolean
parallel_applies (const StPipelineOptions *options)
{
  return options->jobs > 1 && options->mode == ST_MODE_UNWIND
         && options->priming != ST_PRIMING_DROP && options->finder == NULL;
}

StPipeline *
st_pipeline_new (StReader *reader, StWriter *writer,
                 const StPipelineOptions *options)
{
  StPipeline *p = g_new0 (StPipeline, 1);
  StDamageHandler damage = { on_damage, p };
  gboolean workers = parallel_applies (options);

  p->reader = reader;
  p->writer = writer;
  p->options = *options;
  /* Counters tell how unwinding goes: only when samples are unwound, and
     into a format that has them (a schedule would ask perf.data at
     every event).  */
  if (options->counters && writer != NULL && st_writer_has_counters (writer)
      && options->mode == ST_MODE_UNWIND)
    p->counters = st_counter_schedule_new (options->counters_interval_ms,
                                           write_counters, writer);
  p->stats = st_stats_new ();
  p->kernel_join = st_kernel_join_new ();
  if (options->callgraph || options->chains != NULL)
    {
      p->jit_names = st_jit_names_new (options->symfs, options->jit_tmp_dir,
                                       on_jit_names_problem, p);
      if (options->given_files_only)
        st_jit_names_set_symfs_only (p->jit_names);
      p->sample_report = st_sample_report_new (options->chains != NULL,
                                               options->callgraph,
                                               options->demangle,
                                               p->jit_names);
    }
  p->processes = st_process_table_new ();
  if (options->max_processes > 0)
    st_process_table_set_limits (p->processes, options->max_processes,
                                 ST_PROCESS_TABLE_MAX_UNWIND_STATES);
  if (options->finder == NULL && options->debuginfod
      && !options->given_files_only)
    p->debuginfod = st_debuginfod_new (options->debuginfod_urls);
  p->modules = module_cache_new (options, p->debuginfod, NULL);
  if (workers)
    {
      p->pin_shelf = st_pin_shelf_new (MIN (options->jobs - 1,
                                            ST_PIN_SHELF_MAX_TAKERS),
                                       PIN_SHELF_ENTRIES);
      st_module_cache_share_pins (p->modules, p->pin_shelf, -1);
    }
  p->mounts = st_capture_mounts_new (st_module_cache_resolver (p->modules));
  /* After the prepare hook and the finder: workers read them.  Some
     room for one round of perf.data besides the waiting: at most half of
     what the reorder window may hold.  */
  p->priming = st_priming_new (p->modules, options->mode == ST_MODE_UNWIND,
                               options->priming, options->priming_threads,
                               options->priming_cap,
                               ST_REORDER_MAX_BYTES / 2);
  st_stats_set_priming (p->stats, st_priming_stats (p->priming));
  st_stats_set_file_report (p->stats,
                            st_module_cache_file_report (p->modules));
  StSampleUnwinderOptions uo = {
    .engine = options->engine,
    .stitch = options->stitch,
    .truncate_stack = options->truncate_stack,
    .debug = options->debug,
    .report = options->report,
    .report_data = options->report_data,
  };
  p->unwinder = st_sample_unwinder_new (p->processes, p->modules, p->stats,
                                        p->priming, p->sample_report,
                                        p->jit_names, &uo);
  /* N threads: this one (reading, concluding, writing) and N - 1
     workers walking.  */
  if (workers)
    p->parallel = st_parallel_unwind_new (options->jobs - 1, p->unwinder,
                                          worker_module_cache_new, p, &uo);
  else if (options->jobs > 1 && options->mode == ST_MODE_UNWIND)
    warn_one_thread (p);
  if (workers && p->parallel == NULL)
    {
      /* No thread started: no taker for the pins (nothing was looked
         up yet).  */
      st_module_cache_share_pins (p->modules, NULL, -1);
      g_clear_pointer (&p->pin_shelf, st_pin_shelf_free);
    }
  if (p->parallel != NULL)
    st_process_table_set_forget_func (p->processes, forget_in_workers, p);
  st_reader_set_damage_handler (reader, &damage);
  return p;
}

void
st_pipeline_free (StPipeline *p)
{
  if (p == NULL)
    return;
  /* Modules still prepared on workers are not needed any more (drop, or
     mappings never sampled): their downloads need not go on.  */
  st_debuginfod_cancel (p->debuginfod);
  st_process_table_set_forget_func (p->processes, NULL, NULL);
  st_parallel_unwind_free (p->parallel);
  /* Processes hold Dwfls that reference the cached Elfs: free them first.  */
  st_process_table_free (p->processes);
  st_sample_unwinder_free (p->unwinder);
  st_priming_free (p->priming);
  st_capture_mounts_free (p->mounts);
  st_module_cache_free (p->modules);
  st_pin_shelf_free (p->pin_shelf);
  st_debuginfod_free (p->debuginfod);
  st_sample_report_free (p->sample_report);
  st_jit_names_free (p->jit_names);
  st_stats_free (p->stats);
  st_counter_schedule_free (p->counters);
  st_kernel_join_free (p->kernel_join);
  st_reorder_free (p->reorder);
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
        st_stats_no_counterpart (p->stats, ev->kind,
                                 st_record_type_name (ev));
    }
  st_stats_event (p->stats, ev, written);
}

static void
release_held (StPipeline *p)
{
  const StEvent *held = st_kernel_join_release (p->kernel_join);

  if (held != NULL)
    pass (p, held);
}

/* Whether raw-stack event EV's process has every module ready, or what
   keeps them.  */
static StModulesReadiness
sample_readiness (const StEvent *ev, void *user)
{
  StPipeline *p = user;

  return st_sample_unwinder_readiness (p->unwinder, ev);
}

/* process_event with workers: a sample is submitted to be walked, its
   result taken in emit_event; an event that changes the model waits
   until every sample before it is concluded.  The modules of the
   sample's process are prepared here, as the walk on this thread would
   (the file report and the names of --chains are this thread's); with
   defer, the sample came once they were ready (RESUMED: after waiting;
   FORCE: sent on by the cap).  */
static void *
process_event_parallel (StPipeline *p, const StEvent *ev, gboolean force,
                        gboolean resumed)
{
  if (st_parallel_unwind_changes_model (ev))
    st_parallel_unwind_apply (p->parallel, ev);
  st_sample_unwinder_apply (p->unwinder, ev);
  if (ev->kind != ST_EVENT_STACK_USER)
    return NULL;
  /* A process made for the sample may make the table forget another
     (its bounds): a change of the model like any other.  */
  if (st_process_table_lookup (p->processes, ev->pid) == NULL)
    st_parallel_unwind_settle (p->parallel);
  st_sample_unwinder_readiness (p->unwinder, ev);
  st_priming_sample_unwound (p->priming, resumed);
  /* Defer's cap sends it on as it is: walked here, now, as --jobs 1
     would (a file being fetched is not waited for).  */
  gboolean as_is = force && st_priming_defers (p->priming)
                   && !st_priming_finishing (p->priming);
  return st_parallel_unwind_submit (p->parallel, ev, as_is);
}

/* In time order: the event's effect on the process model, and unwinding.  */
static void *
process_event (const StEvent *ev, gboolean force, void *user)
{
  StPipeline *p = user;
  gboolean resumed = FALSE;

  if (ev->kind == ST_EVENT_STACK_USER && st_priming_defers (p->priming))
    {
      if (st_priming_sample_waits (p->priming, ev, force, sample_readiness,
                                   p))
        return ST_REORDER_LATER;
      resumed = st_priming_resuming (p->priming);
    }
  if (p->parallel != NULL)
    return process_event_parallel (p, ev, force, resumed);
  st_sample_unwinder_apply (p->unwinder, ev);
  if (ev->kind == ST_EVENT_STACK_USER && p->options.mode == ST_MODE_UNWIND)
    {
      gboolean may_wait = st_priming_defers (p->priming) && !force
                          && !st_priming_finishing (p->priming);
      StUnwound *u = st_sample_unwinder_unwind (p->unwinder, ev, may_wait);
      if (u != NULL)
        {
          st_priming_sample_unwound (p->priming, resumed);
          return u;
        }
      /* A file it needs is being fetched: it waits.  */
      st_priming_sample_waited (p->priming, ev);
      return ST_REORDER_LATER;
    }
  return NULL;
}

/* Raw-stack event EV, to write: with the kernel part of the held SAMPLE
   when that is its kernel part (the held SAMPLE is then consumed), made
   in *MERGED; else EV itself, a held SAMPLE passed first.  */
static const StEvent *
merge_held (StPipeline *p, const StEvent *ev, StEvent *merged)
{
  /* (Only a capture's samples have kernel parts held: no copy of the
     event for the others.)  */
  if (st_kernel_join_held (p->kernel_join) == NULL)
    return ev;

  const StEvent *kernel_part = st_kernel_join_take (p->kernel_join, ev,
                                                    merged);
  if (kernel_part == NULL)
    {
      release_held (p);
      return ev;
    }
  st_stats_event (p->stats, kernel_part, FALSE);
  st_stats_joined (p->stats);
  return merged;
}

static void
emit_unwound (StPipeline *p, const StEvent *ev, StUnwound *u)
{
  StEvent merged;
  const StEvent *out = merge_held (p, ev, &merged);

  if (u->chain_line != NULL)
    fputs (u->chain_line, p->options.chains);
  if (p->writer != NULL)
    st_writer_unwound (p->writer, out, u->ips, u->n_ips);
  st_stats_event (p->stats, ev, p->writer != NULL);
  if (p->counters != NULL)
    st_counter_schedule_sample (p->counters, u->status, u->stitched,
                                u->unprimed);
}

/* Whether the result of process_event_parallel can be emitted without
   waiting for the workers (StReorderReady).  */
static gboolean
parallel_result_ready (void *result, void *user)
{
  StPipeline *p = user;

  return result == NULL || st_parallel_unwind_ready (p->parallel, result);
}

/* Whether a capture's kernel-only SAMPLE frames are held back to join
   the STACK_USER frame that may follow: to unwind, and when converting
   raw stacks to perf.data, where the two are one sample.  */
static gboolean
holds_kernel_parts (const StPipeline *p)
{
  return p->options.mode == ST_MODE_UNWIND
         || p->options.output_format == ST_FORMAT_PERF;
}

/* In input order: writing.  */
static void
emit_event (const StEvent *ev, void *result, void *user)
{
  StPipeline *p = user;
  StUnwound *u = result;

  if (p->parallel != NULL && u != NULL)
    u = st_parallel_unwind_result (p->parallel, result);
  /* Held in place in a mapped input that shrank since: its bytes read
     as zeros now (see mapping-guard.h).  */
  if (G_UNLIKELY (ev->offset + ev->raw_len
                  > st_reader_intact_end (p->reader)))
    {
      if (p->past_intact++ == 0 || ev->offset < p->past_intact_from)
        p->past_intact_from = ev->offset;
      if (u != NULL)
        st_sample_unwinder_release (p->unwinder, u);
      return;
    }
  if (u != NULL)
    {
      emit_unwound (p, ev, u);
      st_sample_unwinder_release (p->unwinder, u);
    }
  else if (ev->kind == ST_EVENT_STACK_USER)
    {
      /* (Never a kernel part to hold.)  */
      StEvent merged;

      pass (p, merge_held (p, ev, &merged));
    }
  else
    {
      release_held (p);
      if (holds_kernel_parts (p) && st_kernel_join_is_kernel_part (ev))
        st_kernel_join_hold (p->kernel_join, ev);
      else
        pass (p, ev);
    }
  /* (Never between a held kernel part and its STACK_USER frame.)  */
  if (p->counters != NULL)
    st_counter_schedule_event (p->counters, ev->time,
                               st_kernel_join_held (p->kernel_join) == NULL);
}

/* Collects the modules the workers prepared; with defer, goes on with
   waiting samples as the policy says.  */
static void
priming_progress (StPipeline *p)
{
  st_priming_progress (p->priming, p->reorder);
  st_stats_set_priming (p->stats, st_priming_stats (p->priming));
}

/* Live: the root of a process a record names, while it may still be
   there to ask (the time order comes later).  */
static void
hold_root (StProcessRoots *roots, const StEvent *ev)
{
  switch (ev->kind)
    {
    case ST_EVENT_MAP:
      st_process_roots_see (roots, ev->pid, FALSE);
      break;
    case ST_EVENT_PROCESS:
      st_process_roots_see (roots, ev->pid, ev->process.exec);
      break;
    case ST_EVENT_FORK:
      if (ev->fork.parent_pid != ev->pid)
        {
          /* A new process: its parent's root, or its own if it is
             still there (perf's records of processes found at start).  */
          st_process_roots_fork (roots, ev->fork.parent_pid, ev->pid);
          st_process_roots_see (roots, ev->pid, TRUE);
        }
      break;
    default:
      break;
    }
}

static void
handle (StPipeline *p, const StEvent *ev)
{
  StProcessRoots *roots
    = st_file_resolver_roots (st_module_cache_resolver (p->modules));

  if (roots != NULL && ev->kind != ST_EVENT_STACK_USER
      && ev->kind != ST_EVENT_SAMPLE)
    hold_root (roots, ev);
  /* Mount tables before the mappings that need them, as read.  */
  if (ev->kind == ST_EVENT_OTHER)
    {
      st_capture_mounts_feed (p->mounts, ev);
      /* (Only a capture has them: a perf.data's records are not
         waited for.)  */
      if (p->parallel != NULL && ev->source == ST_FORMAT_SYSPROF)
        st_parallel_unwind_feed_mounts (p->parallel, ev);
    }
  /* First sight of a module: as read, before time order holds it.  */
  st_priming_see (p->priming, ev);
  if (p->reorder != NULL)
    {
      st_reorder_push (p->reorder, ev);
      /* A mapped input gives back what no held event points into.  */
      st_reader_release (p->reader, st_reorder_oldest_offset (p->reorder));
    }
  else
    {
      emit_event (ev, process_event (ev, FALSE, p), p);
      st_reader_release (p->reader, ev->offset);
    }
  if (st_priming_on_workers (p->priming))
    priming_progress (p);
  /* A stream that never stalls (the recorder faster than us) is trimmed
     by its events: some seconds of a live session's.  */
  if (G_UNLIKELY (++p->events_untrimmed >= TRIM_EVERY_EVENTS))
    {
      p->events_untrimmed = 0;
      p->trimmed_at = g_get_monotonic_time ();
      if (p->options.trim_heap)
        st_heap_trim ();
      if (p->options.idle != NULL)
        p->options.idle (p->options.idle_data);
    }
}

static gboolean
output_failed (const StPipeline *p)
{
  return p->writer != NULL && st_writer_failed (p->writer);
}

/* The input stalls: hand the output what it has (a live reader is
   waiting for it), then ask the check function.  */
static gboolean
input_wait (void *user)
{
  StPipeline *p = user;

  /* Samples whose modules became ready meanwhile go out now.  */
  if (st_priming_on_workers (p->priming))
    priming_progress (p);
  /* So do those held for the workers (perf.data: those processed).  */
  if (p->parallel != NULL && p->reorder != NULL)
    {
      if (st_reader_format (p->reader) != ST_FORMAT_PERF)
        st_reorder_flush (p->reorder);
      else
        st_reorder_emit_processed (p->reorder);
    }
  /* Idle: what was freed goes back to the system (at most once a
     second; a live session's memory would otherwise stay at its peak).  */
  gint64 now = g_get_monotonic_time ();
  if (now - p->trimmed_at >= G_USEC_PER_SEC)
    {
      p->trimmed_at = now;
      p->events_untrimmed = 0;
      st_reorder_trim (p->reorder);
      st_reader_trim (p->reader);
      if (p->options.trim_heap)
        st_heap_trim ();
      if (p->options.idle != NULL)
        p->options.idle (p->options.idle_data);
    }
  if (p->writer != NULL)
    st_writer_flush (p->writer);
  if (p->options.chains != NULL)
    fflush (p->options.chains);
  if (output_failed (p))
    return FALSE;
  if (p->options.check != NULL && !p->options.check (p->options.check_data))
    {
      p->stopped = TRUE;
      return FALSE;
    }
  return TRUE;
}

gboolean
st_pipeline_run (StPipeline *p, GError **error)
{
  StEvent ev;
  int rc;
  GError *read_error = NULL;

  /* perf.data is time-ordered only per CPU; a capture is written in
     order, and so is what we convert into one.  */
  if (st_reader_format (p->reader) == ST_FORMAT_PERF)
    {
      p->reorder = st_reorder_new (process_event, emit_event, p,
                                   ST_REORDER_MAX_BYTES,
                                   p->options.output_format == ST_FORMAT_SYSPROF);
      /* Events are held in place, not copied: in a mapped file, or in
         the input's memory, which keeps them there until released.  */
      st_reorder_set_stable (p->reorder, st_reader_stable, p->reader);
      st_reader_hold (p->reader);
      if (p->parallel != NULL)
        st_reorder_set_emit_when_ready (p->reorder, parallel_result_ready);
    }
  else if (st_priming_defers (p->priming) || p->parallel != NULL)
    {
      /* A window only for samples that wait for their modules, or to
         give workers samples to share (released a batch at a time, and
         whenever the input stalls).  */
      p->reorder = st_reorder_new (process_event, emit_event, p,
                                   ST_REORDER_MAX_BYTES, FALSE);
      st_reorder_set_as_read (p->reorder);
      if (p->parallel != NULL)
        {
          /* Half of what may be in flight: the next while the workers
             walk the last.  */
          st_reorder_set_as_read_batch (p->reorder,
                                        st_parallel_unwind_in_flight (p->parallel) / 2);
          st_reorder_set_emit_when_ready (p->reorder, parallel_result_ready);
        }
      st_reorder_set_stable (p->reorder, st_reader_stable, p->reader);
      st_reader_hold (p->reader);
    }

  /* With workers, the pipeline's thread is the one they wait for: the
     mapped input's system calls go to a thread of their own.  */
  if (p->parallel != NULL)
    st_reader_page_on_thread (p->reader);
  st_reader_set_wait_func (p->reader,
                           p->options.check_ms ? p->options.check_ms : 1000,
                           input_wait, p);
  /* A module prepared while the input stalls wakes the wait at once.  */
  if (st_priming_on_workers (p->priming))
    st_reader_set_wake_fd (p->reader, st_module_cache_wake_fd (p->modules));
  while ((rc = st_reader_next (p->reader, &ev, &read_error)) > 0)
    {
      handle (p, &ev);
      if (output_failed (p))
        break;
      if (p->options.check != NULL && !p->options.check (p->options.check_data))
        {
          p->stopped = TRUE;
          break;
        }
    }
  /* A stop while waiting: the frame being read is dropped, the output
     ends after the last whole one.  */
  if (rc < 0 && g_error_matches (read_error, ST_ERROR, ST_ERROR_STOPPED))
    {
      g_clear_error (&read_error);
      rc = 0;
    }
  if (read_error != NULL)
    g_propagate_error (error, read_error);
  st_reader_set_wait_func (p->reader, 0, NULL, NULL);
  if (st_priming_on_workers (p->priming))
    st_reader_set_wake_fd (p->reader, -1);

  st_priming_finish (p->priming);
  /* (An abandoned output: nothing more to unwind.  After a write error
     the held samples are still unwound, for the statistics.)  */
  if (p->reorder != NULL && !p->abandoned)
    {
      st_priming_set_resuming (p->priming, st_reorder_waiting (p->reorder));
      st_reorder_flush (p->reorder);
      st_priming_set_resuming (p->priming, FALSE);
    }
  if (st_priming_on_workers (p->priming))
    priming_progress (p);
  release_held (p);
  if (p->past_intact > 0)
    {
      g_autofree char *msg = g_strdup_printf (
        "offset %" G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT " frame(s) or "
        "record(s) read before the input file shrank lie past its new end "
        "at %" G_GUINT64_FORMAT ": left out", p->past_intact_from,
        p->past_intact, st_reader_intact_end (p->reader));
      StDamage d = { ST_DAMAGE_TRUNCATED, p->past_intact_from,
                     st_reader_intact_end (p->reader) - p->past_intact_from,
                     msg };
      on_damage (&d, p);
    }
  if (p->counters != NULL)
    st_counter_schedule_finish (p->counters);

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
  if (p->reorder != NULL && st_reorder_overflows (p->reorder) > 0
      && p->options.report != NULL)
    {
      char *line = g_strdup_printf ("warning: a perf round exceeded %u MiB; "
                                    "%u time(s) events were processed in "
                                    "input order", ST_REORDER_MAX_BYTES >> 20,
                                    st_reorder_overflows (p->reorder));
      p->options.report (ST_REPORT_WARNING, line, p->options.report_data);
      g_free (line);
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
  return p->sample_report != NULL
         ? st_sample_report_callgraph (p->sample_report) : NULL;
}

void
st_pipeline_abandon_output (StPipeline *p)
{
  p->abandoned = TRUE;
}

gboolean
st_pipeline_output_abandoned (const StPipeline *p)
{
  return p->abandoned;
}

gboolean
st_pipeline_stopped (const StPipeline *p)
{
  return p->stopped;
}

StDebuginfod *
st_pipeline_debuginfod (const StPipeline *p)
{
  return p->debuginfod;
}
