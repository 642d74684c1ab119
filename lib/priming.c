#include "config.h"

#include "model/address-space.h"
#include "priming.h"

const char *
st_priming_mode_name (StPrimingMode mode)
{
  switch (mode)
    {
    case ST_PRIMING_SYNC: return "sync";
    case ST_PRIMING_DROP: return "drop";
    case ST_PRIMING_DEFER: return "defer";
    }
  return "?";
}

guint
st_priming_threads (guint threads)
{
  if (threads > 0)
    return threads;
  return CLAMP ((guint) g_get_num_processors (), 1, ST_PRIMING_MAX_THREADS);
}

/* How often a wait at the cap looks whether a download started.  */
#define ST_PRIMING_WAIT_STEP_US 10000

struct StPriming
{
  StModuleCache *modules;
  StPrimingMode mode;         /* as asked */
  gboolean on_workers;        /* modules prepared by workers */
  gboolean finishing;         /* the input ended: samples waiting for
                                 their modules wait for them now */
  uint64_t ready_seen;        /* the cache's ready generation last seen */
  uint64_t wait_offset;       /* the sample that waited last */
  gboolean resuming;          /* processing what waited */
  /* Defer: the processes whose mappings prime at first sight (begun in
     the stream, or sampled); others' modules wait for their first
     sample (pid -> nothing).  */
  GHashTable *active;
  StPrimingStats stats;
};

StPriming *
st_priming_new (StModuleCache *modules, gboolean unwinding,
                StPrimingMode mode, guint threads, size_t cap,
                size_t max_held)
{
  StPriming *pr = g_new0 (StPriming, 1);

  pr->modules = modules;
  pr->mode = mode;
  pr->stats.mode = st_priming_mode_name (ST_PRIMING_SYNC);
  if (unwinding && mode != ST_PRIMING_SYNC)
    {
      pr->on_workers = TRUE;
      st_module_cache_set_workers (modules, st_priming_threads (threads),
                                   mode == ST_PRIMING_DEFER);
      pr->stats.mode = st_priming_mode_name (mode);
      pr->stats.threads = st_module_cache_workers (modules);
      pr->stats.cap = MIN (cap > 0 ? cap : ST_PRIMING_DEFAULT_CAP, max_held);
      pr->wait_offset = G_MAXUINT64;
      if (mode == ST_PRIMING_DEFER)
        pr->active = g_hash_table_new (NULL, NULL);
    }
  return pr;
}

void
st_priming_free (StPriming *pr)
{
  if (pr->active != NULL)
    g_hash_table_destroy (pr->active);
  g_free (pr);
}

gboolean
st_priming_on_workers (const StPriming *pr)
{
  return pr->on_workers;
}

gboolean
st_priming_defers (const StPriming *pr)
{
  return pr->on_workers && pr->mode == ST_PRIMING_DEFER;
}

/* Defer: whether EV's process is one whose mappings prime at first
   sight, learning it from EV.  A process that was only described (the
   /proc walk of a live session, perf's records of what ran before the
   recording) is not, until its first sample: its modules are then
   prepared all at once (the sample's readiness acquires them) while the
   sample waits, and the modules of the many processes a system-wide
   recording describes but never samples are never prepared.  A process
   that begins in the stream (a fork, an exec) is: its first samples
   find their modules ready.  */
static gboolean
process_active (StPriming *pr, const StEvent *ev)
{
  gpointer pid = GINT_TO_POINTER (ev->pid);

  /* Bounded for endless streams that lose EXIT records.  */
  if (g_hash_table_size (pr->active) >= ST_PRIMING_ACTIVE_MAX)
    g_hash_table_remove_all (pr->active);

  switch (ev->kind)
    {
    case ST_EVENT_PROCESS:
      if (ev->process.exec)
        g_hash_table_add (pr->active, pid);
      return FALSE;
    case ST_EVENT_FORK:
      if (ev->pid != ev->fork.parent_pid)
        g_hash_table_add (pr->active, pid);
      return FALSE;
    case ST_EVENT_EXIT:
      if (ev->pid == ev->tid)
        g_hash_table_remove (pr->active, pid);
      return FALSE;
    case ST_EVENT_STACK_USER:
    case ST_EVENT_SAMPLE:
      g_hash_table_add (pr->active, pid);
      return FALSE;
    case ST_EVENT_MAP:
      return g_hash_table_contains (pr->active, pid);
    default:
      return FALSE;
    }
}

void
st_priming_see (StPriming *pr, const StEvent *ev)
{
  StMap map;

  if (!pr->on_workers)
    return;
  if (pr->active != NULL && !process_active (pr, ev))
    return;
  if (ev->kind != ST_EVENT_MAP)
    return;
  st_map_from_event (&map, ev);
  if (st_map_is_module (&map))
    st_module_cache_prime (pr->modules, &map);
}

void
st_priming_sample_waited (StPriming *pr, const StEvent *ev)
{
  if (ev->offset != pr->wait_offset)
    {
      pr->wait_offset = ev->offset;
      pr->stats.waits++;
    }
}

gboolean
st_priming_sample_waits (StPriming *pr, const StEvent *ev, gboolean force,
                         StReadinessFunc readiness, void *user)
{
  StModulesReadiness r = readiness (ev, user);

  if (r == ST_MODULES_READY)
    return FALSE;
  if (pr->finishing)
    {
      while (readiness (ev, user) != ST_MODULES_READY
             && st_module_cache_wait_any (pr->modules))
        ;
      return FALSE;
    }
  if (force)
    {
      pr->stats.stalls++;
      /* (A module not ready is in flight: something comes back.)  */
      while (r == ST_MODULES_PREPARING
             && st_module_cache_preparing (pr->modules) > 0)
        {
          st_module_cache_wait_any_timeout (pr->modules,
                                            ST_PRIMING_WAIT_STEP_US);
          r = readiness (ev, user);
        }
      if (r == ST_MODULES_FETCHING)
        pr->stats.forced++;
      return FALSE;
    }
  st_priming_sample_waited (pr, ev);
  return TRUE;
}

gboolean
st_priming_resuming (const StPriming *pr)
{
  return pr->resuming;
}

void
st_priming_set_resuming (StPriming *pr, gboolean resuming)
{
  pr->resuming = resuming;
}

void
st_priming_sample_unwound (StPriming *pr, gboolean resumed)
{
  pr->stats.deferred += resumed;
}

void
st_priming_sample_unprimed (StPriming *pr)
{
  /* With defer, the cap sent it on before the download.  */
  if (pr->mode == ST_PRIMING_DEFER)
    pr->stats.forced++;
}

void
st_priming_progress (StPriming *pr, StReorder *window)
{
  if (!pr->on_workers)
    return;
  st_module_cache_collect (pr->modules);
  uint64_t ready = st_module_cache_ready_generation (pr->modules);

  if (window != NULL && st_reorder_waiting (window))
    {
      pr->resuming = TRUE;
      if (ready != pr->ready_seen)
        st_reorder_resume (window, FALSE);
      /* The oldest waiting sample goes (see st_priming_sample_waits).  */
      while (st_reorder_waiting (window)
             && st_reorder_bytes (window) > pr->stats.cap)
        st_reorder_resume (window, TRUE);
      pr->resuming = FALSE;
    }
  pr->ready_seen = ready;

  StPrimingStats *ps = &pr->stats;
  ps->held = window != NULL && st_reorder_waiting (window)
             ? st_reorder_bytes (window) : 0;
  ps->held_max = MAX (ps->held_max, ps->held);
  ps->modules_prepared = st_module_cache_prepared_by_workers (pr->modules);
  ps->modules_pending = st_module_cache_preparing (pr->modules);
}

void
st_priming_finish (StPriming *pr)
{
  pr->finishing = TRUE;
}

gboolean
st_priming_finishing (const StPriming *pr)
{
  return pr->finishing;
}

const StPrimingStats *
st_priming_stats (const StPriming *pr)
{
  return &pr->stats;
}
