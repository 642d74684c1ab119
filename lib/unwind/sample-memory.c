#include "config.h"

#include "unwind/sample-memory.h"

void
st_sample_memory_init (StSampleMemory *m, const StEvent *ev, uint64_t sp,
                       StProcess *process, StModuleCache *modules)
{
  memset (m, 0, sizeof *m);
  m->ev = ev;
  m->sp = sp;
  m->stack = ev->stack.stack;
  m->stack_size = ev->stack.stack_size;
  m->width = ev->stack.abi == ST_REGS_ABI_32 ? 4 : 8;
  m->fast_end = m->width == 8 && m->stack_size >= 8 ? m->stack_size - 7 : 0;
  m->process = process;
  m->modules = modules;
}

gboolean
st_sample_memory_read_slow (StSampleMemory *m, uint64_t addr,
                            uint64_t *value)
{
  const uint64_t size = m->stack_size;

  *value = 0;
  if (addr >= m->sp && addr - m->sp <= size && size - (addr - m->sp) >= m->width)
    {
      memcpy (value, m->stack + (addr - m->sp), m->width);
      return TRUE;
    }

  /* Outside the stack copy: the contents of a mapped file.  */
  const StMap *map = st_address_space_find (m->process->maps, addr);
  if (map != NULL && !st_map_is_anonymous (map))
    {
      /* A module still being prepared is waited for, or (--priming
         drop) not read.  */
      StModule *mod = st_module_cache_get_ready (m->modules, map);
      if (mod == NULL)
        m->unready_read = TRUE;
      else if (mod->elf != NULL && addr + m->width <= map->end
               && st_module_read (mod, map->pgoff + (addr - map->start),
                                  value, m->width))
        return TRUE;
    }
  m->failed_read = TRUE;
  m->failed_at_frame = m->frame;
  if (addr >= m->sp + size)
    m->failed_past_stack = TRUE;
  return FALSE;
}

gboolean
st_sample_memory_read_code32 (StSampleMemory *m, uint64_t addr,
                              uint32_t *code)
{
  gboolean failed = m->failed_read, past = m->failed_past_stack;
  uint32_t at = m->failed_at_frame;
  uint64_t v;
  gboolean ok = st_sample_memory_read (m, addr, &v);

  m->failed_read = failed;
  m->failed_past_stack = past;
  m->failed_at_frame = at;
  *code = (uint32_t) v;
  return ok;
}
