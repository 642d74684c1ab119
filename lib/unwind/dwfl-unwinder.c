/* libdwfl unwinding.  The Dwfl of a process lives in its StProcess's
   unwind_state slot; its modules are re-reported only when the process's
   mappings changed.  */
#include "config.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "model/module-cache.h"
#include "unwind/dwfl-unwinder.h"
#include "unwind/registers.h"
#include "unwind/safe-debuginfo.h"

struct StDwflUnwinder
{
  StModuleCache *modules;
  Dwfl_Callbacks callbacks;
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
  /* Failed memory reads.  libdwfl ends a chain without an error when a
     return address, or a register the next CFA needs, cannot be read: this
     is how a cut stack is told from the outermost frame.  */
  uint32_t failed_at_frame;    /* frames delivered at the last failure */
  gboolean failed_read;
  gboolean failed_past_stack;  /* some read went past the stack copy */
  const char *loop;            /* why the walk was stopped as a loop */
} SampleContext;

typedef struct
{
  StDwflUnwinder *u;
  StProcess *process;
  Dwfl *dwfl;
  uint64_t reported_generation;
  gboolean attached;
  guint n_modules;
  const StRegisterLayout *layout;
  SampleContext *sample;
} ProcessState;

static const char *const cause_names[ST_CAUSE_N] = {
  "none", "stack-end", "memory", "no-module", "no-cfi", "no-regs",
  "no-maps", "arch", "max-depth", "loop"
};

const char *
st_unwind_cause_name (StUnwindCause cause)
{
  return cause < ST_CAUSE_N ? cause_names[cause] : "unknown";
}

/* libdwfl asks for the ELF of a module: hand it the shared Elf, with one
   more reference (elf_begin on a reference Elf only counts it).  */
static int
find_shared_elf (Dwfl_Module *mod, void **userdata, const char *modname,
                 Dwarf_Addr base, char **file_name, Elf **elfp)
{
  StModule *m = *userdata;

  if (m == NULL || m->elf == NULL)
    return -1;
  *elfp = st_module_elf_ref (m);
  *file_name = strdup (m->path);
  return -1;
}

StDwflUnwinder *
st_dwfl_unwinder_new (StModuleCache *modules)
{
  StDwflUnwinder *u = g_new0 (StDwflUnwinder, 1);

  u->modules = modules;
  u->callbacks.find_elf = find_shared_elf;
  /* Not dwfl_standard_find_debuginfo: it would open a FIFO named like a
     debug file and wait forever.  */
  u->callbacks.find_debuginfo = st_find_debuginfo_safely;
  u->callbacks.section_address = dwfl_offline_section_address;
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
read_stack (const SampleContext *c, uint64_t addr, Dwarf_Word *result)
{
  const uint64_t size = c->ev->stack.stack_size;
  const size_t width = c->ev->stack.abi == ST_REGS_ABI_32 ? 4 : 8;

  if (addr < c->sp || addr - c->sp > size || size - (addr - c->sp) < width)
    return FALSE;
  *result = 0;
  memcpy (result, c->ev->stack.stack + (addr - c->sp), width);
  return TRUE;
}

static bool
memory_read (Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *dwfl_arg)
{
  ProcessState *s = dwfl_arg;
  SampleContext *c = s->sample;

  if (read_stack (c, addr, result))
    return true;

  /* Outside the stack copy: the contents of a mapped file.  */
  const StMap *map = st_address_space_find (s->process->maps, addr);
  if (map != NULL && map->filename[0] != '\0')
    {
      StModule *m = st_module_cache_get (s->u->modules, map);
      size_t width = c->ev->stack.abi == ST_REGS_ABI_32 ? 4 : 8;
      *result = 0;
      if (m->elf != NULL && addr + width <= map->end
          && st_module_read (m, map->pgoff + (addr - map->start), result, width))
        return true;
    }
  c->failed_read = TRUE;
  c->failed_at_frame = c->n_ips;
  if (addr >= c->sp + c->ev->stack.stack_size)
    c->failed_past_stack = TRUE;
  return false;
}

static bool
set_initial_registers (Dwfl_Thread *thread, void *thread_arg)
{
  ProcessState *s = thread_arg;
  const StEvent *ev = s->sample->ev;
  const StRegisterLayout *l = s->layout;
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
  return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
  .next_thread = next_thread,
  .get_thread = get_thread,
  .memory_read = memory_read,
  .set_initial_registers = set_initial_registers,
};

/* --- modules -------------------------------------------------------------- */

typedef struct
{
  StModule *module;
  uint64_t start;
  uint64_t end;
} Candidate;

static int
candidate_cmp (const void *a, const void *b)
{
  const Candidate *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* Reports one module per mapped file (several mappings of one file at
   one bias are one module).  */
static void
report_modules (ProcessState *s)
{
  StAddressSpace *as = s->process->maps;
  GArray *cands = g_array_new (FALSE, FALSE, sizeof (Candidate));

  for (guint i = 0; i < st_address_space_size (as); i++)
    {
      const StMap *map = st_address_space_get (as, i);
      uint64_t bias;

      if (!st_map_maybe_code (map)
          || (map->filename[0] != '/' && strcmp (map->filename, "[vdso]") != 0))
        continue;
      StModule *m = st_module_cache_get (s->u->modules, map);
      if (m->elf == NULL || !st_module_bias (m, map, &bias))
        continue;
      Candidate c = { m, bias + m->low_vaddr, bias + m->high_vaddr };
      gboolean dup = FALSE;
      for (guint j = 0; j < cands->len; j++)
        {
          Candidate *o = &g_array_index (cands, Candidate, j);
          if (o->module == m && o->start == c.start)
            dup = TRUE;
        }
      if (!dup)
        g_array_append_val (cands, c);
    }
  g_array_sort (cands, candidate_cmp);

  dwfl_report_begin (s->dwfl);
  s->n_modules = 0;
  uint64_t covered = 0;
  for (guint i = 0; i < cands->len; i++)
    {
      Candidate *c = &g_array_index (cands, Candidate, i);
      if (c->start < covered)
        continue;   /* overlaps the previous module: a stale mapping */
      Dwfl_Module *mod = dwfl_report_module (s->dwfl, c->module->name,
                                             c->start, c->end);
      if (mod == NULL)
        continue;
      void **userdata;
      dwfl_module_info (mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
      *userdata = c->module;
      covered = c->end;
      s->n_modules++;
      if (s->layout == NULL)
        s->layout = st_register_layout (c->module->machine);
    }
  dwfl_report_end (s->dwfl, NULL, NULL);
  g_array_free (cands, TRUE);
  s->reported_generation = st_address_space_generation (as);
}

static ProcessState *
process_state (StDwflUnwinder *u, StProcess *p)
{
  ProcessState *s = p->unwind_state;

  if (s == NULL)
    {
      if (!p->maps_seen && !p->proc_tried)
        {
          /* Nothing in the stream: the process may still be running.  */
          p->proc_tried = TRUE;
          p->maps_seen = st_address_space_load_proc (p->maps, p->pid);
        }
      s = g_new0 (ProcessState, 1);
      s->u = u;
      s->process = p;
      s->dwfl = dwfl_begin (&u->callbacks);
      p->unwind_state = s;
      p->unwind_state_free = process_state_free;
    }
  if (s->reported_generation != st_address_space_generation (p->maps))
    report_modules (s);
  return s;
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
  /* Callers live at higher addresses: a walk going down, or coming back
     to a frame it saw (same PC and SP), is looping on bad data.  */
  if (c->n_ips > 0 && sp != 0)
    {
      uint64_t prev = c->sps[c->n_ips - 1];
      if (prev != 0 && sp < prev)
        {
          c->loop = "the stack pointer went down";
          return DWARF_CB_ABORT;
        }
      for (uint32_t j = c->n_ips; j > 0 && c->sps[j - 1] == sp; j--)
        if (c->ips[j - 1] == pc)
          {
            c->loop = "a frame (PC and SP) repeated";
            return DWARF_CB_ABORT;
          }
    }
  c->sps[c->n_ips] = sp;
  c->ips[c->n_ips++] = pc;
  return c->n_ips < c->max_ips ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* Whether PC lies in the function at its module's ELF entry point
   (_start): the outermost frame of a process, even where the start-up
   code carries no CFI saying so (ld.so's _start).  */
static gboolean
at_entry_point (Dwfl *dwfl, uint64_t pc)
{
  Dwfl_Module *mod = dwfl_addrmodule (dwfl, pc);
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

void
st_dwfl_unwinder_unwind (StDwflUnwinder *u, StProcess *p, const StEvent *ev,
                         uint64_t *ips, uint64_t *sps, uint32_t max_ips,
                         StUnwindResult *res)
{
  SampleContext c = { .ev = ev, .ips = ips, .sps = sps, .max_ips = max_ips };

  memset (res, 0, sizeof *res);
  res->status = ST_UNWIND_FAILED;

  ProcessState *s = process_state (u, p);
  if (st_address_space_size (p->maps) == 0)
    {
      res->cause = ST_CAUSE_NO_MAPS;
      return;
    }
  if (s->layout == NULL)
    {
      /* No usable module, or none of a supported architecture.  */
      res->cause = s->n_modules == 0 ? ST_CAUSE_NO_MODULE : ST_CAUSE_ARCH;
      return;
    }
  uint64_t ip;
  if (ev->stack.abi == ST_REGS_ABI_NONE
      || !st_event_register (ev, s->layout->perf_sp, &c.sp)
      || !st_event_register (ev, s->layout->perf_ip, &ip))
    {
      res->cause = ST_CAUSE_NO_REGS;
      return;
    }
  /* The DWARF stack pointer is the one perf's SP maps to.  */
  for (guint i = 0; i < s->layout->n_dwarf; i++)
    if (s->layout->perf_of_dwarf[i] == s->layout->perf_sp)
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

  s->sample = &c;
  int rc = dwfl_getthread_frames (s->dwfl, ev->tid, frame_cb, &c);
  s->sample = NULL;

  /* Frames past the last one in a known module are garbage read from a
     wrong CFA: drop them.  */
  while (c.n_ips > 1 && dwfl_addrmodule (s->dwfl, ips[c.n_ips - 1]) == NULL)
    {
      c.n_ips--;
      rc = -1;
      if (res->cause == ST_CAUSE_NONE)
        res->cause = ST_CAUSE_NO_MODULE;
    }
  res->n_ips = c.n_ips;

  if (c.n_ips == 0)
    {
      res->status = ST_UNWIND_FAILED;
      res->cause = ST_CAUSE_NO_REGS;
      res->detail = dwfl_errmsg (-1);
      return;
    }
  if (c.loop != NULL)
    {
      res->status = ST_UNWIND_TRUNCATED;
      res->cause = ST_CAUSE_LOOP;
      res->detail = c.loop;
      return;
    }
  /* Saved state beyond the stack copy, or an unreadable return address
     of the last frame, cut the chain.  */
  gboolean cut = c.failed_past_stack
                 || (c.failed_read && c.failed_at_frame == c.n_ips);
  if ((rc == 0 && !cut) || at_entry_point (s->dwfl, ips[c.n_ips - 1]))
    {
      res->status = ST_UNWIND_COMPLETE;
      res->cause = ST_CAUSE_NONE;
      return;
    }
  if (dwfl_addrmodule (s->dwfl, ips[0]) == NULL)
    {
      res->status = ST_UNWIND_FAILED;
      res->cause = ST_CAUSE_NO_MODULE;
      return;
    }
  res->status = ST_UNWIND_TRUNCATED;
  if (c.n_ips >= max_ips)
    res->cause = ST_CAUSE_MAX_DEPTH;
  else if (cut)
    res->cause = c.failed_past_stack ? ST_CAUSE_STACK_END : ST_CAUSE_MEMORY;
  else if (res->cause == ST_CAUSE_NONE)
    {
      res->cause = ST_CAUSE_NO_CFI;
      res->detail = dwfl_errmsg (-1);
    }
}
