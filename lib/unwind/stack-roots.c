#include "config.h"

#include <string.h>

#include "unwind/stack-roots.h"

static const char *const roots[] = {
  "runtime.goexit", "runtime.mstart", "runtime.rt0_go",
  "runtime.systemstack", "runtime.morestack", "runtime.mcall",
  /* Entered by the kernel on a signal (Go marks it a top frame).  */
  "runtime.sigtramp",
  /* They too move to the g0 stack, to call the vDSO or C.  */
  "runtime.nanotime1", "runtime.walltime", "time.now",
  "runtime.asmcgocall",
};

/* NAME, maybe with the ".abi0" of an assembly function's symbol.  */
static gboolean
is_root (const char *name)
{
  if (strncmp (name, "runtime.", 8) != 0 && strncmp (name, "time.", 5) != 0)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (roots); i++)
    {
      size_t n = strlen (roots[i]);
      if (strncmp (name, roots[i], n) == 0
          && (name[n] == '\0' || strcmp (name + n, ".abi0") == 0))
        return TRUE;
    }
  return FALSE;
}

static gboolean
is_go (Elf *elf, size_t shstrndx)
{
  for (Elf_Scn *scn = NULL; (scn = elf_nextscn (elf, scn)) != NULL;)
    {
      GElf_Shdr shdr;
      const char *name;
      if (gelf_getshdr (scn, &shdr) != NULL
          && (name = elf_strptr (elf, shstrndx, shdr.sh_name)) != NULL
          && (strcmp (name, ".gopclntab") == 0
              || strcmp (name, ".go.buildinfo") == 0))
        return TRUE;
    }
  return FALSE;
}

void
st_stack_roots_find (StModule *m)
{
  size_t shstrndx;

  if (m->elf == NULL || m->stack_roots != NULL
      || elf_getshdrstrndx (m->elf, &shstrndx) != 0
      || !is_go (m->elf, shstrndx))
    return;

  GArray *found = g_array_new (FALSE, FALSE, sizeof (uint64_t));
  for (Elf_Scn *scn = NULL; (scn = elf_nextscn (m->elf, scn)) != NULL;)
    {
      GElf_Shdr shdr;
      Elf_Data *data;
      if (gelf_getshdr (scn, &shdr) == NULL || shdr.sh_type != SHT_SYMTAB
          || shdr.sh_entsize == 0
          || (data = elf_getdata (scn, NULL)) == NULL)
        continue;
      size_t n = MIN (shdr.sh_size / shdr.sh_entsize,
                      data->d_size / shdr.sh_entsize);
      for (size_t i = 1; i < n; i++)
        {
          GElf_Sym sym;
          const char *name;
          if (gelf_getsym (data, i, &sym) == NULL
              || GELF_ST_TYPE (sym.st_info) != STT_FUNC
              || (name = elf_strptr (m->elf, shdr.sh_link, sym.st_name))
                 == NULL
              || !is_root (name))
            continue;
          uint64_t range[2] = { sym.st_value,
                                sym.st_value + MAX (sym.st_size, 1) };
          g_array_append_vals (found, range, 2);
        }
    }
  m->n_stack_roots = found->len / 2;
  m->stack_roots = (uint64_t *) g_array_free (found, found->len == 0);
}
