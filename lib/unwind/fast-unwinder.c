/* The fast engine's walk.  It follows libdwfl 0.188's
   dwfl_thread_getframes + frame_unwind.c step by step, including when
   reads happen (they decide, through StSampleMemory's failure record,
   whether a walk was cut by the end of the stack copy):

   - the leaf frame is unwound after it is delivered, every later frame
     before (dwfl_frame_pc asks whether the caller is a signal frame);
   - an unwind that finds neither CFI nor a usable frame pointer is
     discarded and tried once more after the frame is delivered;
   - CFI is looked up at the PC of the leaf, at PC - 1 of callers;
   - a signal frame read by the architecture (aarch64, i386: its
     signal_frame) makes its caller, the interrupted code, a frame like
     the leaf: its PC is exact (looked up and given as it is, not
     checked as a return address) and every register is known, as
     libdwfl treats the caller of a CFI signal frame ('S').  */
#include "config.h"

#include <string.h>

#include "unwind/fast-arch.h"
#include "unwind/fast-unwinder.h"
#include "unwind/leaf-code.h"
#include "unwind/lean-walk.h"
#include "unwind/process-modules.h"
#include "unwind/registers.h"
#include "unwind/rule-cache.h"
#include "unwind/sample-context.h"
#include "unwind/walk-outcome.h"
#include "util/byte-budget.h"

struct StFastUnwinder
{
  StModuleCache *modules;
  StDwflUnwinder *dwfl;
  gboolean lean;              /* try the lean walk first */
  StByteBudget *rule_budget;  /* of every module's rule tables: the
                                 module cache's */
};

typedef struct
{
  StProcess *process;
  StProcessModules modules;
  const StFastArch *arch;     /* NULL: not for the fast engine */
} ProcessState;

StFastUnwinder *
st_fast_unwinder_new (StModuleCache *modules)
{
  StFastUnwinder *u = g_new0 (StFastUnwinder, 1);

  u->modules = modules;
  u->dwfl = st_dwfl_unwinder_new (modules);
  u->lean = TRUE;
  u->rule_budget = st_module_cache_table_budget (modules);
  st_module_cache_set_prepare (modules, st_rule_cache_prepare,
                               u->rule_budget);
  return u;
}

void
st_fast_unwinder_free (StFastUnwinder *u)
{
  if (u == NULL)
    return;
  st_dwfl_unwinder_free (u->dwfl);
  g_free (u);
}

void
st_fast_unwinder_set_rule_bytes (StFastUnwinder *u, size_t max_bytes)
{
  u->rule_budget->max_bytes = max_bytes;
}

guint64
st_fast_unwinder_rule_coolings (const StFastUnwinder *u)
{
  return u->rule_budget->coolings;
}

StDwflUnwinder *
st_fast_unwinder_dwfl_engine (StFastUnwinder *u)
{
  return u->dwfl;
}

void
st_fast_unwinder_set_lean (StFastUnwinder *u, gboolean lean)
{
  u->lean = lean;
}

static void
process_state_free (gpointer data)
{
  ProcessState *s = data;

  st_process_modules_clear (&s->modules);
  g_free (s);
}

/* The fast engine takes a process when every module is of one
   architecture it knows and has its rule tables.  */
static const StFastArch *
process_arch (const StProcessModules *pm)
{
  if (pm->layout == NULL)
    return NULL;
  const StFastArch *arch = st_fast_arch (pm->layout->elf_machine);
  if (arch == NULL)
    return NULL;
  for (guint i = 0; i < pm->n; i++)
    {
      const StModule *m = pm->mods[i].module;
      if (m->machine != arch->machine || m->elf_class != arch->elf_class
          || m->tables == NULL)
        return NULL;
    }
  return arch;
}

static ProcessState *
process_state (StFastUnwinder *u, StProcess *p)
{
  ProcessState *s = p->unwind_state[ST_UNWIND_SLOT_FAST];

  if (s == NULL)
    {
      st_process_load_maps_once (p);
      s = g_new0 (ProcessState, 1);
      s->process = p;
      st_process_modules_init (&s->modules, u->modules);
      p->unwind_state[ST_UNWIND_SLOT_FAST] = s;
      p->unwind_state_free[ST_UNWIND_SLOT_FAST] = process_state_free;
    }
  if (st_process_modules_stale (&s->modules, p->maps))
    {
      st_process_modules_build (&s->modules, p->maps);
      s->arch = process_arch (&s->modules);
    }
  return s;
}

StProcessModules *
st_fast_unwinder_modules (StFastUnwinder *u, StProcess *p)
{
  return &process_state (u, p)->modules;
}

StModulesReadiness
st_fast_unwinder_readiness (StFastUnwinder *u, StProcess *p)
{
  return st_process_modules_readiness (&process_state (u, p)->modules);
}

/* --- one step ---------------------------------------------------------------- */

typedef enum
{
  STEP_CALLER,       /* the caller's registers and PC are known */
  STEP_OUTERMOST,    /* no caller: its PC is undefined */
  STEP_FAILED,       /* no way to unwind this frame */
  STEP_FALLBACK,     /* a rule we cannot apply: libdwfl must do it */
} Step;

typedef struct
{
  ProcessState *s;
  const StFastArch *arch;
  StSampleMemory *mem;         /* the sample's (sample-context.h) */
  StFallbackReason fallback;
  gboolean by_frame_pointer;   /* the last step used no CFI */
  gboolean by_code;            /* the last step was the sampled frame's,
                                  by what its code tells (leaf-code.h) */
  gboolean by_signal;          /* the last step read a signal frame */
  const char *loop;            /* why the walk was stopped as a loop */
} Walk;

/* Whether CFI covers ADDR (StNoCfiFrame.has_cfi).  */
static gboolean
has_cfi (void *user, uint64_t addr)
{
  ProcessState *s = user;
  const StProcessModule *pm = st_process_modules_find (&s->modules, addr);

  return pm != NULL
         && st_rule_cache_lookup (pm->module->tables, addr - pm->bias)->kind
            != ST_RULE_NO_CFI;
}

/* Whether the frame at PC is a signal trampoline the architecture reads
   (where the CFI says nothing, or that it is a signal frame).  */
static gboolean
signal_step (Walk *w, const StFrameRegs *cur, uint64_t pc, StFrameRegs *next,
             uint64_t *next_pc)
{
  if (w->arch->signal_frame == NULL
      || !w->arch->signal_frame (cur, pc, w->mem, next, next_pc))
    return FALSE;
  w->by_signal = TRUE;
  return TRUE;
}

/* Frame 0 at PC, whose CFI gave no return address or one outside every
   module, unwound from its code up to its return instead, where the
   architecture reads that code (StFastArch.code_to_ret) and the return
   address it finds lies in a module.  TRUE with NEXT and *NEXT_PC
   replaced.  */
static gboolean
code_to_ret_step (Walk *w, const StFrameRegs *cur, uint64_t pc,
                  StFrameRegs *next, uint64_t *next_pc)
{
  StFrameRegs from_code;
  uint64_t ra;

  if (w->arch->code_to_ret == NULL
      || !w->arch->code_to_ret (cur, pc, w->mem, &from_code, &ra)
      || st_process_modules_find (&w->s->modules, ra) == NULL)
    return FALSE;
  *next = from_code;
  *next_pc = ra;
  w->by_code = TRUE;
  return TRUE;
}

/* Unwinds the frame at PC with registers CUR (libdwfl's
   __libdwfl_frame_unwind).  INITIAL: PC is exact and every register
   known (the sampled frame, or the code a signal interrupted).  */
static Step
step (Walk *w, const StFrameRegs *cur, uint64_t pc, gboolean initial,
      StFrameRegs *next, uint64_t *next_pc)
{
  uint64_t lookup = initial ? pc : pc - 1;
  const StProcessModule *pm = st_process_modules_find (&w->s->modules, lookup);

  w->by_frame_pointer = FALSE;
  w->by_code = FALSE;
  w->by_signal = FALSE;
  if (pm != NULL)
    {
      const StUnwindRule *rule = st_rule_cache_lookup (pm->module->tables,
                                                       lookup - pm->bias);
      StLeafRule leaf;
      switch (rule->kind)
        {
        case ST_RULE_OK:
          {
            gboolean applied = st_cfi_rule_apply (rule, cur, next,
                                                  w->arch->ra, w->mem,
                                                  next_pc);
            *next_pc &= w->arch->ra_mask;
            /* A return address of 0 is the end of the stack.  */
            if (initial && w->arch->code_to_ret != NULL
                && (!applied
                    || (*next_pc != 0
                        && st_process_modules_find (&w->s->modules,
                                                    *next_pc) == NULL))
                && code_to_ret_step (w, cur, pc, next, next_pc))
              return STEP_CALLER;
            return applied ? STEP_CALLER : STEP_OUTERMOST;
          }
        case ST_RULE_FALLBACK:
          if (rule->fallback == ST_FALLBACK_SIGNAL
              && signal_step (w, cur, pc, next, next_pc))
            return STEP_CALLER;
          w->fallback = rule->fallback;
          return STEP_FALLBACK;
        default:
          if (signal_step (w, cur, pc, next, next_pc))
            return STEP_CALLER;
          if (!initial || w->arch->leaf_rule == NULL
              || !st_rule_cache_leaf_rule (pm->module->tables, pm, pc, &leaf))
            break;
          switch (st_leaf_rule_step (w->arch, &leaf, cur, w->mem,
                                     &w->s->modules, next, next_pc))
            {
            case ST_LEAF_CALLER:
              w->by_code = TRUE;
              return STEP_CALLER;
            case ST_LEAF_OUTERMOST:
              return STEP_OUTERMOST;
            case ST_LEAF_FAILED:
              return STEP_FAILED;
            case ST_LEAF_NOT_TAKEN:
              break;
            }
          break;
        }
    }
  else if (signal_step (w, cur, pc, next, next_pc))
    return STEP_CALLER;
  w->by_frame_pointer = TRUE;
  StNoCfiFrame frame = { pc, initial, has_cfi, w->s };
  if (!w->arch->no_cfi_step (cur, &frame, next, w->mem, next_pc))
    return STEP_FAILED;
  *next_pc &= w->arch->ra_mask;
  return STEP_CALLER;
}

typedef enum
{
  WALK_OUTERMOST,
  WALK_STOPPED,
  WALK_NOT_AFTER_CALL,
  WALK_FALLBACK,
} WalkEnd;

static WalkEnd
walk (Walk *w, StFrameRegs *regs, uint64_t pc, uint64_t *ips, uint64_t *sps,
      uint32_t max, uint32_t *n_out, uint32_t *n_fp, uint32_t *n_code)
{
  StFrameRegs other, *cur = regs, *next = &other;
  const unsigned sp_reg = w->arch->sp;
  gboolean initial = TRUE;
  /* PC is exact, not a return address: frame 0, or the code a signal
     frame interrupted.  */
  gboolean exact = TRUE;
  /* The caller found by the sampled frame's code is unwound after it is
     delivered, as libdwfl's initial frame (the libdwfl engine starts
     its walk there, dwfl-unwinder.c).  */
  gboolean late = FALSE;
  uint32_t n = 0;
  uint64_t next_pc = 0;
  Step st = STEP_FAILED;
  WalkEnd end;

  for (;;)
    {
      if (!initial && !late)
        {
          /* Unwound while delivering it (signal frame check).  */
          st = step (w, cur, pc, exact, next, &next_pc);
          if (st == STEP_FALLBACK)
            return WALK_FALLBACK;
        }
      if (!exact
          && !st_rule_cache_return_ok (&w->s->modules, w->arch, pc))
        {
          end = WALK_NOT_AFTER_CALL;
          break;
        }
      uint64_t ip = exact || pc == 0 ? pc : pc - 1;
      uint64_t sp = initial ? w->mem->sp
                    : (cur->set & (1u << sp_reg)) ? cur->regs[sp_reg] : 0;
      if ((w->loop = st_walk_loops (ips, sps, n, ip, sp)) != NULL)
        {
          end = WALK_STOPPED;
          break;
        }
      ips[n] = ip;
      sps[n] = sp;
      w->mem->frame = ++n;
      if (n >= max)
        {
          end = WALK_STOPPED;
          break;
        }
      if (initial || late || st == STEP_FAILED)
        {
          /* The leaf's unwind, or the retry of a discarded one.  */
          st = step (w, cur, pc, exact, next, &next_pc);
          if (st == STEP_FALLBACK)
            return WALK_FALLBACK;
        }
      if (st == STEP_FAILED)
        {
          end = WALK_STOPPED;
          break;
        }
      if (st == STEP_OUTERMOST)
        {
          end = WALK_OUTERMOST;
          break;
        }
      if (w->by_frame_pointer)
        (*n_fp)++;
      *n_code += w->by_code;
      late = w->by_code;
      StFrameRegs *t = cur;
      cur = next;
      next = t;
      pc = next_pc;
      initial = FALSE;
      exact = w->by_signal;
    }
  *n_out = n;
  return end;
}

/* --- the outcome ---------------------------------------------------------- */

static gboolean
fast_in_module (void *user, uint64_t pc)
{
  ProcessState *s = user;
  return st_process_modules_find (&s->modules, pc) != NULL;
}

static gboolean
fast_at_entry_point (void *user, uint64_t pc)
{
  ProcessState *s = user;
  const StProcessModule *m = st_process_modules_find (&s->modules, pc);

  return m != NULL && m->module->tables != NULL
         && st_rule_cache_at_entry_point (m->module->tables, pc - m->bias);
}

static const char *
fast_detail (void *user)
{
  return "no CFI and no usable frame pointer";
}

static gboolean
fast_stack_root (void *user, uint64_t pc)
{
  ProcessState *s = user;
  return st_process_modules_stack_root (&s->modules, pc);
}

static StWalkOracle
fast_oracle (ProcessState *s)
{
  StWalkOracle o = { fast_in_module, fast_at_entry_point, fast_detail,
                     s->modules.stack_roots ? fast_stack_root : NULL, s,
                     &s->modules };
  return o;
}

static void
hand_to_dwfl (StFastUnwinder *u, StSampleContext *c, uint64_t *ips,
              uint64_t *sps, uint32_t max_ips, StUnwindResult *res,
              StFallbackReason why)
{
  st_dwfl_unwinder_unwind_sample (u->dwfl, c, ips, sps, max_ips, res);
  res->path = ST_PATH_FALLBACK;
  res->fallback = why;
}

/* The full walk of the started sample C.  */
static void
full_walk (StFastUnwinder *u, ProcessState *s, StSampleContext *c,
           uint64_t *ips, uint64_t *sps, uint32_t max_ips,
           StUnwindResult *res)
{
  /* The sample's registers, but those the architecture does not track
     (as libdwfl's frames hold them).  */
  StFrameRegs regs = *st_sample_context_registers (c);
  if (s->arch->n_regs < 32)
    regs.set &= (1u << s->arch->n_regs) - 1;

  Walk w = { .s = s, .arch = s->arch, .mem = st_sample_context_memory (c) };
  uint32_t n = 0, n_fp = 0, n_code = 0;
  WalkEnd end = walk (&w, &regs, c->pc, ips, sps, max_ips, &n, &n_fp,
                      &n_code);
  if (end == WALK_FALLBACK)
    {
      hand_to_dwfl (u, c, ips, sps, max_ips, res, w.fallback);
      return;
    }
  StWalkOracle oracle = fast_oracle (s);
  st_walk_outcome (ips, &n, max_ips, end == WALK_OUTERMOST, w.loop,
                   end == WALK_NOT_AFTER_CALL, w.mem, &oracle, res);
  res->n_fp_frames = n_fp;
  res->n_code_frames = n_code;
}

void
st_fast_unwinder_unwind_sample (StFastUnwinder *u, StSampleContext *c,
                                uint64_t *ips, uint64_t *sps,
                                uint32_t max_ips, StUnwindResult *res)
{
  /* Between walks: no rule of any module is in use.  */
  st_byte_budget_enforce (u->rule_budget);
  ProcessState *s = process_state (u, c->process);
  if (!st_walk_start (res, ST_PATH_RULES, c->process, &s->modules))
    return;
  if (s->arch == NULL || c->ev->stack.abi != s->arch->regs_abi)
    {
      hand_to_dwfl (u, c, ips, sps, max_ips, res, ST_FALLBACK_ARCH);
      return;
    }

  if (!st_sample_context_start (c, s->modules.layout))
    {
      res->cause = ST_CAUSE_NO_REGS;
      return;
    }
  if (u->lean && s->arch->lean)
    {
      /* The lean walk needs the frame pointer of the three registers
         besides the PC and stack pointer.  */
      uint64_t fp = 0;
      gboolean fp_known = st_sample_context_register (c, s->arch->fp, &fp);
      StSampleMemory *mem = st_sample_context_memory (c);
      uint32_t n = 0, n_fp = 0;
      StLeanEnd end = st_lean_walk (&s->modules, s->arch, mem, c->pc, fp,
                                    fp_known, ips, sps, max_ips, &n, &n_fp);
      if (end != ST_LEAN_BAILED)
        {
          StWalkOracle oracle = fast_oracle (s);
          res->lean = TRUE;
          res->n_fp_frames = n_fp;
          st_walk_outcome (ips, &n, max_ips, end == ST_LEAN_OUTERMOST, NULL,
                           end == ST_LEAN_NOT_AFTER_CALL, mem, &oracle, res);
          return;
        }
    }

  full_walk (u, s, c, ips, sps, max_ips, res);
}

void
st_fast_unwinder_unwind (StFastUnwinder *u, StProcess *p, const StEvent *ev,
                         uint64_t *ips, uint64_t *sps, uint32_t max_ips,
                         StUnwindResult *res)
{
  StRegisterMaps maps;
  StSampleContext c;

  st_register_maps_init (&maps);
  st_sample_context_init (&c, &maps, p, ev, u->modules);
  st_fast_unwinder_unwind_sample (u, &c, ips, sps, max_ips, res);
}
