/* .eh_frame read directly, with libdw 0.188's semantics (eh-frame.h).
   The facts it follows, each checked against libdw by
   tests/unit/test-eh-frame.c:

   - the initial state is the x86_64 backend's ABI CFI (registers 0, 6,
     12-16 same_value, rsp the CFA itself, the CFA undefined; any other
     register undefined), then the CIE's initial instructions;
   - def_cfa_register and def_cfa_offset make a CFA that is not
     register + offset invalid (libdw then gives no CFA);
   - remember_state saves the whole row, CFA included, and
     restore_state brings it all back;
   - restore gives a register back its rule from the initial state;
   - offsets are computed modulo 2^64, as libdw's Dwarf_Word.  */
#include "config.h"

#include <dwarf.h>
#include <elf.h>
#include <string.h>

#include "unwind/eh-frame.h"

/* DW_EH_PE_* pointer encodings (the LSB's .eh_frame format).  */
enum
{
  PE_ABSPTR = 0x00, PE_ULEB128 = 0x01, PE_UDATA2 = 0x02, PE_UDATA4 = 0x03,
  PE_UDATA8 = 0x04, PE_SLEB128 = 0x09, PE_SDATA2 = 0x0a, PE_SDATA4 = 0x0b,
  PE_SDATA8 = 0x0c,
  PE_PCREL = 0x10, PE_DATAREL = 0x30,
};

#define MAX_REGNO 128           /* larger register numbers: libdw's */
#define MAX_REMEMBERED 16       /* deeper remember_state: libdw's */

typedef enum { CFA_UNDEFINED, CFA_OFFSET, CFA_INVALID } CfaRule;

/* A row being built: what libdw's Dwarf_Frame holds, for the registers
   the fast engine tracks (the others cannot change its rules).  */
typedef struct
{
  uint8_t cfa;          /* CfaRule */
  uint64_t cfa_reg;
  uint64_t cfa_offset;
  StCfiReg regs[ST_FRAME_MAX_REGS];
} State;

typedef struct
{
  uint64_t code_align;
  uint64_t data_align;  /* signed, as libdw multiplies it */
  int ra;
  uint8_t fde_encoding;
  gboolean signal;
  gboolean sized;       /* 'z': FDEs carry augmentation data */
  const uint8_t *insn, *insn_end;
  gboolean state_ok;    /* its instructions were understood: */
  State initial;        /* the state every FDE starts from */
} Cie;

typedef struct
{
  uint64_t start;
  uint32_t len;
  uint32_t offset;      /* of the FDE in .eh_frame */
} Fde;

struct StEhFrame
{
  const StFastArch *arch;
  const uint8_t *data;  /* .eh_frame */
  size_t size;
  uint64_t vaddr;
  Fde *fdes;
  guint n_fdes;
  GHashTable *cies;     /* offset -> Cie */
  /* The CIEs found last: FDEs nearly all share two or three.  */
  size_t recent_offset[4];
  const Cie *recent[4];
  guint recent_next;
};

/* Byte reading, bounded by END; FALSE when it would pass it.  */

/* A LEB128 number, signed or not.  Longer than 9 bytes (63 bits) it is
   left to libdw, which cuts such numbers short its own way.  */
static inline gboolean
read_leb (const uint8_t **pp, const uint8_t *end, uint64_t *out,
          gboolean is_signed)
{
  uint64_t v = 0;
  unsigned shift = 0;

  for (const uint8_t *p = *pp; p < end && shift < 63; p++)
    {
      v |= (uint64_t) (*p & 0x7f) << shift;
      shift += 7;
      if (!(*p & 0x80))
        {
          if (is_signed && (*p & 0x40))
            v |= ~(uint64_t) 0 << shift;
          *pp = p + 1;
          *out = v;
          return TRUE;
        }
    }
  return FALSE;
}

static inline gboolean
read_uleb (const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
  if (*pp < end && **pp < 0x80)     /* nearly always */
    {
      *out = *(*pp)++;
      return TRUE;
    }
  return read_leb (pp, end, out, FALSE);
}

static inline gboolean
read_sleb (const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
  if (*pp < end && **pp < 0x80)
    {
      uint64_t v = *(*pp)++;
      *out = v & 0x40 ? v | ~(uint64_t) 0x7f : v;
      return TRUE;
    }
  return read_leb (pp, end, out, TRUE);
}

/* An unsigned little-endian field of N bytes (the host's order:
   load checks it).  */
static inline gboolean
read_fixed (const uint8_t **pp, const uint8_t *end, unsigned n,
            uint64_t *out)
{
  uint64_t v = 0;

  if ((size_t) (end - *pp) < n)
    return FALSE;
  memcpy (&v, *pp, n);
  *pp += n;
  *out = v;
  return TRUE;
}

/* A pointer in encoding ENC at *PP, whose own address is PP_VADDR; BASE
   for datarel.  Only the encodings linkers use are understood.  */
static gboolean
read_encoded (const uint8_t **pp, const uint8_t *end, uint8_t enc,
              uint64_t pp_vaddr, uint64_t datarel, uint64_t *out)
{
  uint64_t v, base;

  /* What every linker writes in FDEs, first.  */
  if (enc == (PE_PCREL | PE_SDATA4) && end - *pp >= 4)
    {
      int32_t d;
      memcpy (&d, *pp, 4);
      *pp += 4;
      *out = pp_vaddr + (uint64_t) (int64_t) d;
      return TRUE;
    }
  switch (enc & 0x70)
    {
    case PE_ABSPTR:
      base = 0;
      break;
    case PE_PCREL:
      base = pp_vaddr;
      break;
    case PE_DATAREL:
      if (datarel == 0)
        return FALSE;
      base = datarel;
      break;
    default:
      return FALSE;
    }
  unsigned size = 0;
  gboolean is_signed = FALSE;
  switch (enc & 0x8f)
    {
    case PE_ABSPTR:
    case PE_UDATA8:
    case PE_SDATA8:
      size = 8;
      break;
    case PE_SDATA4:
      is_signed = TRUE;
      /* Fall through.  */
    case PE_UDATA4:
      size = 4;
      break;
    case PE_SDATA2:
      is_signed = TRUE;
      /* Fall through.  */
    case PE_UDATA2:
      size = 2;
      break;
    case PE_ULEB128:
      if (!read_uleb (pp, end, &v))
        return FALSE;
      break;
    case PE_SLEB128:
      if (!read_sleb (pp, end, &v))
        return FALSE;
      break;
    default:
      return FALSE;     /* indirect, omit, unknown */
    }
  if (size != 0 && !read_fixed (pp, end, size, &v))
    return FALSE;
  if (is_signed)
    {
      unsigned shift = 64 - 8 * size;
      v = (uint64_t) ((int64_t) (v << shift) >> shift);
    }
  *out = base + v;
  return TRUE;
}

/* The x86_64 backend's ABI CFI, as libdw 0.188 runs it before every
   CIE.  */
static void
abi_state (State *s)
{
  static const uint8_t same[] = { 0, 6, 12, 13, 14, 15, 16 };

  memset (s, 0, sizeof *s);
  s->cfa = CFA_UNDEFINED;
  for (size_t i = 0; i < G_N_ELEMENTS (same); i++)
    s->regs[same[i]].kind = ST_CFI_SAME;
  s->regs[7].kind = ST_CFI_VAL_OFFSET;  /* rsp = CFA + 0 */
}

/* Sets register REGNO's rule; FALSE for a number libdw would also have
   to grow its state for beyond what this reader follows.  */
static inline gboolean
set_reg (State *s, uint64_t regno, uint8_t kind, uint64_t value)
{
  if (regno >= MAX_REGNO)
    return FALSE;
  if (regno < ST_FRAME_MAX_REGS)
    {
      s->regs[regno].kind = kind;
      s->regs[regno].value = value;
    }
  return TRUE;
}

static void
make_row (const Cie *cie, const State *s, StCfiRow *row)
{
  memset (row, 0, sizeof *row);
  row->signal = cie->signal;
  row->ra = cie->ra;
  if (s->cfa == CFA_OFFSET)
    {
      row->cfa = ST_CFI_CFA_REG;
      row->cfa_reg = s->cfa_reg;
      row->cfa_offset = s->cfa_offset;
    }
  else
    row->cfa = ST_CFI_CFA_NONE;
  memcpy (row->regs, s->regs, sizeof row->regs);
}

/* Where a program runs: a CIE's initial instructions (no rows, no
   restore), or an FDE's, whose rows (all, or only the one holding
   address FIND) go to FUNC.  */
typedef struct
{
  const Cie *cie;
  gboolean in_cie;
  gboolean all;
  uint64_t find;
  uint64_t loc;         /* the current row's start */
  uint64_t end;         /* the FDE's end */
  StEhRowFunc func;
  void *user;
} Run;

/* Ends the current row at NEW_LOC: hands it to FUNC if wanted.  */
static void
end_row (Run *r, const State *s, uint64_t new_loc, gboolean *done)
{
  uint64_t row_end = MIN (new_loc, r->end);

  if (row_end > r->loc
      && (r->all || (r->find >= r->loc && r->find < row_end)))
    {
      StCfiRow row;
      make_row (r->cie, s, &row);
      r->func (r->loc, row_end, &row, r->user);
      *done = !r->all;
    }
  *done = *done || new_loc >= r->end;
}

/* Moves the current location to NEW_LOC, ending the current row.
   *DONE when the rows wanted are out: libdw, too, runs no further for
   an address of the row just ended (or any in the FDE, once it is
   covered).  */
static inline gboolean
advance (Run *r, const State *s, uint64_t new_loc, gboolean *done)
{
  if (G_UNLIKELY (r->in_cie || new_loc < r->loc))
    return FALSE;
  /* Most advances end a row nobody asked for.  */
  if (r->all || new_loc > r->find || new_loc >= r->end)
    end_row (r, s, new_loc, done);
  r->loc = new_loc;
  return TRUE;
}

/* Runs the program [P, END) on *S.  FALSE for anything this reader
   leaves to libdw.  */
static gboolean
run_program (Run *r, State *s, const uint8_t *p, const uint8_t *end,
             uint64_t insn_vaddr, const uint8_t *insn_start)
{
  State stack[MAX_REMEMBERED];
  unsigned depth = 0;
  const Cie *cie = r->cie;
  uint64_t reg, off, delta, loc;
  gboolean done = FALSE;

  while (p < end && !done)
    {
      uint8_t op = *p++;
      uint8_t low = op & 0x3f;

      switch (op >> 6)
        {
        case 1:         /* DW_CFA_advance_loc */
          if (!advance (r, s, r->loc + low * cie->code_align, &done))
            return FALSE;
          continue;
        case 2:         /* DW_CFA_offset */
          if (!read_uleb (&p, end, &off)
              || !set_reg (s, low, ST_CFI_OFFSET, off * cie->data_align))
            return FALSE;
          continue;
        case 3:         /* DW_CFA_restore */
          if (r->in_cie)
            return FALSE;
          if (low < ST_FRAME_MAX_REGS)
            s->regs[low] = cie->initial.regs[low];
          continue;
        default:
          break;
        }

      switch (op)
        {
        case DW_CFA_nop:
          break;
        case DW_CFA_set_loc:
          {
            uint64_t at = insn_vaddr + (uint64_t) (p - insn_start);
            if (!read_encoded (&p, end, cie->fde_encoding, at, 0, &loc)
                || !advance (r, s, loc, &done))
              return FALSE;
          }
          break;
        case DW_CFA_advance_loc1:
        case DW_CFA_advance_loc2:
        case DW_CFA_advance_loc4:
          {
            unsigned n = op == DW_CFA_advance_loc1 ? 1
                         : op == DW_CFA_advance_loc2 ? 2 : 4;
            if (!read_fixed (&p, end, n, &delta))
              return FALSE;
            loc = r->loc + delta * cie->code_align;
            if (loc < r->loc || !advance (r, s, loc, &done))
              return FALSE;
          }
          break;
        case DW_CFA_offset_extended:
        case DW_CFA_val_offset:
        case DW_CFA_offset_extended_sf:
        case DW_CFA_val_offset_sf:
          {
            gboolean sf = op == DW_CFA_offset_extended_sf
                          || op == DW_CFA_val_offset_sf;
            uint8_t kind = op == DW_CFA_val_offset || op == DW_CFA_val_offset_sf
                           ? ST_CFI_VAL_OFFSET : ST_CFI_OFFSET;
            if (!read_uleb (&p, end, &reg)
                || !(sf ? read_sleb (&p, end, &off)
                        : read_uleb (&p, end, &off))
                || !set_reg (s, reg, kind, off * cie->data_align))
              return FALSE;
          }
          break;
        case DW_CFA_GNU_negative_offset_extended:
          if (!read_uleb (&p, end, &reg) || !read_uleb (&p, end, &off)
              || !set_reg (s, reg, ST_CFI_OFFSET, -off * cie->data_align))
            return FALSE;
          break;
        case DW_CFA_restore_extended:
          if (r->in_cie || !read_uleb (&p, end, &reg) || reg >= MAX_REGNO)
            return FALSE;
          if (reg < ST_FRAME_MAX_REGS)
            s->regs[reg] = cie->initial.regs[reg];
          break;
        case DW_CFA_undefined:
        case DW_CFA_same_value:
          if (!read_uleb (&p, end, &reg)
              || !set_reg (s, reg, op == DW_CFA_undefined
                                   ? ST_CFI_UNDEFINED : ST_CFI_SAME, 0))
            return FALSE;
          break;
        case DW_CFA_register:
          if (!read_uleb (&p, end, &reg) || !read_uleb (&p, end, &off)
              || !set_reg (s, reg, ST_CFI_REGISTER, off))
            return FALSE;
          break;
        case DW_CFA_remember_state:
          if (depth == MAX_REMEMBERED)
            return FALSE;
          stack[depth++] = *s;
          break;
        case DW_CFA_restore_state:
          if (depth == 0)
            return FALSE;
          *s = stack[--depth];
          break;
        case DW_CFA_def_cfa:
        case DW_CFA_def_cfa_sf:
          if (!read_uleb (&p, end, &reg))
            return FALSE;
          if (op == DW_CFA_def_cfa ? !read_uleb (&p, end, &off)
                                   : !read_sleb (&p, end, &off))
            return FALSE;
          s->cfa = CFA_OFFSET;
          s->cfa_reg = reg;
          s->cfa_offset = op == DW_CFA_def_cfa ? off : off * cie->data_align;
          break;
        case DW_CFA_def_cfa_register:
          if (!read_uleb (&p, end, &reg))
            return FALSE;
          if (s->cfa != CFA_OFFSET)
            s->cfa = CFA_INVALID;
          s->cfa_reg = reg;
          break;
        case DW_CFA_def_cfa_offset:
        case DW_CFA_def_cfa_offset_sf:
          if (op == DW_CFA_def_cfa_offset ? !read_uleb (&p, end, &off)
                                          : !read_sleb (&p, end, &off))
            return FALSE;
          if (s->cfa != CFA_OFFSET)
            s->cfa = CFA_INVALID;
          s->cfa_offset = op == DW_CFA_def_cfa_offset
                          ? off : off * cie->data_align;
          break;
        case DW_CFA_GNU_args_size:
          if (!read_uleb (&p, end, &off))
            return FALSE;
          break;
        default:
          /* Expressions, DW_CFA_GNU_window_save, MIPS advance_loc8,
             unknown opcodes.  */
          return FALSE;
        }
    }
  if (!done && !r->in_cie)
    advance (r, s, r->end, &done);
  return TRUE;
}

/* Parses the CIE at OFFSET into C.  FALSE when not understood.  */
static gboolean
parse_cie (const StEhFrame *f, size_t offset, Cie *c)
{
  const uint8_t *p = f->data + offset, *end;
  uint64_t len, id, version, v;

  memset (c, 0, sizeof *c);
  if (!read_fixed (&p, f->data + f->size, 4, &len) || len == 0
      || len >= 0xfffffff0u || len > (uint64_t) (f->data + f->size - p))
    return FALSE;
  end = p + len;
  if (!read_fixed (&p, end, 4, &id) || id != 0
      || !read_fixed (&p, end, 1, &version)
      || (version != 1 && version != 3))
    return FALSE;
  const char *aug = (const char *) p;
  const uint8_t *nul = memchr (p, 0, end - p);
  if (nul == NULL)
    return FALSE;
  p = nul + 1;
  if (!read_uleb (&p, end, &c->code_align)
      || !read_sleb (&p, end, &c->data_align))
    return FALSE;
  if (version == 1 ? !read_fixed (&p, end, 1, &v) : !read_uleb (&p, end, &v))
    return FALSE;
  if (v > INT32_MAX)
    return FALSE;
  c->ra = (int) v;
  c->fde_encoding = PE_ABSPTR;
  if (aug[0] == 'z')
    {
      uint64_t aug_len;
      const uint8_t *aug_end;
      c->sized = TRUE;
      if (!read_uleb (&p, end, &aug_len)
          || aug_len > (uint64_t) (end - p))
        return FALSE;
      aug_end = p + aug_len;
      for (const char *a = aug + 1; *a != '\0'; a++)
        switch (*a)
          {
          case 'R':
            if (!read_fixed (&p, aug_end, 1, &v))
              return FALSE;
            c->fde_encoding = v;
            break;
          case 'L':
            if (!read_fixed (&p, aug_end, 1, &v))
              return FALSE;
            break;
          case 'P':
            {
              uint64_t enc, personality;
              if (!read_fixed (&p, aug_end, 1, &enc)
                  || !read_encoded (&p, aug_end, enc & 0x7f, 0, 0,
                                    &personality))
                return FALSE;
            }
            break;
          case 'S':
            c->signal = TRUE;
            break;
          default:
            return FALSE;
          }
      p = aug_end;
    }
  else if (aug[0] != '\0')
    return FALSE;
  /* Pointers in FDEs: only those whose size and base are known.  */
  uint64_t dummy;
  const uint8_t probe[8] = { 0 }, *pp = probe;
  if (!read_encoded (&pp, probe + 8, c->fde_encoding, 0, 0, &dummy)
      || (c->fde_encoding & 0x0f) == PE_ULEB128
      || (c->fde_encoding & 0x0f) == PE_SLEB128)
    return FALSE;
  c->insn = p;
  c->insn_end = end;

  Run r = { .cie = c, .in_cie = TRUE };
  abi_state (&c->initial);
  c->state_ok = run_program (&r, &c->initial, c->insn, c->insn_end, 0,
                             c->insn);
  return TRUE;
}

/* The CIE at OFFSET, parsed once; NULL when not understood.  */
static const Cie *
cie_at (StEhFrame *f, size_t offset)
{
  for (guint i = 0; i < G_N_ELEMENTS (f->recent); i++)
    if (f->recent[i] != NULL && f->recent_offset[i] == offset)
      return f->recent[i];

  Cie *cie = g_hash_table_lookup (f->cies, GSIZE_TO_POINTER (offset));
  if (cie == NULL)
    {
      cie = g_new (Cie, 1);
      if (!parse_cie (f, offset, cie))
        {
          g_free (cie);
          return NULL;
        }
      g_hash_table_insert (f->cies, GSIZE_TO_POINTER (offset), cie);
    }
  guint i = f->recent_next++ % G_N_ELEMENTS (f->recent);
  f->recent_offset[i] = offset;
  f->recent[i] = cie;
  return cie;
}

/* The CIE of the FDE at OFFSET, and the FDE's range, instructions.  */
static const Cie *
parse_fde (StEhFrame *f, size_t offset, uint64_t *start,
           uint64_t *end, const uint8_t **insn, const uint8_t **insn_end)
{
  const uint8_t *p = f->data + offset, *e;
  uint64_t len, id, range;

  if (!read_fixed (&p, f->data + f->size, 4, &len) || len == 0
      || len >= 0xfffffff0u || len > (uint64_t) (f->data + f->size - p))
    return NULL;
  e = p + len;
  if (!read_fixed (&p, e, 4, &id) || id == 0 || id > offset + 4)
    return NULL;
  const Cie *cie = cie_at (f, offset + 4 - id);
  if (cie == NULL)
    return NULL;
  uint64_t at = f->vaddr + (uint64_t) (p - f->data);
  if (!read_encoded (&p, e, cie->fde_encoding, at, 0, start)
      || !read_encoded (&p, e, cie->fde_encoding & 0x0f, 0, 0, &range))
    return NULL;
  *end = *start + range;
  if (cie->sized)
    {
      uint64_t aug_len;
      if (!read_uleb (&p, e, &aug_len) || aug_len > (uint64_t) (e - p))
        return NULL;
      p += aug_len;
    }
  *insn = p;
  *insn_end = e;
  return cie;
}

/* The data of section NAME; NULL when absent (*FOUND FALSE) or not
   plain data.  */
static const Elf_Data *
section_data (Elf *elf, size_t shstrndx, const char *name, uint64_t *vaddr,
              gboolean *found)
{
  Elf_Scn *scn = NULL;

  *found = FALSE;
  while ((scn = elf_nextscn (elf, scn)) != NULL)
    {
      GElf_Shdr shdr;
      const char *n;
      if (gelf_getshdr (scn, &shdr) == NULL
          || (n = elf_strptr (elf, shstrndx, shdr.sh_name)) == NULL
          || strcmp (n, name) != 0)
        continue;
      *found = TRUE;
      if (shdr.sh_type != SHT_PROGBITS)
        return NULL;
      *vaddr = shdr.sh_addr;
      return elf_rawdata (scn, NULL);
    }
  return NULL;
}

/* The range of the FDE at OFFSET: all that loading needs of each FDE
   (a big program has tens of thousands), read the quick way when its
   pointers are what linkers write.  */
static gboolean
fde_range (StEhFrame *f, size_t offset, uint64_t *start, uint64_t *end)
{
  uint32_t len, id;
  int32_t pc, range;      /* both sdata4, as libdw reads them */

  if (f->size < 16 || offset > f->size - 16)
    return FALSE;
  memcpy (&len, f->data + offset, 4);
  memcpy (&id, f->data + offset + 4, 4);
  if (len < 12 || len > f->size - offset - 4 || id == 0 || id > offset + 4)
    return FALSE;
  const Cie *cie = cie_at (f, offset + 4 - id);
  if (cie == NULL)
    return FALSE;
  if (cie->fde_encoding != (PE_PCREL | PE_SDATA4))
    {
      const uint8_t *insn, *insn_end;
      return parse_fde (f, offset, start, end, &insn, &insn_end) != NULL;
    }
  memcpy (&pc, f->data + offset + 8, 4);
  memcpy (&range, f->data + offset + 12, 4);
  *start = f->vaddr + offset + 8 + (uint64_t) (int64_t) pc;
  *end = *start + (uint64_t) (int64_t) range;
  return TRUE;
}

/* Adds the FDE at OFFSET to F->FDES (grown by the caller); FALSE when
   it cannot be parsed or covers nothing (which libdw skips in some
   lookups and not in others: left to it).  */
static gboolean
add_fde (StEhFrame *f, size_t offset)
{
  uint64_t s, e;

  if (!fde_range (f, offset, &s, &e) || e <= s || e - s > G_MAXUINT32)
    return FALSE;
  f->fdes[f->n_fdes++] = (Fde) { s, e - s, offset };
  return TRUE;
}

/* The FDEs from .eh_frame_hdr's search table, as libdw finds them.  */
static gboolean
load_table (StEhFrame *f, const Elf_Data *hdr, uint64_t hdr_vaddr)
{
  const uint8_t *h = hdr->d_buf, *hend = h + hdr->d_size, *p = h + 4;
  uint64_t count, frame_ptr;
  uint8_t table_enc;

  if (hdr->d_size < 4 || h[0] != 1)
    return FALSE;
  table_enc = h[3];
  if (!read_encoded (&p, hend, h[1], hdr_vaddr + 4, hdr_vaddr, &frame_ptr)
      || frame_ptr != f->vaddr
      || !read_encoded (&p, hend, h[2], hdr_vaddr + (p - h), hdr_vaddr,
                        &count)
      || table_enc != (PE_DATAREL | PE_SDATA4)
      || count == 0 || count > (uint64_t) (hend - p) / 8)
    return FALSE;

  f->fdes = g_new (Fde, count);
  for (guint i = 0; i < count; i++, p += 8)
    {
      int32_t entry[2];
      memcpy (entry, p, 8);
      uint64_t start = hdr_vaddr + (uint64_t) (int64_t) entry[0];
      uint64_t fde_vaddr = hdr_vaddr + (uint64_t) (int64_t) entry[1];
      if (fde_vaddr < f->vaddr || fde_vaddr - f->vaddr >= f->size
          || !add_fde (f, fde_vaddr - f->vaddr)
          || f->fdes[i].start != start
          || (i > 0 && start < f->fdes[i - 1].start + f->fdes[i - 1].len))
        return FALSE;
    }
  return TRUE;
}

static int
fde_cmp (const void *a, const void *b)
{
  const Fde *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* Without a search table libdw reads .eh_frame from the start until an
   FDE covers the address: when no FDEs overlap, that is the one
   covering it, whatever was read before.  */
static gboolean
load_all (StEhFrame *f)
{
  size_t offset = 0, max = f->size / 16 + 1;

  f->fdes = g_new (Fde, max);
  while (offset + 4 <= f->size)
    {
      const uint8_t *p = f->data + offset;
      uint64_t len, id;
      if (!read_fixed (&p, f->data + f->size, 4, &len))
        return FALSE;
      if (len == 0)
        break;          /* the terminator: it must be the end */
      if (len >= 0xfffffff0u || len > (uint64_t) (f->data + f->size - p)
          || !read_fixed (&p, f->data + f->size, 4, &id))
        return FALSE;
      /* Every entry parsed whole: libdw's scan stops at the first it
         cannot read.  */
      uint64_t s, e;
      const uint8_t *insn, *insn_end;
      if (id == 0 ? cie_at (f, offset) == NULL
                  : f->n_fdes == max
                    || parse_fde (f, offset, &s, &e, &insn, &insn_end) == NULL
                    || !add_fde (f, offset))
        return FALSE;
      offset += 4 + len;
    }
  if (offset + 4 < f->size || f->n_fdes == 0)
    return FALSE;
  qsort (f->fdes, f->n_fdes, sizeof *f->fdes, fde_cmp);
  for (guint i = 1; i < f->n_fdes; i++)
    if (f->fdes[i].start < f->fdes[i - 1].start + f->fdes[i - 1].len)
      return FALSE;
  return TRUE;
}

/* Finds the FDEs as libdw would; FALSE when the module is left to
   libdw.  */
static gboolean
load (StEhFrame *f, Elf *elf)
{
  GElf_Ehdr ehdr;
  size_t shstrndx;
  uint64_t hdr_vaddr;

  if (gelf_getehdr (elf, &ehdr) == NULL
      || ehdr.e_ident[EI_CLASS] != ELFCLASS64
      || ehdr.e_ident[EI_DATA] != ELFDATA2LSB
      || G_BYTE_ORDER != G_LITTLE_ENDIAN
      || elf_getshdrstrndx (elf, &shstrndx) != 0)
    return FALSE;
  gboolean hdr_found, frame_found;
  const Elf_Data *hdr = section_data (elf, shstrndx, ".eh_frame_hdr",
                                      &hdr_vaddr, &hdr_found);
  const Elf_Data *frame = section_data (elf, shstrndx, ".eh_frame",
                                        &f->vaddr, &frame_found);
  if (frame == NULL || frame->d_buf == NULL || frame->d_size >= G_MAXUINT32)
    return FALSE;
  f->data = frame->d_buf;
  f->size = frame->d_size;
  if (hdr_found)
    return hdr != NULL && hdr->d_buf != NULL
           && load_table (f, hdr, hdr_vaddr);
  return load_all (f);
}

StEhFrame *
st_eh_frame_new (Elf *elf, const StFastArch *arch)
{
  if (elf == NULL || arch == NULL || arch->machine != EM_X86_64
      || arch->n_regs > ST_FRAME_MAX_REGS)
    return NULL;

  StEhFrame *f = g_new0 (StEhFrame, 1);
  f->arch = arch;
  f->cies = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                   g_free);
  if (!load (f, elf))
    {
      st_eh_frame_free (f);
      return NULL;
    }
  return f;
}

void
st_eh_frame_free (StEhFrame *f)
{
  if (f == NULL)
    return;
  g_free (f->fdes);
  g_hash_table_destroy (f->cies);
  g_free (f);
}

guint
st_eh_frame_n_fdes (const StEhFrame *f)
{
  return f->n_fdes;
}

void
st_eh_frame_range (const StEhFrame *f, int index, uint64_t *start,
                   uint64_t *end)
{
  *start = f->fdes[index].start;
  *end = f->fdes[index].start + f->fdes[index].len;
}

gsize
st_eh_frame_size (const StEhFrame *f)
{
  return sizeof *f + f->n_fdes * sizeof *f->fdes
         + g_hash_table_size (f->cies) * (sizeof (Cie) + 48);
}

int
st_eh_frame_find (const StEhFrame *f, uint64_t addr, uint64_t *start,
                  uint64_t *end)
{
  guint lo = 0, hi = f->n_fdes;

  /* The last FDE starting at or before ADDR.  */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (f->fdes[mid].start <= addr)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return -1;
  const Fde *fde = &f->fdes[lo - 1];
  if (addr - fde->start >= fde->len)
    return -1;
  *start = fde->start;
  *end = fde->start + fde->len;
  return (int) lo - 1;
}

static gboolean
run_fde (StEhFrame *f, int index, Run *r)
{
  const Fde *fde = &f->fdes[index];
  uint64_t start, end;
  const uint8_t *insn, *insn_end;
  const Cie *cie = parse_fde (f, fde->offset, &start, &end, &insn,
                              &insn_end);

  if (cie == NULL || !cie->state_ok)
    return FALSE;
  r->cie = cie;
  r->loc = start;
  r->end = end;
  State s = cie->initial;
  return run_program (r, &s, insn, insn_end,
                      f->vaddr + (uint64_t) (insn - f->data), insn);
}

gboolean
st_eh_frame_rows (StEhFrame *f, int index, StEhRowFunc func,
                  void *user)
{
  Run r = { .all = TRUE, .func = func, .user = user };

  return run_fde (f, index, &r);
}

typedef struct
{
  uint64_t start, end;
  StCfiRow *row;
  gboolean found;
} OneRow;

static void
one_row (uint64_t start, uint64_t end, const StCfiRow *row, void *user)
{
  OneRow *o = user;

  o->start = start;
  o->end = end;
  *o->row = *row;
  o->found = TRUE;
}

gboolean
st_eh_frame_row (StEhFrame *f, int index, uint64_t addr,
                 uint64_t *start, uint64_t *end, StCfiRow *row)
{
  OneRow o = { .row = row };
  Run r = { .find = addr, .func = one_row, .user = &o };

  if (!run_fde (f, index, &r) || !o.found)
    return FALSE;
  *start = o.start;
  *end = o.end;
  return TRUE;
}
