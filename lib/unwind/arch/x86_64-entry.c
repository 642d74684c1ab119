/* x86_64: where a frame without CFI keeps its return address, told by
   the instructions around its PC.  The frame-pointer step (x86_64.c)
   is right only once `mov %rsp,%rbp` has run and until `pop %rbp` or
   `leave`; before and after, it gives the caller's caller and the
   immediate caller is lost.  The points told here, with SP the sampled
   stack pointer:

   - the function's first instruction, or past an `endbr64` and pushes
     of registers at its start (the symbol table gives the start): the
     return address is at SP + 8 * pushes; a pushed %rbp is the
     caller's frame pointer;
   - pops of registers, then `ret`, from the PC on: the return address
     is at SP + 8 * pops; a popped %rbp is the caller's frame pointer;
   - without a symbol: `push %rbp; mov %rsp,%rbp` at the PC (the return
     address at SP), or the PC on that `mov` just after a `push %rbp`
     (at SP + 8, the caller's %rbp at SP): only a guess, which the
     engines take only when the return address follows a call.

   Everywhere else the frame-pointer step applies.  */
#include "config.h"

#include <string.h>

#include "unwind/arch/x86_64-code.h"

enum
{
  RBP = 5,      /* register number in push/pop opcodes */
  MAX_REGS = 8, /* pushes or pops followed */
};

static gboolean
at (const StLeafCode *c, size_t off, const uint8_t *bytes, size_t n)
{
  return off <= c->len && c->len - off >= n
         && memcmp (c->code + off, bytes, n) == 0;
}

static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
static const uint8_t mov_rsp_rbp[][3] = { { 0x48, 0x89, 0xe5 },
                                          { 0x48, 0x8b, 0xec } };

/* A push (OP 0x50) or pop (OP 0x58) of a general register other than
   %rsp at OFF: its length, and the register (0-15) in *REG; 0 if none.  */
static size_t
push_or_pop (const StLeafCode *c, size_t off, uint8_t op, int *reg)
{
  size_t rex = 0;

  if (off < c->len && c->code[off] == 0x41)
    rex = 1;
  if (off + rex >= c->len)
    return 0;
  uint8_t b = c->code[off + rex];
  if (b < op || b > op + 7 || (!rex && b == op + 4))
    return 0;
  *reg = (b - op) + (rex ? 8 : 0);
  return rex + 1;
}

static void
set_rule (StLeafRule *rule, int words, int rbp_word, gboolean guessed)
{
  rule->ra_at = 8 * words;
  rule->ra_reg = -1;
  rule->sp_after = 8 * words + 8;
  rule->fp_at = rbp_word >= 0 ? 8 * rbp_word : ST_LEAF_FP_SAME;
  rule->guessed = guessed;
}

/* Pops from the PC, then `ret`.  */
static gboolean
exit_rule (const StLeafCode *c, StLeafRule *rule)
{
  static const uint8_t ret[] = { 0xc3 }, rep_ret[] = { 0xf3, 0xc3 };
  size_t off = c->pc_off;
  int pops = 0, rbp_word = -1, reg;

  for (size_t n; pops < MAX_REGS && (n = push_or_pop (c, off, 0x58, &reg));
       off += n, pops++)
    if (reg == RBP)
      rbp_word = pops;
  if (!at (c, off, ret, 1) && !at (c, off, rep_ret, 2))
    return FALSE;
  set_rule (rule, pops, rbp_word, FALSE);
  return TRUE;
}

/* From the function's start: `endbr64`, then pushes; the PC at one of
   their boundaries.  */
static gboolean
entry_rule (const StLeafCode *c, StLeafRule *rule)
{
  size_t off = at (c, 0, endbr64, sizeof endbr64) ? sizeof endbr64 : 0;
  int pushes = 0, rbp_push = -1, reg;

  if (c->pc_off < off)
    off = 0;      /* on the endbr64: the first instruction */
  for (;;)
    {
      if (off == c->pc_off)
        {
          /* A register pushed as the Jth of PUSHES is at SP + 8 *
             (PUSHES - 1 - J).  */
          set_rule (rule, pushes, rbp_push >= 0 ? pushes - 1 - rbp_push : -1,
                    FALSE);
          return TRUE;
        }
      size_t n = push_or_pop (c, off, 0x50, &reg);
      if (n == 0 || pushes == MAX_REGS || off + n > c->pc_off)
        return FALSE;
      if (reg == RBP)
        rbp_push = pushes;
      pushes++;
      off += n;
    }
}

/* Without a symbol: the frame-pointer prologue at or around the PC.  */
static gboolean
guessed_prologue_rule (const StLeafCode *c, StLeafRule *rule)
{
  static const uint8_t push_rbp[] = { 0x55 };
  size_t off = c->pc_off;

  if (at (c, off, endbr64, sizeof endbr64))
    off += sizeof endbr64;
  for (guint i = 0; i < G_N_ELEMENTS (mov_rsp_rbp); i++)
    {
      if (at (c, off, push_rbp, 1) && at (c, off + 1, mov_rsp_rbp[i], 3))
        {
          set_rule (rule, 0, -1, TRUE);
          return TRUE;
        }
      if (c->pc_off >= 1 && at (c, c->pc_off - 1, push_rbp, 1)
          && at (c, c->pc_off, mov_rsp_rbp[i], 3))
        {
          set_rule (rule, 1, 0, TRUE);
          return TRUE;
        }
    }
  return FALSE;
}

gboolean
st_x86_64_leaf_rule (const StLeafCode *code, StLeafRule *rule)
{
  if (exit_rule (code, rule))
    return TRUE;
  switch (code->start)
    {
    case ST_CODE_FUNCTION_START:
      return entry_rule (code, rule);
    case ST_CODE_NO_SYMBOL:
      return guessed_prologue_rule (code, rule);
    default:
      return FALSE;
    }
}
