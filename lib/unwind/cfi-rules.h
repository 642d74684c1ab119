/* Unwind rules: what one row of a module's CFI table says, as a small
   value the fast engine applies without libdw.  "CFA = rsp + 16, return
   address at CFA - 8, rbx at CFA - 16, rbp unchanged" is one rule.

   A rule is read from libdw's own interpretation of the CFI
   (dwarf_cfi_addrframe, dwarf_frame_cfa, dwarf_frame_register), and is
   applied exactly as libdwfl's frame_unwind.c applies that row, so both
   engines compute the same registers: every register libdwfl tracks
   (ebl_frame_nregs) gets its rule, a register whose rule cannot be
   evaluated (its inputs unknown, its memory unreadable) becomes unknown,
   and the return address register gives the caller's PC.  One DWARF
   expression is understood: the CFA of a lazy-binding PLT (see
   StCfaKind), and two of i386's (a stack realigned by main: the CFA
   read from the stack, registers saved at an address in a register).
   What a rule cannot say (another CFA or register given by a DWARF
   expression, a signal frame, another return address column)
   makes it ST_RULE_FALLBACK: the fast engine then lets libdwfl unwind
   the sample.  */
#ifndef ST_CFI_RULES_H
#define ST_CFI_RULES_H

#include <elfutils/libdw.h>
#include <glib.h>
#include <stdint.h>

#include "unwind/sample-memory.h"
#include "unwind/unwind-result.h"

/* Registers of a frame: the most any architecture the fast engine
   walks tracks (fast-arch.h; each arch/ file asserts its count fits):
   aarch64's 32 (x0-x30, sp), as many as the SET bits of StFrameRegs.  */
#define ST_FRAME_MAX_REGS 32
#define ST_RULE_MAX_REGS 14   /* aarch64: x19-x30 and sp */
#define ST_RULE_NO_CFA 0xff   /* cfa_reg: the CFA cannot be computed */

typedef enum
{
  ST_RULE_OK,           /* apply it */
  ST_RULE_NO_CFI,       /* no CFI covers the address */
  ST_RULE_FALLBACK,     /* libdwfl must unwind from here */
} StRuleKind;

typedef enum
{
  ST_REG_SAME,          /* keeps the callee's value */
  ST_REG_AT_CFA,        /* saved at CFA + offset */
  ST_REG_IS_CFA,        /* is CFA + offset */
  ST_REG_IN_REG,        /* in register SRC of the callee */
  ST_REG_AT_REG,        /* saved at register SRC + offset (an expression
                           DW_OP_bregN offset) */
} StRegRuleKind;

typedef struct
{
  uint8_t reg;
  uint8_t kind;         /* StRegRuleKind */
  uint8_t src;          /* ST_REG_IN_REG */
  uint8_t pad;
  int32_t offset;
} StRegRule;

typedef enum
{
  ST_CFA_REG,           /* CFA = CFA_REG + CFA_OFFSET */
  /* The CFA expression of a lazy-binding PLT entry (the linker's, in
     .eh_frame of every such executable and library):
       DW_OP_breg<CFA_REG> CFA_OFFSET; DW_OP_breg<PLT_REG> 0;
       DW_OP_lit<PLT_MASK>; DW_OP_and; DW_OP_lit<PLT_MIN>; DW_OP_ge;
       DW_OP_lit<PLT_SHIFT>; DW_OP_shl; DW_OP_plus
     that is CFA_REG + CFA_OFFSET, plus 1 << PLT_SHIFT when the PC
     (PLT_REG) has passed the entry's push (the PC's low bits, PLT_MASK,
     are at least PLT_MIN).  libdwfl evaluates it the same way; an
     unknown register makes the CFA unknown.  */
  ST_CFA_PLT,
  /* CFA = the word at CFA_REG + CFA_OFFSET (DW_OP_breg<CFA_REG>
     CFA_OFFSET; DW_OP_deref): i386's main, which realigns its stack,
     keeps the CFA there.  Unreadable: the CFA is unknown.  */
  ST_CFA_DEREF,
} StCfaKind;

/* Registers neither in SAME nor listed are undefined in the caller.  */
typedef struct
{
  uint8_t kind;         /* StRuleKind */
  uint8_t fallback;     /* StFallbackReason, for ST_RULE_FALLBACK */
  uint8_t cfa_reg;      /* ST_RULE_NO_CFA when unknown */
  uint8_t n_regs;       /* entries of REGS */
  int32_t cfa_offset;
  uint32_t same;        /* bit R: register R keeps the callee's value */
  uint8_t n_at_cfa;     /* REGS: first the ST_REG_AT_CFA ones, */
  uint8_t n_is_cfa;     /* then the ST_REG_IS_CFA ones, then IN_REG, */
  uint8_t cfa_kind;     /* StCfaKind */
  uint8_t plt_reg;      /* ST_CFA_PLT's operands */
  uint8_t plt_mask;
  uint8_t plt_min;
  uint8_t plt_shift;
  uint8_t n_in_reg;     /* then AT_REG */
  StRegRule regs[ST_RULE_MAX_REGS];   /* the other defined registers */
} StUnwindRule;

/* The registers of one frame, as libdwfl's Dwfl_Frame holds them.  */
typedef struct
{
  uint64_t regs[ST_FRAME_MAX_REGS];
  uint32_t set;         /* bit R: regs[R] is known */
} StFrameRegs;

/* One CFI row as libdw 0.188 describes it (dwarf_frame_info,
   dwarf_frame_cfa, dwarf_frame_register), before it becomes a rule: the
   common ground of st_cfi_rule_from_frame and the .eh_frame reader
   (eh-frame.h), so that both give the same rule for the same row.  */
typedef enum
{
  ST_CFI_UNDEFINED,     /* no value (also: a rule libdw cannot give) */
  ST_CFI_SAME,          /* same_value */
  ST_CFI_OFFSET,        /* saved at CFA + VALUE */
  ST_CFI_VAL_OFFSET,    /* is CFA + VALUE */
  ST_CFI_REGISTER,      /* in register VALUE */
  ST_CFI_AT_REG,        /* saved at register REG + VALUE */
  ST_CFI_EXPRESSION,    /* another DWARF expression */
} StCfiRegKind;

typedef enum
{
  ST_CFI_CFA_NONE,      /* undefined, or invalid (libdw gives none) */
  ST_CFI_CFA_REG,       /* register CFA_REG + CFA_OFFSET */
  ST_CFI_CFA_PLT,       /* the PLT's expression (StCfaKind), operands in
                           CFA_REG, CFA_OFFSET and PLT_* */
  ST_CFI_CFA_DEREF,     /* the word at CFA_REG + CFA_OFFSET */
  ST_CFI_CFA_EXPRESSION,        /* another DWARF expression */
} StCfiCfaKind;

typedef struct
{
  uint8_t kind;         /* StCfiRegKind */
  uint8_t reg;          /* ST_CFI_AT_REG */
  uint64_t value;       /* as libdw gives it: offsets two's complement */
} StCfiReg;

typedef struct
{
  gboolean signal;      /* the CIE's 'S' */
  int ra;               /* the CIE's return address column */
  uint8_t cfa;          /* StCfiCfaKind */
  uint8_t plt_reg;
  uint8_t plt_mask;
  uint8_t plt_min;
  uint8_t plt_shift;
  uint64_t cfa_reg;
  uint64_t cfa_offset;
  StCfiReg regs[ST_FRAME_MAX_REGS];     /* the first n_regs */
} StCfiRow;

/* Reads the CFI row FRAME (from dwarf_cfi_addrframe) for an architecture
   with N_REGS (at most ST_FRAME_MAX_REGS) tracked registers.  Returns
   the row's address range as libdw reports it in *START, *END.  */
void st_cfi_row_from_frame (Dwarf_Frame *frame, unsigned n_regs,
                            StCfiRow *row, Dwarf_Addr *start,
                            Dwarf_Addr *end);

/* The rule of ROW for an architecture with N_REGS tracked registers and
   return address column RA.  */
void st_cfi_rule_from_row (const StCfiRow *row, unsigned n_regs,
                           unsigned ra, StUnwindRule *rule);

/* Both of the above: the rule of the CFI row FRAME, its range as libdw
   reports it in *START, *END.  */
void st_cfi_rule_from_frame (Dwarf_Frame *frame, unsigned n_regs,
                             unsigned ra, StUnwindRule *rule,
                             Dwarf_Addr *start, Dwarf_Addr *end);

/* The caller's stack pointer SP of ST_RULE_OK rule RULE where the CFI
   leaves it to the psABI (undefined, or the ABI's "the CFA itself"):
   the CFA, or the first 16-byte boundary above the registers the rule
   finds saved at or above the CFA.  */
void st_cfi_rule_default_sp (StUnwindRule *rule, unsigned sp);

/* The CFA of ST_RULE_OK rule RULE in frame CUR: FALSE when unknown.
   Reads memory through MEM for ST_CFA_DEREF.  */
gboolean st_cfi_rule_cfa (const StUnwindRule *rule, const StFrameRegs *cur,
                          StSampleMemory *mem, uint64_t *cfa);

/* Applies ST_RULE_OK rule RULE to CUR, giving the caller's registers in
   NEXT.  Reads memory through MEM (which records failures).  Returns
   TRUE with the caller's return address (RA register) in *PC, FALSE when
   it is unknown or zero: the walk ends there.  */
gboolean st_cfi_rule_apply (const StUnwindRule *rule, const StFrameRegs *cur,
                            StFrameRegs *next, unsigned ra,
                            StSampleMemory *mem, uint64_t *pc);

#endif /* ST_CFI_RULES_H */
