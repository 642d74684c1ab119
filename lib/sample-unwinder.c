/* The per-sample unwinding service (sample-unwinder.h): what the
   pipeline did around the engine's walk, for any caller.  */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "model/file-report.h"
#include "report/jit-names.h"
#include "sample-unwinder.h"
#include "unwind/stitcher.h"
#include "util/printable.h"

/* JVM processes remembered for the frame-pointer advice.  */
#define ST_JVM_PIDS_MAX 4096

/* Threads whose known stack is kept for stitching, and the frames known
   in all (~40 bytes each: 10 MiB).  */
#define ST_STITCH_MAX_THREADS 4096
#define ST_STITCH_MAX_FRAMES (256u * 1024)

struct StSampleUnwinder
{
  StSampleUnwinderOptions options;
  StProcessTable *processes;
  StModuleCache *modules;
  StStats *stats;
  StPriming *priming;         /* NULL: inline */
  StSampleReport *sample_report;  /* NULL: no line, no call graph */
  StJitNames *jit_names;      /* may be NULL */
  StUnwinder *unwinder;
  StStitcher *stitcher;       /* NULL when stitching is off */
  GHashTable *jvm_pids;       /* pids that mapped libjvm.so -> whether
                                 they were given the frame-pointer
                                 advice */
  StUnwound *unwound_free[5]; /* recycled results, by size class */

  /* The chain being unwound: one of a ring of pairs of arrays, since
     the stitcher may still read the last chains learnt
     (st_stitcher_learn_lent).  */
  uint64_t *ips;
  uint64_t *sps;
  guint chain;                /* IPS and SPS: chain_ips[chain] ... */
  gboolean chain_lent;        /* the stitcher may hold them */
  uint64_t chain_ips[ST_STITCH_LENT_CHAINS + 1][ST_UNWIND_MAX_FRAMES];
  uint64_t chain_sps[ST_STITCH_LENT_CHAINS + 1][ST_UNWIND_MAX_FRAMES];
};

StSampleUnwinder *
st_sample_unwinder_new (StProcessTable *processes, StModuleCache *modules,
                        StStats *stats, StPriming *priming,
                        StSampleReport *report, StJitNames *jit_names,
                        const StSampleUnwinderOptions *o)
{
  StSampleUnwinder *su = g_new0 (StSampleUnwinder, 1);

  su->options = *o;
  su->processes = processes;
  su->modules = modules;
  su->stats = stats;
  su->priming = priming;
  su->sample_report = report;
  su->jit_names = jit_names;
  su->ips = su->chain_ips[0];
  su->sps = su->chain_sps[0];
  su->jvm_pids = g_hash_table_new (g_direct_hash, g_direct_equal);
  su->unwinder = st_unwinder_new (o->engine, modules);
  if (o->stitch)
    su->stitcher = st_stitcher_new (ST_STITCH_MAX_THREADS,
                                    ST_STITCH_MAX_FRAMES);
  return su;
}

void
st_sample_unwinder_free (StSampleUnwinder *su)
{
  if (su == NULL)
    return;
  st_unwinder_free (su->unwinder);
  st_stitcher_free (su->stitcher);
  g_hash_table_destroy (su->jvm_pids);
  for (guint i = 0; i < G_N_ELEMENTS (su->unwound_free); i++)
    while (su->unwound_free[i] != NULL)
      {
        StUnwound *u = su->unwound_free[i];
        su->unwound_free[i] = u->next_free;
        g_free (u);
      }
  g_free (su);
}

StUnwinder *
st_sample_unwinder_engine (StSampleUnwinder *su)
{
  return su->unwinder;
}

Dwfl *
st_sample_unwinder_dwfl (StSampleUnwinder *su, int32_t pid)
{
  StProcess *proc = st_process_table_lookup (su->processes, pid);

  if (proc == NULL)
    return NULL;
  st_process_table_use_unwind_state (su->processes, proc);
  return st_unwinder_dwfl (su->unwinder, proc);
}

static StUnwound *
unwound_new (StSampleUnwinder *su, uint32_t n_ips)
{
  uint32_t k = 0;

  while ((16u << k) < n_ips)
    k++;
  StUnwound *u = su->unwound_free[k];
  if (u != NULL)
    su->unwound_free[k] = u->next_free;
  else
    {
      u = g_malloc (sizeof *u + (16u << k) * sizeof (uint64_t));
      u->size_class = k;
    }
  u->n_ips = n_ips;
  u->chain_line = NULL;
  return u;
}

void
st_sample_unwinder_release (StSampleUnwinder *su, StUnwound *u)
{
  g_free (u->chain_line);
  u->next_free = su->unwound_free[u->size_class];
  su->unwound_free[u->size_class] = u;
}

static void
debug_line (StSampleUnwinder *su, const StProcess *proc, const StEvent *ev,
            const StUnwindResult *r)
{
  g_autofree char *where = NULL;

  if (r->cause == ST_CAUSE_NO_MODULE && r->n_ips > 0)
    {
      /* Say what the code without a module is: JIT code is no file.  */
      uint64_t pc = r->no_module_pc != 0 ? r->no_module_pc : su->ips[0];
      const StMap *map = st_address_space_find (proc->maps, pc);
      where = g_strdup_printf (
        ": 0x%" PRIx64 " %s", pc,
        map == NULL ? "is in no recorded mapping"
        : st_map_is_anonymous (map) ? "is JIT or other anonymous code "
                                      "(no file, no CFI)"
        : "is in a mapping of no usable module");
    }
  char *line = g_strdup_printf ("offset %" PRIu64 ": pid %d tid %d "
                                "time %" PRId64 ": %s after %u frame(s) "
                                "(%s)%s%s%s", ev->offset, ev->pid, ev->tid,
                                ev->time, r->status == ST_UNWIND_FAILED
                                ? "failed" : "truncated", r->n_ips,
                                st_unwind_cause_name (r->cause),
                                r->detail ? ": " : "",
                                r->detail ? r->detail : "",
                                where != NULL ? where : "");
  su->options.report (ST_REPORT_DEBUG, line, su->options.report_data);
  g_free (line);
}

/* Completes a chain cut by the end of the stack copy from what the
   thread's stack was last seen to hold, and learns from every chain.  */
static void
stitch (StSampleUnwinder *su, const StProcess *proc, const StEvent *ev,
        StUnwindResult *r)
{
  if (r->n_ips == 0)
    return;
  StStackCopy copy = { su->sps[0], ev->stack.stack, ev->stack.stack_size };
  if (r->status == ST_UNWIND_TRUNCATED && r->cause == ST_CAUSE_STACK_END)
    {
      uint32_t n = r->n_ips;
      StStitchOutcome o = st_stitcher_stitch (su->stitcher, ev->pid, ev->tid,
                                              proc->exec_count, &copy,
                                              proc->maps, su->ips, su->sps, &n,
                                              ST_UNWIND_MAX_FRAMES);
      r->stitch_refused = o == ST_STITCH_REFUSED;
      if (o == ST_STITCH_DONE)
        {
          /* (At least one frame counts: the root may be the join.)  */
          r->n_stitched = MAX (n - r->n_ips, 1);
          r->n_ips = n;
          r->status = ST_UNWIND_COMPLETE;
          r->cause = ST_CAUSE_NONE;
        }
    }
  /* (Not the frame-pointer chain's frames: their stack addresses are
     unknown.)  */
  st_stitcher_learn_lent (su->stitcher, ev->pid, ev->tid, proc->exec_count,
                          &copy, su->ips, su->sps, r->n_ips - r->n_fp_chain,
                          r->status == ST_UNWIND_COMPLETE
                          && r->n_fp_chain == 0);
  su->chain_lent = TRUE;
}

/* The module of PROC's mapping at PC (*MAP: the mapping), or NULL.  */
static StModule *
module_at (StSampleUnwinder *su, StProcess *proc, uint64_t pc,
           const StMap **map)
{
  *map = st_address_space_find (proc->maps, pc);
  if (*map == NULL || !st_map_is_module (*map))
    return NULL;
  return st_module_cache_get (su->modules, *map);
}

/* The module at the PC where the walk R found no usable module (*PC,
   *MAP), or NULL.  That is the walk's cause, or a frame it dropped for
   being outside every usable module while another cause ended it (a
   frame-pointer step past the stack's copy from there, say): either
   way the walk could go on with that module's file.  */
static StModule *
module_at_stop (StSampleUnwinder *su, StSampleContext *sample,
                const StUnwindResult *r, uint64_t *pc, const StMap **map)
{
  uint64_t sp;

  *pc = r->no_module_pc;
  if (*pc == 0 && (r->cause != ST_CAUSE_NO_MODULE
                   || !st_sample_context_guess_pc (sample, pc, &sp)))
    return NULL;
  return module_at (su, sample->process, *pc, map);
}

/* Whether M is ready without a usable file.  */
static gboolean
without_file (const StModule *m)
{
  return m != NULL && st_module_ready (m) && m->elf == NULL;
}

/* ... with its file still to be fetched.  */
static gboolean
fetch_deferred (const StModule *m)
{
  return without_file (m) && m->fetch_deferred;
}

/* The module whose file the walk R wants fetched (*PC, *MAP), or NULL:
   the stop's (module_at_stop); else, where that one has no file to
   fetch (a [vdso] nobody has, JIT code), the first the walk met that
   has (R's deferred_pc): with it, the walk would have gone otherwise
   (a frame-pointer step into it was only taken, and its frames
   unwound, without its CFI).  *STOP: the stop's module (NULL: none),
   charged the sample when nothing is fetched.  */
static StModule *
module_to_fetch (StSampleUnwinder *su, StSampleContext *sample,
                 const StUnwindResult *r, uint64_t *pc, const StMap **map,
                 StModule **stop)
{
  *stop = module_at_stop (su, sample, r, pc, map);
  if (fetch_deferred (*stop) || r->deferred_pc == 0)
    return *stop;
  const StMap *met_map;
  StModule *met = module_at (su, sample->process, r->deferred_pc, &met_map);
  if (!fetch_deferred (met))
    return *stop;
  *pc = r->deferred_pc;
  *map = met_map;
  return met;
}

/* PC noted in W (when not NULL) as a place whose module wanted its
   file fetched.  */
static void
note_fetch_pc (StWalk *w, uint64_t pc)
{
  if (w == NULL)
    return;
  if (w->n_fetch_pcs == w->fetch_pcs_cap)
    {
      w->fetch_pcs_cap = MAX (4, 2 * w->fetch_pcs_cap);
      w->fetch_pcs = g_renew (uint64_t, w->fetch_pcs, w->fetch_pcs_cap);
    }
  w->fetch_pcs[w->n_fetch_pcs++] = pc;
}

/* Unwinds SAMPLE into IPS, SPS and R.  A walk stopped at a PC in a
   module whose file is still to be fetched (lazy debuginfod) fetches
   it: inline, then the sample is unwound again; on a worker, then the
   sample waits when MAY_WAIT (FALSE is returned), else goes as it is,
   unprimed, when MAY_GO_UNPRIMED (drop, or defer's cap), else the fetch
   is waited for.  A module that stays unusable is
   charged the sample.  Each round fetches a module not asked for before
   (st_module_cache_fetch asks once), so the rounds end; and with no
   bound of its own, the result is the walk with every module it meets
   asked for, whichever of them another sample asked for first: the same
   on a worker's cache as on the pipeline's.  FETCHES (may be NULL) notes
   where.  */
static gboolean
unwind_fetching (StSampleUnwinder *su, StSampleContext *sample,
                 uint64_t *ips, uint64_t *sps, gboolean may_wait,
                 gboolean may_go_unprimed, StUnwindResult *r,
                 const char **cost, StWalk *fetches)
{
  /* (A bound only for modules evicted while the chain fetches: a chain
     meets no more modules than it has frames.)  */
  for (guint round = 0;; round++)
    {
      st_unwinder_unwind_sample (su->unwinder, sample, ips, sps,
                                 ST_UNWIND_MAX_FRAMES, r);
      const StMap *map = NULL;
      uint64_t pc = 0;
      StModule *stop;
      StModule *m = module_to_fetch (su, sample, r, &pc, &map, &stop);
      if (!without_file (m))
        return TRUE;
      note_fetch_pc (fetches, pc);
      if (round == ST_UNWIND_MAX_FRAMES
          || !st_module_cache_fetch (su->modules, m, map))
        {
          if (!without_file (stop))
            return TRUE;
          if (cost != NULL)
            *cost = st_module_identity (stop);
          else
            st_file_report_cost (st_module_cache_file_report (su->modules),
                                 st_module_identity (stop));
          return TRUE;
        }
      if (st_module_ready (m))
        continue;                     /* fetched inline */
      if (may_wait)
        return FALSE;
      if (may_go_unprimed && su->priming != NULL
          && !st_priming_finishing (su->priming))
        {
          st_priming_sample_unprimed (su->priming);
          r->unprimed = TRUE;
          return TRUE;
        }
      st_module_cache_wait_for (su->modules, m);
    }
}

/* A walk stopped at the last frame of R, in a module whose file has no
   CFI, or whose code was built without it (the walk then stops on
   whatever the frame-pointer fallback read): that file cost the
   sample.  Its identity (borrowed from the module cache) and why, or
   NULL.  */
static const char *
no_unwind_data_at_stop (StSampleUnwinder *su, StProcess *proc,
                        const uint64_t *ips, const StUnwindResult *r,
                        StNoCfiReason *why)
{
  const StMap *map = st_address_space_find (proc->maps, ips[r->n_ips - 1]);

  if (map == NULL || !st_map_is_module (map))
    return NULL;
  StModule *m = st_module_cache_get (su->modules, map);
  if (!st_module_ready (m) || m->elf == NULL
      || !(m->no_unwind_sections || m->code_without_cfi))
    return NULL;
  *why = m->no_unwind_sections ? ST_NO_CFI_SECTIONS
         : __atomic_load_n (&m->debug_file_found, __ATOMIC_ACQUIRE)
         ? ST_NO_CFI_DEBUG_FILE : ST_NO_CFI_CODE;
  return st_module_identity (m);
}

/* Whether R stopped where the want of CFI is why: stopped in a file
   without CFI, whatever the frame-pointer attempt then met (unreadable
   memory, a loop).  */
static gboolean
may_lack_unwind_data (const StUnwindResult *r)
{
  return r->status != ST_UNWIND_COMPLETE && r->n_ips > 0
         && r->cause != ST_CAUSE_NO_MODULE && r->cause != ST_CAUSE_STACK_END
         && r->cause != ST_CAUSE_MAX_DEPTH;
}

static void
charge_no_unwind_data (StSampleUnwinder *su, StProcess *proc,
                       const StUnwindResult *r)
{
  StNoCfiReason why;
  const char *key = no_unwind_data_at_stop (su, proc, su->ips, r, &why);

  if (key != NULL)
    st_file_report_no_unwind_data (st_module_cache_file_report (su->modules),
                                   key, why);
}

/* The unwound chain of EV (P->ips, N_IPS) to --chains and the call
   graph.  Not inlined: in unwind it cost every sample register spills
   (9 instructions), reports on or off.  */
static __attribute__ ((noinline)) char *
report_sample (StSampleUnwinder *su, StProcess *proc, const StEvent *ev,
               uint32_t n_ips)
{
  return st_sample_report_add (su->sample_report,
                               st_unwinder_dwfl (su->unwinder, proc),
                               proc->maps, ev, proc->comm, su->ips, n_ips);
}

/* What a mapping tells besides the process's address space: a jitdump
   file to read JIT names from, a JVM whose JIT code may need advice.  */
static void
note_map (StSampleUnwinder *su, const StEvent *ev)
{
  const char *name = ev->map.filename != NULL ? ev->map.filename : "";
  const char *base = st_map_basename (name);

  /* (Every mapping of every process comes here: one cut to the base
     name, and first letters before whole compares.)  */
  if (su->jit_names != NULL && st_map_base_is_jitdump (base))
    st_jit_names_map (su->jit_names, ev->pid, name);
  if (base[0] != 'l' || base[1] != 'i' || base[2] != 'b' || base[3] != 'j'
      || strcmp (base, "libjvm.so") != 0
      || g_hash_table_contains (su->jvm_pids, GINT_TO_POINTER (ev->pid)))
    return;
  /* Bounded for endless streams: past the bound, a JVM may be advised
     again.  */
  if (g_hash_table_size (su->jvm_pids) >= ST_JVM_PIDS_MAX)
    g_hash_table_remove_all (su->jvm_pids);
  g_hash_table_insert (su->jvm_pids, GINT_TO_POINTER (ev->pid),
                       GINT_TO_POINTER (FALSE));
}

/* A JVM's compiled code pushes rbp but keeps no frame pointer unless
   told to: a walk that left JIT code by the frame-pointer step (JIT code
   has no CFI) may have skipped callers.  Said once per process.  */
static void
advise_jvm (StSampleUnwinder *su, const StProcess *proc, const StEvent *ev,
            uint32_t n_ips)
{
  gpointer advised;

  if (!g_hash_table_lookup_extended (su->jvm_pids, GINT_TO_POINTER (ev->pid),
                                     NULL, &advised)
      || GPOINTER_TO_INT (advised))
    return;
  for (uint32_t i = 0; i + 1 < n_ips; i++)
    {
      const StMap *map = st_address_space_find (proc->maps, su->ips[i]);
      if (map == NULL || !st_map_is_anonymous (map))
        continue;
      g_hash_table_insert (su->jvm_pids, GINT_TO_POINTER (ev->pid),
                           GINT_TO_POINTER (TRUE));
      if (su->options.report != NULL)
        {
          g_autofree char *comm = st_printable (proc->comm != NULL
                                                ? proc->comm : "?");
          g_autofree char *line = g_strdup_printf (
            "pid %d (%s) runs a JVM: its JIT frames were unwound by frame "
            "pointer, which compiled Java code keeps only when run with "
            "-XX:+PreserveFramePointer (otherwise callers may be skipped)",
            ev->pid, comm);
          su->options.report (ST_REPORT_WARNING, line,
                             su->options.report_data);
        }
      return;
    }
}

/* The chain unwound into SU->ips and SU->sps (R) into its result: what
   is done in the order of the samples (stitching, statistics, the
   --chains line).  */
static StUnwound *
conclude (StSampleUnwinder *su, StProcess *proc, const StEvent *ev,
          StUnwindResult *r)
{
  if (su->stitcher != NULL)
    stitch (su, proc, ev, r);
  if (g_hash_table_size (su->jvm_pids) > 0)
    advise_jvm (su, proc, ev, r->n_ips);
  st_stats_unwind (su->stats, ev->pid, proc->comm, r);
  if (r->status != ST_UNWIND_COMPLETE && su->options.debug
      && su->options.report != NULL)
    debug_line (su, proc, ev, r);

  StUnwound *u = unwound_new (su, r->n_ips);
  memcpy (u->ips, su->ips, r->n_ips * sizeof (uint64_t));
  u->status = r->status;
  u->cause = r->cause;
  u->n_stitched = r->n_stitched;
  u->stitched = r->n_stitched > 0;
  u->unprimed = r->unprimed;

  /* Named now: the process's mappings are those of the sample's time.  */
  if (su->sample_report != NULL)
    u->chain_line = report_sample (su, proc, ev, r->n_ips);
  return u;
}

/* The next pair of chain arrays when the stitcher may still read the
   last chains learnt.  */
static void
next_chain (StSampleUnwinder *su)
{
  if (su->chain_lent)
    {
      su->chain = (su->chain + 1) % G_N_ELEMENTS (su->chain_ips);
      su->ips = su->chain_ips[su->chain];
      su->sps = su->chain_sps[su->chain];
      su->chain_lent = FALSE;
    }
}

/* EV, or as if the recorder had copied less (truncate_stack, for
   testing stitching) in *CUT.  */
static const StEvent *
cut_stack (StSampleUnwinder *su, const StEvent *raw_ev, StEvent *cut)
{
  if (su->options.truncate_stack > 0
      && raw_ev->stack.stack_size > su->options.truncate_stack)
    {
      *cut = *raw_ev;
      cut->stack.stack_size = su->options.truncate_stack;
      return cut;
    }
  return raw_ev;
}

/* Unwinds raw-stack event RAW_EV; NULL when it must wait for a file
   being fetched (MAY_WAIT).  */
StUnwound *
st_sample_unwinder_unwind (StSampleUnwinder *su, const StEvent *raw_ev,
                           gboolean may_wait)
{
  StProcess *proc = st_process_table_get (su->processes, raw_ev->pid);
  StUnwindResult r;
  StEvent cut;

  st_process_table_use_unwind_state (su->processes, proc);
  next_chain (su);
  const StEvent *ev = cut_stack (su, raw_ev, &cut);
  /* Its registers and memory, set up once for every walk of it.  */
  StSampleContext sample;
  st_unwinder_sample_init (su->unwinder, &sample, proc, ev);
  if (!unwind_fetching (su, &sample, su->ips, su->sps, may_wait, TRUE, &r,
                        NULL, NULL))
    return NULL;
  if (may_lack_unwind_data (&r))
    charge_no_unwind_data (su, proc, &r);
  return conclude (su, proc, ev, &r);
}

void
st_sample_unwinder_walk (StSampleUnwinder *su, const StEvent *raw_ev,
                         StWalk *w, gboolean as_is)
{
  StProcess *proc = st_process_table_get (su->processes, raw_ev->pid);
  StEvent cut;
  const char *cost = NULL, *no_cfi = NULL;

  st_process_table_use_unwind_state (su->processes, proc);
  const StEvent *ev = cut_stack (su, raw_ev, &cut);
  StSampleContext sample;
  st_unwinder_sample_init (su->unwinder, &sample, proc, ev);
  w->n_fetch_pcs = 0;
  w->as_is = as_is;
  unwind_fetching (su, &sample, w->ips, w->sps, FALSE, as_is, &w->result,
                   &cost, w);
  if (may_lack_unwind_data (&w->result))
    no_cfi = no_unwind_data_at_stop (su, proc, w->ips, &w->result,
                                     &w->no_cfi_why);
  /* Copied: the engine's message and the module cache's names are
     this thread's.  */
  g_free (w->detail);
  g_free (w->cost_key);
  g_free (w->no_cfi_key);
  w->detail = g_strdup (w->result.detail);
  w->result.detail = w->detail;
  w->cost_key = g_strdup (cost);
  w->no_cfi_key = g_strdup (no_cfi);
}

StUnwound *
st_sample_unwinder_conclude (StSampleUnwinder *su, const StEvent *raw_ev,
                             StWalk *w)
{
  StProcess *proc = st_process_table_get (su->processes, raw_ev->pid);
  StEvent cut;
  StFileReport *files = st_module_cache_file_report (su->modules);

  st_process_table_use_unwind_state (su->processes, proc);
  next_chain (su);
  const StEvent *ev = cut_stack (su, raw_ev, &cut);
  /* The files the walk wanted, asked of this cache in turn (each once:
     again is nothing to fetch), as a walk here would have.  */
  for (guint i = 0; i < w->n_fetch_pcs; i++)
    {
      const StMap *map;
      StModule *m = module_at (su, proc, w->fetch_pcs[i], &map);
      if (m == NULL || !st_module_ready (m))
        continue;
      st_module_cache_fetch (su->modules, m, map);
      /* (Fetched on this cache's workers: the walk had its file.)  */
      if (!st_module_ready (m) && !w->as_is)
        st_module_cache_wait_for (su->modules, m);
    }
  if (w->cost_key != NULL)
    st_file_report_cost (files, w->cost_key);
  if (w->no_cfi_key != NULL)
    st_file_report_no_unwind_data (files, w->no_cfi_key, w->no_cfi_why);
  memcpy (su->ips, w->ips, w->result.n_ips * sizeof (uint64_t));
  memcpy (su->sps, w->sps, w->result.n_ips * sizeof (uint64_t));
  return conclude (su, proc, ev, &w->result);
}

void
st_walk_clear (StWalk *w)
{
  g_clear_pointer (&w->detail, g_free);
  g_clear_pointer (&w->cost_key, g_free);
  g_clear_pointer (&w->no_cfi_key, g_free);
  g_clear_pointer (&w->fetch_pcs, g_free);
  w->n_fetch_pcs = w->fetch_pcs_cap = 0;
}

StModulesReadiness
st_sample_unwinder_readiness (StSampleUnwinder *su, const StEvent *ev)
{
  StProcess *proc = st_process_table_get (su->processes, ev->pid);

  st_process_table_use_unwind_state (su->processes, proc);
  return st_unwinder_readiness (su->unwinder, proc);
}

void
st_sample_unwinder_apply (StSampleUnwinder *su, const StEvent *ev)
{
  st_process_table_apply (su->processes, ev);
  if (ev->kind == ST_EVENT_MAP)
    note_map (su, ev);
  if (su->stitcher != NULL && ev->kind == ST_EVENT_EXIT)
    st_stitcher_forget_thread (su->stitcher, ev->tid);
}
