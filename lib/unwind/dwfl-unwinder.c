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
#include "unwind/process-modules.h"
#include "unwind/registers.h"
#include "unwind/sample-memory.h"
#include "unwind/walk-outcome.h"

struct StDwflUnwinder
{
  StModuleCache *modules;
};

/* The sample being unwound and what happened to it.  */
typedef struct
{
  const StEvent *ev;
  uint64_t sp;
  uint64_t *ips;
  uint64_t *sps;
  unsigned sp_regno;      /* DWARF number of the stack pointer */
  uint32_t max_ips;
  uint32_t n_ips;
  StSampleMemory mem;     /* failed reads tell a cut stack from the root */
  const char *loop;       /* why the walk was stopped as a loop, or NULL */
} SampleContext;

typedef struct
{
  StDwflUnwinder *u;
  StProcess *process;
  Dwfl *dwfl;
  StProcessModules modules;
  gboolean attached;
  SampleContext *sample;
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
  return s->sample != NULL;
}

static bool
memory_read (Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *dwfl_arg)
{
  ProcessState *s = dwfl_arg;
  uint64_t v;
  bool ok = st_sample_memory_read (&s->sample->mem, addr, &v);

  *result = v;
  return ok;
}

static bool
set_initial_registers (Dwfl_Thread *thread, void *thread_arg)
{
  ProcessState *s = thread_arg;
  const StEvent *ev = s->sample->ev;
  const StRegisterLayout *l = s->modules.layout;
  uint64_t pc;

  for (guint i = 0; i < l->n_dwarf; i++)
    {
      uint64_t v;
      if (l->perf_of_dwarf[i] >= 0
          && st_event_register (ev, l->perf_of_dwarf[i], &v))
        {
          Dwarf_Word w = v;
          if (!dwfl_thread_state_registers (thread, i, 1, &w))
            return false;
        }
    }
  if (!st_event_register (ev, l->perf_ip, &pc))
    return false;
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
  SampleContext *c = arg;
  Dwarf_Addr pc;
  bool activation;

  /* For a caller this unwinds it already (to learn whether the next
     frame is a signal frame): its reads count for the frames delivered
     so far.  */
  if (!dwfl_frame_pc (state, &pc, &activation))
    return DWARF_CB_ABORT;
  /* A caller's PC is a return address: step back into the call.  */
  if (!activation && pc > 0)
    pc--;
  Dwarf_Word sp = 0;
  if (c->n_ips == 0)
    sp = c->sp;
  else if (dwfl_frame_reg (state, c->sp_regno, &sp) != 0)
    sp = 0;
  if ((c->loop = st_walk_loops (c->ips, c->sps, c->n_ips, pc, sp)) != NULL)
    return DWARF_CB_ABORT;
  c->sps[c->n_ips] = sp;
  c->ips[c->n_ips++] = pc;
  c->mem.frame = c->n_ips;
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

void
st_dwfl_unwinder_unwind (StDwflUnwinder *u, StProcess *p, const StEvent *ev,
                         uint64_t *ips, uint64_t *sps, uint32_t max_ips,
                         StUnwindResult *res)
{
  SampleContext c = { .ev = ev, .ips = ips, .sps = sps, .max_ips = max_ips };

  ProcessState *s = process_state (u, p);
  const StRegisterLayout *layout = s->modules.layout;
  if (!st_walk_start (res, ST_PATH_DWFL, p, &s->modules))
    return;
  uint64_t ip;
  if (ev->stack.abi == ST_REGS_ABI_NONE
      || !st_event_register (ev, layout->perf_sp, &c.sp)
      || !st_event_register (ev, layout->perf_ip, &ip))
    {
      res->cause = ST_CAUSE_NO_REGS;
      return;
    }
  /* The DWARF stack pointer is the one perf's SP maps to.  */
  for (guint i = 0; i < layout->n_dwarf; i++)
    if (layout->perf_of_dwarf[i] == layout->perf_sp)
      c.sp_regno = i;
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

  st_sample_memory_init (&c.mem, ev, c.sp, p, u->modules);
  s->sample = &c;
  int rc = dwfl_getthread_frames (s->dwfl, ev->tid, frame_cb, &c);
  s->sample = NULL;

  StWalkOracle oracle = { dwfl_in_module, dwfl_at_entry_point, dwfl_detail, s };
  st_walk_outcome (ips, &c.n_ips, max_ips, rc == 0, c.loop, &c.mem, &oracle,
                   res);
}
