/* aarch64: perf's registers against the psABI's DWARF numbers.  The
   fast engine does not walk it: libdwfl unwinds its samples whole.  */
#include "config.h"

#include <elf.h>

#include "unwind/arch/arch.h"

/* perf: X0..X29 = 0..29, LR 30, SP 31, PC 32; DWARF 0..31 are the same.
   No DWARF number for the PC.  */
const StArch st_arch_aarch64 = {
  .registers = {
    .name = "aarch64",
    .elf_machine = EM_AARCH64,
    .n_dwarf = 32,
    .perf_of_dwarf = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                       16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
                       29, 30, 31 },
    .perf_ip = 32,
    .perf_sp = 31,
    .dwarf_pc = -1,
  },
  .fast = NULL,
};
