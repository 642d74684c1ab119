/* The machine code of a process's modules, as their files hold it: read
   through the module's PT_LOAD segments (runtime address minus the bias
   is the ELF address), never through the sample's memory, so that a read
   here is no failed read of the walk (sample-memory.h); with pread() when
   the module keeps its descriptor (st_module_pread), so that reads
   scattered over a big program's code leave its pages unmapped.  */
#ifndef ST_CODE_BYTES_H
#define ST_CODE_BYTES_H

#include <stddef.h>
#include <stdint.h>

#include "unwind/process-modules.h"

/* Reads up to LEN bytes at runtime address ADDR of M into BUF, as far as
   the file's segment holding ADDR goes: the number read (0: none).  */
size_t st_code_bytes (const StProcessModule *m, uint64_t addr, uint8_t *buf,
                      size_t len);

/* Reads up to LEN bytes that end just before ADDR, from the segment
   holding ADDR - 1, into the end of BUF[0..LEN): the number read (they
   are BUF + LEN - number .. BUF + LEN).  */
size_t st_code_bytes_before (const StProcessModule *m, uint64_t addr,
                             uint8_t *buf, size_t len);

#endif /* ST_CODE_BYTES_H */
