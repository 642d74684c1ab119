/* Names of code addresses, from a process's Dwfl.  */
#ifndef ST_SYMBOLIZER_H
#define ST_SYMBOLIZER_H

#include <elfutils/libdwfl.h>
#include <glib.h>
#include <stdint.h>

/* Appends the name of ADDR to OUT: the ELF symbol (not demangled),
   "[MODULE_BASENAME+0xOFF]" (OFF: ELF virtual address) when no symbol
   covers it, or "[unknown]" outside every module.  DWFL may be NULL.  */
void st_symbolize (Dwfl *dwfl, uint64_t addr, GString *out);

#endif /* ST_SYMBOLIZER_H */
