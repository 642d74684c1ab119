#include "config.h"

#include "unwind/code-bytes.h"

/* The file segment holding ELF address VADDR of M's module.  */
static const StLoadSegment *
segment_of (const StProcessModule *m, uint64_t vaddr)
{
  const StModule *mod = m->module;

  for (guint i = 0; i < mod->n_loads; i++)
    {
      const StLoadSegment *s = &mod->loads[i];
      if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz)
        return s;
    }
  return NULL;
}

size_t
st_code_bytes (const StProcessModule *m, uint64_t addr, uint8_t *buf,
               size_t len)
{
  uint64_t vaddr = addr - m->bias;
  const StLoadSegment *s = segment_of (m, vaddr);

  if (s == NULL)
    return 0;
  len = MIN (len, s->filesz - (vaddr - s->vaddr));
  return st_module_pread (m->module, s->offset + (vaddr - s->vaddr), buf, len)
         ? len : 0;
}

size_t
st_code_bytes_before (const StProcessModule *m, uint64_t addr, uint8_t *buf,
                      size_t len)
{
  uint64_t vaddr = addr - 1 - m->bias;
  const StLoadSegment *s = segment_of (m, vaddr);

  if (s == NULL)
    return 0;
  size_t n = MIN (len, vaddr - s->vaddr + 1);
  return st_module_pread (m->module, s->offset + (vaddr + 1 - n - s->vaddr),
                         buf + len - n, n)
         ? n : 0;
}
