/* What the fast engine needs to know of an architecture: the registers
   libdwfl tracks for it (ebl_frame_nregs), the return address, stack
   and frame pointer columns, the ABI's initial CFI (what libdw's
   backend runs before every CIE) and its unwinder for frames without
   CFI (x86_64: libdwfl's ebl_unwind, a frame pointer walk; aarch64 and
   i386: the return address where the function's code says it is, as
   gdb finds it).  One per architecture in arch/ (x86_64.c, i386.c,
   aarch64.c).

   Two readings of machine code, used by both engines (leaf-code.h):
   where a sampled frame without CFI keeps its return address, told by
   its instructions (a function's entry, prologue or exit, where the
   frame-pointer step would skip the caller), and whether a return
   address follows a call instruction.  */
#ifndef ST_FAST_ARCH_H
#define ST_FAST_ARCH_H

#include <glib.h>

#include "unwind/cfi-rules.h"
#include "unwind/sample-memory.h"

/* Where the caller's state is in a frame without CFI, read from its
   code.  Offsets are from the frame's stack pointer SP.  */
typedef struct
{
  int32_t ra_at;        /* the return address is the word at SP + RA_AT */
  int32_t ra_reg;       /* >= 0: it is in this DWARF register instead
                           (a link register before the frame is set up) */
  int32_t sp_after;     /* the caller's stack pointer: SP + SP_AFTER */
  int32_t fp_at;        /* the caller's frame pointer is the word at
                           SP + FP_AT; ST_LEAF_FP_SAME: the register's
                           value (not saved, or restored already) */
  gboolean guessed;     /* told without the function's start (no
                           symbol): taken only if the return address
                           follows a call, else the frame-pointer step */
} StLeafRule;

#define ST_LEAF_FP_SAME INT32_MIN

/* What is known of the code around a sampled PC.  */
typedef enum
{
  ST_CODE_FUNCTION_START,  /* CODE starts at the function's first byte */
  ST_CODE_IN_FUNCTION,     /* a symbol covers the PC, far from its start */
  ST_CODE_NO_SYMBOL,       /* no symbol: where the function starts is
                              not known */
} StCodeStart;

typedef struct
{
  const uint8_t *code;     /* bytes of the file as mapped */
  size_t len;
  size_t pc_off;           /* the PC is CODE + PC_OFF (< LEN) */
  StCodeStart start;
} StLeafCode;

/* A frame without CFI, as the step for it sees it.  */
typedef struct
{
  uint64_t pc;          /* the frame's PC (a caller's: its return address) */
  gboolean leaf;        /* frame 0: every register is the sampled one */
  /* Whether CFI covers ADDR (the code before PC is then another
     function's).  */
  gboolean (*has_cfi) (void *user, uint64_t addr);
  void *user;
} StNoCfiFrame;

typedef struct
{
  const char *name;
  int machine;               /* ELF e_machine */
  unsigned n_regs;           /* DWARF registers 0..n_regs-1 */
  unsigned ra;               /* return address column */
  unsigned sp;               /* DWARF stack pointer */
  unsigned fp;               /* DWARF frame pointer */
  int elf_class;             /* ELFCLASS32 or ELFCLASS64 of its modules */
  uint32_t regs_abi;         /* its samples' perf register ABI */
  /* Return addresses are masked with it (aarch64: the pointer
     authentication code in the bits above the address is cleared).  */
  uint64_t ra_mask;
  /* The caller's stack pointer is the CFA where the CFI says nothing of
     it (aarch64: libdw's ABI CFI leaves it undefined).  */
  gboolean sp_is_cfa;
  /* The lean walk (lean-walk.h) may run its samples (8-byte words),
     and may take its step without CFI (it reads only the stack and frame
     pointers; else the lean walk leaves such frames to the full one).  */
  gboolean lean;
  gboolean lean_no_cfi;
  /* The ABI's initial CFI: these registers same_value, the stack
     pointer the CFA itself (val_offset 0), the CFA and every other
     register undefined.  */
  const uint8_t *abi_same_value;
  unsigned n_abi_same_value;
  /* Unwinds CUR, the frame FRAME, without CFI into NEXT and *PC; FALSE
     when it cannot (the walk then stops with an error, as libdwfl's
     does).  */
  gboolean (*no_cfi_step) (const StFrameRegs *cur, const StNoCfiFrame *frame,
                           StFrameRegs *next, StSampleMemory *mem,
                           uint64_t *pc);
  /* Unwinds frame 0 at PC, registers CUR, from its code up to its
     return instruction alone, where that code tells exactly where the
     return address is (FALSE elsewhere).  Taken where the frame's CFI
     gives no return address in a module: CFI that is wrong there
     (i386: glibc's i586 memcpy and strchr).  NULL: never.  */
  gboolean (*code_to_ret) (const StFrameRegs *cur, uint64_t pc,
                           StSampleMemory *mem, StFrameRegs *next,
                           uint64_t *next_pc);
  /* From the code of a sampled frame without CFI, where its return
     address, and its caller's stack and frame pointers are: TRUE with
     *RULE at a point the code tells (entry, prologue, exit), FALSE where
     the frame-pointer step applies.  NULL: never.  */
  gboolean (*leaf_rule) (const StLeafCode *code, StLeafRule *rule);
  /* Whether BEFORE[0..LEN), the bytes just before a return address, end
     with a call instruction.  NULL: return addresses are not checked.  */
  gboolean (*follows_call) (const uint8_t *before, size_t len);
  /* Whether the frame at PC, with registers CUR, is a signal return
     trampoline (told by its code, as gdb and libgcc tell it: aarch64's
     vDSO has no CFI for it); TRUE with the interrupted code's registers
     in NEXT and its PC in *PC, read from the signal frame the kernel
     left at the stack pointer.  That PC is where the code was stopped,
     not a return address.  NULL: signal frames are left to the CFI
     (x86_64: libc's __restore_rt has it, and libdwfl applies it).  */
  gboolean (*signal_frame) (const StFrameRegs *cur, uint64_t pc,
                            StSampleMemory *mem, StFrameRegs *next,
                            uint64_t *next_pc);
} StFastArch;

/* The description for ELF machine MACHINE, or NULL (arch/arch.c).  */
const StFastArch *st_fast_arch (int machine);

#endif /* ST_FAST_ARCH_H */
