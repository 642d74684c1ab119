/* The --chains text file: one line per unwound sample,
   PID TID TIME ADDRS SYMBOLS, tab-separated (see doc/FORMATS).  */
#ifndef ST_CHAIN_DUMP_H
#define ST_CHAIN_DUMP_H

#include <elfutils/libdwfl.h>
#include <stdio.h>

#include "model/event.h"
#include "report/symbolizer.h"

/* The line (with its newline) of one sample, newly allocated.  */
char *st_chain_dump_line (StSymbolizer *symbolizer, Dwfl *dwfl,
                          const StEvent *ev, const uint64_t *ips,
                          uint32_t n_ips);

#endif /* ST_CHAIN_DUMP_H */
