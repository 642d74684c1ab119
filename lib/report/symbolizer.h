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

typedef struct StSymbolizer StSymbolizer;

StSymbolizer *st_symbolizer_new (void);
void st_symbolizer_free (StSymbolizer *s);

/* Appends the name of ADDR to OUT: the ELF symbol (not demangled),
   "[MODULE_BASENAME+0xOFF]" (OFF: ELF virtual address) when no symbol
   covers it, or "[unknown]" outside every module.  DWFL may be NULL.
   Its modules' userdata must be their StModule (as the unwinders report
   them).  */
void st_symbolize (StSymbolizer *s, Dwfl *dwfl, uint64_t addr, GString *out);

/* How many addresses were named by the index, and by libdwfl's own
   search (the rare cases the index leaves to it).  */
void st_symbolizer_counts (const StSymbolizer *s, uint64_t *indexed,
                           uint64_t *searched);

#endif /* ST_SYMBOLIZER_H */
