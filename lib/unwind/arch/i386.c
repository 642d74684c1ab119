/* i386: perf's registers against the psABI's DWARF numbers.  The fast
   engine does not walk it: libdwfl unwinds its samples whole.  */
#include "config.h"

#include <elf.h>

#include "unwind/arch/arch.h"

/* perf: AX0 BX1 CX2 DX3 SI4 DI5 BP6 SP7 IP8.
   DWARF: eax0 ecx1 edx2 ebx3 esp4 ebp5 esi6 edi7, eip8 the return
   address column.  */
const StArch st_arch_i386 = {
  .registers = {
    .name = "i386",
    .elf_machine = EM_386,
    .n_dwarf = 8,
    .perf_of_dwarf = { 0, 2, 3, 1, 7, 6, 4, 5 },
    .perf_ip = 8,
    .perf_sp = 7,
    .dwarf_pc = 8,
  },
  .fast = NULL,
};
