/* A Dwfl over the module cache's Elfs.  Its own unit so that the
   libdwfl engine and the debug-file search both depend on it, and it
   only on the search (no cycle between them).  */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "unwind/dwfl-offline.h"
#include "unwind/find-debuginfo.h"
#include "unwind/stack-roots.h"

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

const Dwfl_Callbacks st_dwfl_offline_callbacks = {
  .find_elf = find_shared_elf,
  .find_debuginfo = st_find_debuginfo,
  .section_address = dwfl_offline_section_address,
};

Dwfl *
st_dwfl_of_module (StModule *m, Dwfl_Module **mod)
{
  Dwfl *dwfl = dwfl_begin (&st_dwfl_offline_callbacks);

  dwfl_report_begin (dwfl);
  *mod = dwfl_report_module (dwfl, m->name, m->low_vaddr,
                             MAX (m->high_vaddr, m->low_vaddr + 1));
  if (*mod != NULL)
    {
      void **userdata;
      dwfl_module_info (*mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
      *userdata = m;
    }
  dwfl_report_end (dwfl, NULL, NULL);
  return dwfl;
}

void
st_dwfl_offline_prepare (StModule *m, void *user_data)
{
  Dwfl_Module *mod;
  Dwarf_Addr bias;

  st_stack_roots_find (m);
  if (!st_find_debuginfo_prepare (m))
    return;
  /* Loading the CFI of the module's debug file runs the search of
     find-debuginfo.c (local files, then the finder); the finder
     remembers its answer, so the Dwfls of the processes find it at once
     later.  */
  Dwfl *dwfl = st_dwfl_of_module (m, &mod);
  if (mod != NULL)
    dwfl_module_dwarf_cfi (mod, &bias);
  dwfl_end (dwfl);
}
