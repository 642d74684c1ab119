/* i386: perf's registers against the psABI's DWARF numbers, and what the
   fast engine needs to walk it.

   The DWARF registers tracked are eax..edi and eip, the return address
   column (0..8), as libdwfl's ebl_frame_nregs says; words are 4 bytes
   (StSampleMemory reads them so, the lean walk does not run).  Samples
   come with perf's 32-bit register ABI, from an i686 kernel or from a
   32-bit process on an x86_64 kernel (the x86_32 layout then, with the
   x86_64 mask).

   A frame without CFI is unwound from its code where that shows where
   the return address is, as gdb's prologue analysis finds it, and else
   by frame pointer:
     - frame 0 anywhere: the code from the PC to the function's "ret",
       when it is made only of straight-line instructions whose effect
       on esp is plain (push, pop, add or sub to esp, calls, moves and
       arithmetic between other registers, loads from the stack, string
       moves; and the vDSO's __kernel_vsyscall's int $0x80, sysenter or
       syscall, with the moves to ebp before them), says how far above
       esp the return address lies (and a "pop %ebp" where the caller's
       ebp is);
     - else frame 0 at "push %ebp" (the prologue has not run) or in a
       PIC thunk (__x86.get_pc_thunk.*: "mov (%esp), %reg; ret"): the
       return address is at the top of the stack;
     - frame 0 between "push %ebp" and "mov %esp, %ebp": it is one word
       above, the caller's ebp at the top;
     - else the ebp chain: the caller's ebp at [ebp], the return address
       at [ebp + 4], its esp ebp + 8, which must lie above esp.
   That reading of the code to its "ret" also unwinds frame 0 where its
   CFI gives no return address in a module: glibc's i586 memcpy and
   strchr (in libc, ld.so and static programs) describe their pushes
   wrongly, so their CFI reads a saved register (memcpy's "push %eax")
   or a word below esp (strchr's epilogue) as the return address.
   A handler's return into a sigreturn trampoline (the vDSO's or libc's)
   is a signal frame (i386-signal.c).  */
#include "config.h"

#include <elf.h>

#include "unwind/arch/arch.h"
#include "unwind/arch/signal-frame.h"

enum
{
  I386_ESP = 4,
  I386_EBP = 5,
  I386_EIP = 8,
  I386_N_REGS = 9,
};

/* The return address at ESP + OFFSET, the caller's esp above it; the
   caller's ebp at ESP + EBP_AT, or (EBP_AT < 0) ebp itself.  */
static gboolean
from_stack_top (const StFrameRegs *cur, StSampleMemory *mem, unsigned offset,
                int32_t ebp_at, StFrameRegs *next, uint64_t *pc)
{
  uint64_t esp = cur->regs[I386_ESP], ra, ebp;

  if (!st_sample_memory_read (mem, esp + offset, &ra) || ra == 0)
    return FALSE;
  *next = *cur;
  next->set &= (1u << 3) | (1u << I386_EBP) | (1u << 6) | (1u << 7)
               | (1u << I386_ESP);
  if (ebp_at >= 0)
    {
      if (!st_sample_memory_read (mem, esp + (uint32_t) ebp_at, &ebp))
        return FALSE;
      next->regs[I386_EBP] = ebp;
      next->set |= 1u << I386_EBP;
    }
  next->regs[I386_ESP] = esp + offset + 4;
  next->regs[I386_EIP] = ra;
  next->set |= 1u << I386_EIP;
  *pc = ra;
  return TRUE;
}

/* Whether OP, MODRM (register to register, mod 3) is an instruction
   of two bytes that writes no register but a general one other than esp
   and ebp: a move or arithmetic between registers.  */
static gboolean
register_operation (uint8_t op, uint8_t modrm)
{
  if (modrm < 0xc0)
    return FALSE;
  unsigned reg = (modrm >> 3) & 7, rm = modrm & 7;
  switch (op)
    {
    case 0x84: case 0x85: case 0x38: case 0x39: case 0x3a: case 0x3b:
      return TRUE;                                  /* test, cmp */
    case 0x89: case 0x01: case 0x29: case 0x31: case 0x21: case 0x09:
      return rm != I386_ESP && rm != I386_EBP;      /* mov, add, sub, xor,
                                                       and, or to rm */
    case 0x8b: case 0x03: case 0x2b: case 0x33: case 0x23: case 0x0b:
      return reg != I386_ESP && reg != I386_EBP;    /* the same, to reg */
    default:
      return FALSE;
    }
}

/* How far above esp the return address lies in frame 0 at PC (and
   where the caller's ebp is, if a "pop %ebp" restores it, else -1): the
   code from PC to its "ret" followed, as long as it is made of
   instructions whose effect on esp is plain.  FALSE at anything
   else (a jump, too: only straight-line code is followed).  */
static gboolean
offset_to_ret (StSampleMemory *mem, uint64_t pc, uint32_t *offset,
               int32_t *ebp_at)
{
  int64_t off = 0;

  *ebp_at = -1;
  for (int n = 0; n < 16; n++)
    {
      uint32_t c;
      if (!st_sample_memory_read_code32 (mem, pc, &c))
        return FALSE;
      uint8_t op = c & 0xff, modrm = (c >> 8) & 0xff;
      if (op == 0xc3)                               /* ret */
        {
          if (off < 0 || off > 4096)
            return FALSE;
          *offset = (uint32_t) off;
          return TRUE;
        }
      if (op >= 0x50 && op <= 0x57)                 /* push %reg */
        off -= 4, pc += 1;
      else if (op >= 0x58 && op <= 0x5f)            /* pop %reg */
        {
          if (op == 0x5d && *ebp_at < 0 && off >= 0 && off <= 4096)
            *ebp_at = (int32_t) off;                /* pop %ebp */
          off += 4, pc += 1;
        }
      else if (op == 0x83 && (modrm == 0xc4 || modrm == 0xec))
        {                                           /* add/sub $imm8, %esp */
          int64_t imm = (int8_t) (c >> 16);
          off += modrm == 0xc4 ? imm : -imm;
          pc += 3;
        }
      else if (op == 0x81 && (modrm == 0xc4 || modrm == 0xec))
        {                                           /* add/sub $imm32, %esp */
          uint32_t imm;
          if (!st_sample_memory_read_code32 (mem, pc + 2, &imm))
            return FALSE;
          off += modrm == 0xc4 ? (int32_t) imm : -(int64_t) (int32_t) imm;
          pc += 6;
        }
      else if (op == 0x81 && modrm == 0xc3)         /* add $imm32, %ebx */
        pc += 6;
      else if (op == 0xe8)                          /* call rel32 */
        pc += 5;
      else if (register_operation (op, modrm))
        pc += 2;
      else if ((op == 0x83 || op == 0xc1) && modrm >= 0xc0
               && (modrm & 7) != I386_ESP && (modrm & 7) != I386_EBP)
        pc += 3;                                    /* op $imm8, %reg;
                                                       shift by imm8 */
      else if (op == 0x8b && (modrm & 0xc7) == 0x44 && (c >> 16 & 0xff) == 0x24
               && ((modrm >> 3) & 7) != I386_ESP
               && ((modrm >> 3) & 7) != I386_EBP)
        pc += 4;                                    /* mov disp8(%esp), %reg */
      else if (op >= 0x40 && op <= 0x4f && op != 0x44 && op != 0x4c
               && op != 0x45 && op != 0x4d)
        pc += 1;                                    /* inc, dec %reg */
      else if (op == 0xfc || op == 0xa4 || op == 0xa5)
        pc += 1;                                    /* cld, movs */
      else if (op == 0xf3 && (modrm == 0xa4 || modrm == 0xa5))
        pc += 2;                                    /* rep movs */
      else if ((op == 0xcd && modrm == 0x80)        /* int $0x80 */
               || (op == 0x0f && (modrm == 0x34 || modrm == 0x05))
                                                    /* sysenter, syscall */
               || (op == 0x89 && (modrm == 0xe5 || modrm == 0xcd)))
                                                    /* mov %esp/%ecx, %ebp */
        pc += 2;
      else
        return FALSE;
    }
  return FALSE;
}

/* Frame 0 at PC unwound from the code up to its "ret", where it can be
   followed (StFastArch.code_to_ret).  */
static gboolean
code_to_ret (const StFrameRegs *cur, uint64_t at, StSampleMemory *mem,
             StFrameRegs *next, uint64_t *pc)
{
  uint32_t offset;
  int32_t ebp_at;

  return (cur->set & (1u << I386_ESP))
         && offset_to_ret (mem, at, &offset, &ebp_at)
         && from_stack_top (cur, mem, offset, ebp_at, next, pc);
}

static gboolean
code_step (const StFrameRegs *cur, const StNoCfiFrame *frame,
           StFrameRegs *next, StSampleMemory *mem, uint64_t *pc)
{
  uint32_t code, before;

  if (frame->leaf && (cur->set & (1u << I386_ESP)))
    {
      /* The code up to the "ret" first: where it can be followed, it
         tells exactly, also where a "push %ebp" is not the function's
         first instruction (__kernel_vsyscall pushes two registers
         before it).  */
      if (code_to_ret (cur, frame->pc, mem, next, pc))
        return TRUE;
      if (st_sample_memory_read_code32 (mem, frame->pc, &code))
        {
          if ((code & 0xff) == 0x55 /* push %ebp */
              /* mov (%esp), %reg; ret */
              || (code & 0xffffc7ffu) == 0xc324048bu)
            return from_stack_top (cur, mem, 0, -1, next, pc);
          if (((code & 0xffff) == 0xe589 || (code & 0xffff) == 0xec8b)
              && st_sample_memory_read_code32 (mem, frame->pc - 1, &before)
              && (before & 0xff) == 0x55)
            return from_stack_top (cur, mem, 4, 0, next, pc);
        }
    }

  if (!(cur->set & (1u << I386_EBP)) || cur->regs[I386_EBP] == 0)
    return FALSE;
  uint64_t fp = cur->regs[I386_EBP];
  uint64_t sp = (cur->set & (1u << I386_ESP)) ? cur->regs[I386_ESP] : 0;
  uint64_t prev_fp, ret;

  if (!st_sample_memory_read (mem, fp, &prev_fp))
    prev_fp = 0;
  if (!st_sample_memory_read (mem, fp + 4, &ret))
    return FALSE;
  next->set = (1u << I386_EBP) | (1u << I386_ESP) | (1u << I386_EIP);
  next->regs[I386_EBP] = prev_fp;
  next->regs[I386_ESP] = fp + 8;
  next->regs[I386_EIP] = ret;
  *pc = ret;
  return sp < fp + 8;
}

G_STATIC_ASSERT (I386_N_REGS <= ST_FRAME_MAX_REGS);

/* libdw's i386 ABI CFI: ebx, ebp, esi, edi same_value.  */
static const uint8_t abi_same_value[] = { 3, I386_EBP, 6, 7 };

static const StFastArch fast = {
  .name = "i386",
  .machine = EM_386,
  .n_regs = I386_N_REGS,
  .ra = I386_EIP,
  .sp = I386_ESP,
  .fp = I386_EBP,
  .elf_class = ELFCLASS32,
  .regs_abi = ST_REGS_ABI_32,
  .ra_mask = UINT32_MAX,
  .sp_is_cfa = TRUE,
  .lean = FALSE,                /* 4-byte words */
  .lean_no_cfi = FALSE,
  .abi_same_value = abi_same_value,
  .n_abi_same_value = G_N_ELEMENTS (abi_same_value),
  .signal_frame = st_i386_signal_frame,
  .no_cfi_step = code_step,
  .code_to_ret = code_to_ret,
};

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
    .dwarf_pc = I386_EIP,
  },
  .fast = &fast,
};
