/* Names of code addresses, from a process's Dwfl.

   The name is the one libdwfl's dwfl_module_addrname gives, but found
   through a sorted index of each module's symbols, built once per file
   (keyed by the module cache's identity of the file, so shared by every
   process mapping it), and a memo of the addresses already named.
   elfutils 0.188 searches the whole symbol table for every address: on
   a compiler's 100,000 symbols, naming the frames of a capture took
   minutes.  */
#ifndef ST_SYMBOLIZER_H
#define ST_SYMBOLIZER_H

#include <elfutils/libdwfl.h>
#include <glib.h>
#include <stdint.h>

#include "model/address-space.h"
#include "report/jit-names.h"

typedef struct StSymbolizer StSymbolizer;

/* Symbol names as the symbol table spells them.  */
StSymbolizer *st_symbolizer_new (void);
void st_symbolizer_free (StSymbolizer *s);

/* C++ and Rust names demangled (demangle.h), once per symbol.  */
void st_symbolizer_set_demangle (StSymbolizer *s, gboolean demangle);
/* Names of JIT code from JIT (not owned; NULL: none).  */
void st_symbolizer_set_jit_names (StSymbolizer *s, StJitNames *jit);
/* The process whose addresses st_symbolize names from now on: PID, and
   its mappings MAPS (not owned, may be NULL), for code outside every
   module.  */
void st_symbolizer_set_process (StSymbolizer *s, int32_t pid,
                                const StAddressSpace *maps);

/* Appends the name of ADDR to OUT: the ELF symbol (demangled if asked),
   "[MODULE_BASENAME+0xOFF]" (OFF: ELF virtual address) when no symbol
   covers it; outside every module, the JIT's name of the code (perf
   map, jitdump), or "[JIT]" in anonymous executable memory the JIT did
   not name, or "[unknown]".  DWFL may be NULL.  Its modules' userdata
   must be their StModule (as the unwinders report them).  */
void st_symbolize (StSymbolizer *s, Dwfl *dwfl, uint64_t addr, GString *out);

/* How many addresses were named by the index, and by libdwfl's own
   search (the rare cases the index leaves to it).  */
void st_symbolizer_counts (const StSymbolizer *s, uint64_t *indexed,
                           uint64_t *searched);

#endif /* ST_SYMBOLIZER_H */
