/* libdwfl unwinding.  The Dwfl of a process lives in its StProcess's
   ST_UNWIND_SLOT_DWFL slot; its modules are re-reported only when the
   process's mappings changed.  */
#include "config.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "model/module-cache.h"
#include "unwind/dwfl-offline.h"
#include "unwind/dwfl-unwinder.h"
#include "unwind/fast-arch.h"
#include "unwind/leaf-code.h"
#include "unwind/process-modules.h"
#include "unwind/registers.h"
#include "unwind/return-check.h"
#include "unwind/sample-context.h"
#include "unwind/walk-outcome.h"

struct StDwflUnwinder
{
  StModuleCache *modules;
};

/* The walk of a sample and what happened to it.  */
typedef struct
{
  StSampleContext *sample;  /* started by the process's layout */
  uint64_t *ips;
  uint64_t *sps;
  unsigned sp_regno;      /* DWARF number of the stack pointer */
  uint32_t max_ips;
  uint32_t n_ips;
  StSampleMemory *mem;    /* the sample's: failed reads tell a cut stack
                             from the root */
  const char *loop;       /* why the walk was stopped as a loop, or NULL */
  gboolean not_after_call;  /* stopped on a return address after no call */
  const StFastArch *arch;   /* its code readings (fast-arch.h), or NULL */
  StReturnCheck *returns;
  StProcessModules *modules;
  /* The sampled frame was unwound by its code (leaf-code.h) and
     delivered: libdwfl starts at its caller, whose registers these are,
     at the PC RESTART_PC - 1 (a caller's PC, which libdwfl's initial
     frame keeps as it is).  */
  gboolean restart;
  StFrameRegs restart_regs;
  uint64_t restart_pc;
} Walk;

typedef struct
{
  StDwflUnwinder *u;
  StProcess *process;
  Dwfl *dwfl;
  StProcessModules modules;
  StReturnCheck *returns;   /* answers for MODULES; NULL: unchecked */
  gboolean attached;
  Walk *walk;             /* the walk under way, or NULL */
} ProcessState;

StDwflUnwinder *
st_dwfl_unwinder_new (StModuleCache *modules)
{
  StDwflUnwinder *u = g_new0 (StDwflUnwinder, 1);

  u->modules = modules;
  /* The libdwfl engine's preparation of a module: its debug file, when
     its CFI may be there (the fast engine's own hook does it too).  */
  st_module_cache_set_prepare (modules, st_dwfl_offline_prepare, NULL);
  return u;
}

void
st_dwfl_unwinder_free (StDwflUnwinder *u)
{
  g_free (u);
}

static void
process_state_free (gpointer data)
{
  ProcessState *s = data;

  if (s->dwfl != NULL)
    dwfl_end (s->dwfl);
  st_process_modules_clear (&s->modules);
  st_return_check_free (s->returns);
  g_free (s);
}

/* --- Dwfl_Thread_Callbacks ---------------------------------------------- */

static pid_t
next_thread (Dwfl *dwfl, void *dwfl_arg, void **thread_argp)
{
  return 0;   /* threads are only ever asked for by tid */
}

static bool
get_thread (Dwfl *dwfl, pid_t tid, void *dwfl_arg, void **thread_argp)
{
  ProcessState *s = dwfl_arg;

  *thread_argp = s;
  return s->walk != NULL;
}

static bool
memory_read (Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *dwfl_arg)
{
  ProcessState *s = dwfl_arg;
  uint64_t v;
  bool ok = st_sample_memory_read (s->walk->mem, addr, &v);

  *result = v;
  return ok;
}

/* The caller's registers the sampled frame's code gave.  */
static bool
set_restart_registers (Dwfl_Thread *thread, const Walk *c,
                       const StRegisterLayout *l)
{
  for (guint i = 0; i < l->n_dwarf; i++)
    if (c->restart_regs.set & (1u << i))
      {
        Dwarf_Word w = c->restart_regs.regs[i];
        if (!dwfl_thread_state_registers (thread, i, 1, &w))
          return false;
      }
  dwfl_thread_state_register_pc (thread, c->restart_pc - 1);
  Dwarf_Word w = c->restart_pc;
  return l->dwarf_pc < 0
         || dwfl_thread_state_registers (thread, l->dwarf_pc, 1, &w);
}

static bool
set_initial_registers (Dwfl_Thread *thread, void *thread_arg)
{
  ProcessState *s = thread_arg;
  StSampleContext *sample = s->walk->sample;
  const StRegisterLayout *l = sample->layout;
  const uint64_t pc = sample->pc;

  if (s->walk->restart)
    return set_restart_registers (thread, s->walk, l);
  const StFrameRegs *regs = st_sample_context_registers (sample);
  for (guint i = 0; i < l->n_dwarf; i++)
    if (regs->set & (1u << i))
      {
        Dwarf_Word w = regs->regs[i];
        if (!dwfl_thread_state_registers (thread, i, 1, &w))
          return false;
      }
  dwfl_thread_state_register_pc (thread, pc);
  /* Without it, an expression reading RIP (a PLT stub's CFA) fails and
     libdwfl ends the walk as if at the outermost frame.  */
  if (l->dwarf_pc >= 0)
    {
      Dwarf_Word w = pc;
      if (!dwfl_thread_state_registers (thread, l->dwarf_pc, 1, &w))
        return false;
    }
  return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
  .next_thread = next_thread,
  .get_thread = get_thread,
  .memory_read = memory_read,
  .set_initial_registers = set_initial_registers,
};

/* --- modules -------------------------------------------------------------- */

/* Reports the process's modules (process-modules.h) to its Dwfl.  */
static void
report_modules (ProcessState *s)
{
  StProcessModules *pm = &s->modules;

  st_process_modules_build (pm, s->process->maps);
  st_return_check_clear (s->returns);
  dwfl_report_begin (s->dwfl);
  for (guint i = 0; i < pm->n;)
    {
      const StProcessModule *c = &pm->mods[i];
      Dwfl_Module *mod = dwfl_report_module (s->dwfl, c->module->name,
                                             c->start, c->end);
      if (mod == NULL)
        {
          st_process_modules_remove (pm, i);
          continue;
        }
      void **userdata;
      dwfl_module_info (mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
      *userdata = c->module;
      i++;
    }
  dwfl_report_end (s->dwfl, NULL, NULL);
}

static ProcessState *
process_state (StDwflUnwinder *u, StProcess *p)
{
  ProcessState *s = p->unwind_state[ST_UNWIND_SLOT_DWFL];

  if (s == NULL)
    {
      st_process_load_maps_once (p);
      s = g_new0 (ProcessState, 1);
      s->u = u;
      s->process = p;
      s->dwfl = dwfl_begin (&st_dwfl_offline_callbacks);
      st_process_modules_init (&s->modules, u->modules);
      p->unwind_state[ST_UNWIND_SLOT_DWFL] = s;
      p->unwind_state_free[ST_UNWIND_SLOT_DWFL] = process_state_free;
    }
  if (st_process_modules_stale (&s->modules, p->maps))
    report_modules (s);
  return s;
}

StProcessModules *
st_dwfl_unwinder_modules (StDwflUnwinder *u, StProcess *p)
{
  return &process_state (u, p)->modules;
}

StModulesReadiness
st_dwfl_unwinder_readiness (StDwflUnwinder *u, StProcess *p)
{
  return st_process_modules_readiness (&process_state (u, p)->modules);
}

Dwfl *
st_dwfl_unwinder_dwfl (StDwflUnwinder *u, StProcess *p)
{
  return process_state (u, p)->dwfl;
}

static int
first_elf_cb (Dwfl_Module *mod, void **userdata, const char *name,
              Dwarf_Addr start, void *arg)
{
  StModule *m = *userdata;
  Elf **out = arg;

  if (m != NULL && m->elf != NULL)
    {
      *out = m->elf;
      return DWARF_CB_ABORT;
    }
  return DWARF_CB_OK;
}

static int
frame_cb (Dwfl_Frame *state, void *arg)
{
  Walk *c = arg;
  Dwarf_Addr pc;
  bool activation;

  /* For a caller this unwinds it already (to learn whether the next
     frame is a signal frame): its reads count for the frames delivered
     so far.  */
  if (!dwfl_frame_pc (state, &pc, &activation))
    return DWARF_CB_ABORT;
  /* After a restart, the first frame is a caller already stepped back.  */
  gboolean restarted = c->restart && c->n_ips == 1;
  if ((!activation || restarted)
      && !st_return_check (c->returns, c->arch, c->modules,
                           restarted ? pc + 1 : pc))
    {
      c->not_after_call = TRUE;
      return DWARF_CB_ABORT;
    }
  /* A caller's PC is a return address: step back into the call.  */
  if (!activation && pc > 0)
    pc--;
  Dwarf_Word sp = 0;
  if (c->n_ips == 0)
    sp = c->sample->sp;
  else if (dwfl_frame_reg (state, c->sp_regno, &sp) != 0)
    sp = 0;
  if ((c->loop = st_walk_loops (c->ips, c->sps, c->n_ips, pc, sp)) != NULL)
    return DWARF_CB_ABORT;
  c->sps[c->n_ips] = sp;
  c->ips[c->n_ips++] = pc;
  c->mem->frame = c->n_ips;
  return c->n_ips < c->max_ips ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* --- the outcome ---------------------------------------------------------- */

static gboolean
dwfl_in_module (void *user, uint64_t pc)
{
  ProcessState *s = user;
  return dwfl_addrmodule (s->dwfl, pc) != NULL;
}

static gboolean
dwfl_at_entry_point (void *user, uint64_t pc)
{
  ProcessState *s = user;
  Dwfl_Module *mod = dwfl_addrmodule (s->dwfl, pc);
  Dwarf_Addr bias;
  GElf_Ehdr ehdr;
  GElf_Sym sym;
  GElf_Off off;

  if (mod == NULL)
    return FALSE;
  Elf *elf = dwfl_module_getelf (mod, &bias);
  if (elf == NULL || gelf_getehdr (elf, &ehdr) == NULL || ehdr.e_entry == 0)
    return FALSE;
  uint64_t entry = ehdr.e_entry + bias;
  if (dwfl_module_addrinfo (mod, pc, &off, &sym, NULL, NULL, NULL) != NULL)
    return pc - off == entry;   /* OFF: PC minus the symbol's address */
  return pc >= entry && pc - entry < 64;
}

static const char *
dwfl_detail (void *user)
{
  return dwfl_errmsg (-1);
}

static gboolean
dwfl_stack_root (void *user, uint64_t pc)
{
  ProcessState *s = user;
  return st_process_modules_stack_root (&s->modules, pc);
}

/* Whether CFI covers PC (libdwfl's order: .eh_frame, then
   .debug_frame), as the fast engine's rule cache tells it.  */
static gboolean
has_cfi (Dwfl_Module *mod, uint64_t pc)
{
  for (guint i = 0; i < 2; i++)
    {
      /* .debug_frame only when .eh_frame has no row, as libdwfl does:
         asking for it reads the module's DWARF (decompressed, when its
         sections are), kept with this process's Dwfl: some 190 MB for
         256 processes of a live session, for addresses .eh_frame
         covered.  */
      Dwarf_Addr bias;
      Dwarf_CFI *cfi = i == 0 ? dwfl_module_eh_cfi (mod, &bias)
                              : dwfl_module_dwarf_cfi (mod, &bias);
      Dwarf_Frame *frame;
      if (cfi != NULL && dwarf_cfi_addrframe (cfi, pc - bias, &frame) == 0)
        {
          free (frame);
          return TRUE;
        }
    }
  return FALSE;
}

typedef enum
{
  LEAF_NONE,            /* libdwfl walks from the sampled frame */
  LEAF_RESTART,         /* delivered; libdwfl walks from its caller */
  LEAF_OUTERMOST,       /* delivered; no caller */
  LEAF_FAILED,          /* delivered; its caller could not be read */
} LeafStart;

/* The sampled frame at PC, when no CFI covers it and its code tells
   where its return address is: delivered and unwound here, as the fast
   engine does (leaf-code.h).  */
static LeafStart
leaf_by_code (ProcessState *s, Walk *c, uint64_t pc)
{
  Dwfl_Module *mod;
  const StProcessModule *m;
  StLeafRule rule;

  if (c->arch == NULL || c->arch->leaf_rule == NULL || c->max_ips < 2
      || (m = st_process_modules_find (&s->modules, pc)) == NULL
      || (mod = dwfl_addrmodule (s->dwfl, pc)) == NULL || has_cfi (mod, pc))
    return LEAF_NONE;
  uint64_t start = 0;
  gboolean start_known = st_function_start (mod, pc, &start);
  if (!st_leaf_code_rule (c->arch, m, pc, start_known, start, &rule))
    return LEAF_NONE;

  /* The registers as the fast engine's full walk starts with them.  */
  StFrameRegs cur = *st_sample_context_registers (c->sample);
  if (c->arch->n_regs < 32)
    cur.set &= (1u << c->arch->n_regs) - 1;
  c->ips[0] = pc;
  c->sps[0] = c->sample->sp;
  c->n_ips = 1;
  c->mem->frame = 1;
  switch (st_leaf_rule_step (c->arch, &rule, &cur, c->mem, &s->modules,
                             &c->restart_regs, &c->restart_pc))
    {
    case ST_LEAF_CALLER:
      c->restart = TRUE;
      return LEAF_RESTART;
    case ST_LEAF_OUTERMOST:
      return LEAF_OUTERMOST;
    case ST_LEAF_FAILED:
      return LEAF_FAILED;
    default:
      c->n_ips = 0;
      c->mem->frame = 0;
      return LEAF_NONE;
    }
}

void
st_dwfl_unwinder_unwind_sample (StDwflUnwinder *u, StSampleContext *sample,
                                uint64_t *ips, uint64_t *sps,
                                uint32_t max_ips, StUnwindResult *res)
{
  Walk c = { .sample = sample, .ips = ips, .sps = sps, .max_ips = max_ips };
  StProcess *p = sample->process;
  const StEvent *ev = sample->ev;

  ProcessState *s = process_state (u, p);
  const StRegisterLayout *layout = s->modules.layout;
  if (!st_walk_start (res, ST_PATH_DWFL, p, &s->modules))
    return;
  if (ev->stack.abi == ST_REGS_ABI_NONE
      || !st_sample_context_start (sample, layout))
    {
      res->cause = ST_CAUSE_NO_REGS;
      return;
    }
  /* The DWARF stack pointer is the one perf's SP maps to.  */
  c.sp_regno = sample->map->dwarf_sp;
  if (!s->attached)
    {
      Elf *elf = NULL;
      dwfl_getmodules (s->dwfl, first_elf_cb, &elf, 0);
      if (elf == NULL
          || !dwfl_attach_state (s->dwfl, elf, p->pid, &thread_callbacks, s))
        {
          res->cause = ST_CAUSE_ARCH;
          res->detail = dwfl_errmsg (-1);
          return;
        }
      s->attached = TRUE;
    }

  c.mem = st_sample_context_memory (sample);
  c.arch = st_fast_arch (layout->elf_machine);
  if (s->returns == NULL && c.arch != NULL && c.arch->follows_call != NULL)
    s->returns = st_return_check_new ();
  c.returns = s->returns;
  c.modules = &s->modules;
  int rc = 0;
  LeafStart leaf = leaf_by_code (s, &c, sample->pc);
  if (leaf == LEAF_FAILED)
    rc = -1;
  else if (leaf != LEAF_OUTERMOST)
    {
      s->walk = &c;
      rc = dwfl_getthread_frames (s->dwfl, ev->tid, frame_cb, &c);
      s->walk = NULL;
    }

  StWalkOracle oracle = { dwfl_in_module, dwfl_at_entry_point, dwfl_detail,
                          s->modules.stack_roots ? dwfl_stack_root : NULL, s,
                          &s->modules };
  st_walk_outcome (ips, &c.n_ips, max_ips, rc == 0, c.loop, c.not_after_call,
                   c.mem, &oracle, res);
  res->n_code_frames = leaf == LEAF_RESTART;
}

void
st_dwfl_unwinder_unwind (StDwflUnwinder *u, StProcess *p, const StEvent *ev,
                         uint64_t *ips, uint64_t *sps, uint32_t max_ips,
                         StUnwindResult *res)
{
  StRegisterMaps maps;
  StSampleContext c;

  st_register_maps_init (&maps);
  st_sample_context_init (&c, &maps, p, ev, u->modules);
  st_dwfl_unwinder_unwind_sample (u, &c, ips, sps, max_ips, res);
}
