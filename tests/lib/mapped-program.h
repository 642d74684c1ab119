/* A program's file mapped into a made-up process, as the stream's MAP
   records would describe it, with the Dwfl the unwinder reports for it:
   for the tests of what names addresses (symbolizer, chain dump, call
   graph).  */
#ifndef ST_TEST_MAPPED_PROGRAM_H
#define ST_TEST_MAPPED_PROGRAM_H

#include <elfutils/libdwfl.h>
#include <glib.h>

#include "model/module-cache.h"
#include "model/process-table.h"
#include "unwind/unwinder.h"

typedef struct
{
  StModuleCache *modules;
  StUnwinder *unwinder;
  StProcessTable *processes;
  StProcess *process;
  uint64_t base;          /* where the file's vaddr 0 is mapped */
} MappedProgram;

/* Maps PATH's loadable segments into process PID (a position-independent
   file at a high base, another where it was linked).  FALSE when PATH is
   not a readable ELF file.  */
gboolean mapped_program_open (MappedProgram *mp, const char *path,
                              int32_t pid);
/* The process's Dwfl (owned by the unwinder).  */
Dwfl *mapped_program_dwfl (MappedProgram *mp);
/* Also after a failed open, and on a zeroed MP.  */
void mapped_program_close (MappedProgram *mp);

/* The value of symbol NAME in PATH as binutils' nm gives it (an ELF
   virtual address), 0 when nm is missing or does not list it.  */
uint64_t nm_symbol (const char *path, const char *name);

#endif /* ST_TEST_MAPPED_PROGRAM_H */
