/* The .eh_frame reader (eh-frame.h) against libdw 0.188:

   - files: every FDE of real ELF files (this system's libc and dynamic
     linker, the committed fixture program, the test programs plt-calls
     with its library and dbgframe-prog, whose .eh_frame holds only
     _start and the PLT, and gcc's cc1 when installed): for every row the
     reader reads, at its first, middle and last address, the rule must
     be byte for byte the one of dwarf_cfi_addrframe +
     st_cfi_rule_from_frame, the row must end where libdw says, the rows
     must cover the FDE, and an address in no FDE must be one libdw has
     no row for either;
   - synthetic: a .eh_frame built here, in an in-memory ELF, with every
     plain opcode and the cases the reader leaves to libdw, at every
     address; damaged: the same with random bytes changed;
   - rejected: tables whose answers would depend on libdw's earlier
     lookups;
   - rule-cache: the fast engine's rule cache (reader and libdw
     together) against libdw alone, at addresses in random order.

   FDEs the reader leaves to libdw are counted (--verbose).  */
#include "config.h"

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <glib.h>

#include "eh-frame-image.h"
#include "perf-stream.h"         /* put, put_u32, put_u64 */
#include "rule-cache-module.h"
#include "unwind/dwfl-unwinder.h"
#include "unwind/eh-frame.h"
#include "unwind/find-debuginfo.h"
#include "unwind/rule-cache.h"

typedef struct
{
  uint64_t start, end;
  StCfiRow row;
} Row;

typedef struct
{
  guint files, fdes, rows, addresses, to_libdw, gaps;
  gboolean every_address;       /* else a row's first, middle, last */
  guint partial;                /* rows read in FDEs left to libdw */
} Counts;

static void
collect (uint64_t start, uint64_t end, const StCfiRow *row, void *user)
{
  Row r = { start, end, *row };
  g_array_append_val ((GArray *) user, r);
}

/* libdw's rule at ADDR, and its row's end; FALSE when it has none.  */
static gboolean
libdw_rule (Dwarf_CFI *cfi, const StFastArch *arch, uint64_t addr,
            StUnwindRule *rule, Dwarf_Addr *end)
{
  Dwarf_Frame *frame;
  Dwarf_Addr start;

  if (dwarf_cfi_addrframe (cfi, addr, &frame) != 0)
    return FALSE;
  st_cfi_rule_from_frame (frame, arch->n_regs, arch->ra, rule, &start, end);
  free (frame);
  return TRUE;
}

static void
check_address (StEhFrame *f, int index, Dwarf_CFI *cfi,
               const StFastArch *arch, const Row *r, uint64_t addr,
               Counts *n)
{
  StUnwindRule mine, theirs;
  Dwarf_Addr end;
  Row one;

  /* The row alone, from the program run only that far.  */
  g_assert_true (st_eh_frame_row (f, index, addr, &one.start, &one.end,
                                  &one.row));
  g_assert_cmphex (one.start, ==, r->start);
  g_assert_cmphex (one.end, ==, r->end);
  g_assert_true (memcmp (&one.row, &r->row, sizeof one.row) == 0);

  st_cfi_rule_from_row (&r->row, arch->n_regs, arch->ra, &mine);
  if (!libdw_rule (cfi, arch, addr, &theirs, &end))
    g_error ("%#" G_GINT64_MODIFIER "x: libdw has no row: %s", addr,
             dwarf_errmsg (-1));
  if (memcmp (&mine, &theirs, sizeof mine) != 0)
    g_error ("%#" G_GINT64_MODIFIER "x (row %#" G_GINT64_MODIFIER "x-%#"
             G_GINT64_MODIFIER "x): rules differ (kind %u/%u, cfa %u+%d/"
             "%u+%d, same %#x/%#x, regs %u/%u)", addr, r->start, r->end,
             mine.kind, theirs.kind, mine.cfa_reg, mine.cfa_offset,
             theirs.cfa_reg, theirs.cfa_offset, mine.same, theirs.same,
             mine.n_regs, theirs.n_regs);
  /* libdw's end is the next row's start, even past the FDE's end (an
     advance beyond it), where the FDE is no longer what libdw finds.  */
  uint64_t fde_start, fde_end;
  st_eh_frame_range (f, index, &fde_start, &fde_end);
  if (MIN (end, fde_end) != r->end)
    g_error ("%#" G_GINT64_MODIFIER "x: row ends at %#" G_GINT64_MODIFIER
             "x, libdw says %#" G_GINT64_MODIFIER "x", addr, r->end,
             (uint64_t) end);
  n->addresses++;
}

/* An address outside every FDE of the reader: libdw has no row.  */
static void
check_gap (const StEhFrame *f, Dwarf_CFI *cfi, const StFastArch *arch,
           uint64_t addr, Counts *n)
{
  uint64_t s, e;
  StUnwindRule rule;
  Dwarf_Addr end;

  if (st_eh_frame_find (f, addr, &s, &e) >= 0)
    return;
  if (libdw_rule (cfi, arch, addr, &rule, &end))
    {
      Dwarf_Frame *frame;
      Dwarf_Addr fs = 0, fe = 0;
      bool sig;
      if (dwarf_cfi_addrframe (cfi, addr, &frame) == 0)
        {
          dwarf_frame_info (frame, &fs, &fe, &sig);
          free (frame);
        }
      g_error ("%#" G_GINT64_MODIFIER "x: in no FDE, but libdw has a row"
               " (%#" G_GINT64_MODIFIER "x-%#" G_GINT64_MODIFIER "x)",
               addr, (uint64_t) fs, (uint64_t) fe);
    }
  n->gaps++;
}

static void
check_fde (StEhFrame *f, Dwarf_CFI *cfi, const StFastArch *arch,
           int index, GArray *rows, Counts *n)
{
  uint64_t start, end, s, e;

  st_eh_frame_range (f, index, &start, &end);
  g_assert_cmpint (st_eh_frame_find (f, start, &s, &e), ==, index);
  g_assert_cmpint (st_eh_frame_find (f, end - 1, &s, &e), ==, index);
  n->fdes++;
  if (start > 0)
    check_gap (f, cfi, arch, start - 1, n);
  check_gap (f, cfi, arch, end, n);

  g_array_set_size (rows, 0);
  if (!st_eh_frame_rows (f, index, collect, rows))
    {
      /* Left to libdw: rows before the part the reader does not
         understand may still be read alone, and must then agree.  */
      n->to_libdw++;
      for (uint64_t a = start; n->every_address && a < end; a++)
        {
          Row one;
          if (st_eh_frame_row (f, index, a, &one.start, &one.end, &one.row))
            {
              check_address (f, index, cfi, arch, &one, a, n);
              n->partial++;
            }
        }
      return;
    }
  uint64_t at = start;
  for (guint i = 0; i < rows->len; i++)
    {
      const Row *r = &g_array_index (rows, Row, i);
      g_assert_cmphex (r->start, ==, at);
      g_assert_cmphex (r->end, >, r->start);
      at = r->end;
      if (n->every_address)
        for (uint64_t a = r->start; a < r->end; a++)
          check_address (f, index, cfi, arch, r, a, n);
      else
        {
          check_address (f, index, cfi, arch, r, r->start, n);
          check_address (f, index, cfi, arch, r,
                         r->start + (r->end - r->start) / 2, n);
          check_address (f, index, cfi, arch, r, r->end - 1, n);
        }
      n->rows++;
    }
  g_assert_cmphex (at, ==, end);
}

/* Compares every FDE of ELF, named PATH.  */
static void
check_elf (Elf *elf, const char *path, gboolean must_read, Counts *n)
{
  const StFastArch *arch = st_fast_arch (EM_X86_64);
  Dwarf_CFI *cfi = dwarf_getcfi_elf (elf);
  StEhFrame *f = st_eh_frame_new (elf, arch);
  Counts before = *n;

  if (must_read)
    {
      g_assert_nonnull (cfi);
      g_assert_nonnull (f);
    }
  /* (Without libdw's CFI the rule cache does not use the reader.)  */
  if (f != NULL && cfi != NULL)
    {
      GArray *rows = g_array_new (FALSE, FALSE, sizeof (Row));
      for (guint i = 0; i < st_eh_frame_n_fdes (f); i++)
        check_fde (f, cfi, arch, (int) i, rows, n);
      g_array_free (rows, TRUE);
    }
  if (path != NULL)
    g_test_message ("%s: %s%u FDEs, %u rows, %u addresses compared, "
                    "%u FDEs left to libdw, %u gaps", path,
                    f == NULL ? "left to libdw whole; " : "",
                    n->fdes - before.fdes, n->rows - before.rows,
                    n->addresses - before.addresses,
                    n->to_libdw - before.to_libdw, n->gaps - before.gaps);
  n->files++;
  st_eh_frame_free (f);
  dwarf_cfi_end (cfi);
}

/* Compares every FDE of PATH; FALSE when it cannot be opened.  */
static gboolean
check_file (const char *path, Counts *n)
{
  int fd = open (path, O_RDONLY);

  if (fd < 0)
    return FALSE;
  Elf *elf = elf_begin (fd, ELF_C_READ_MMAP, NULL);
  g_assert_nonnull (elf);
  check_elf (elf, path, TRUE, n);
  elf_end (elf);
  close (fd);
  return TRUE;
}

/* --- a synthetic .eh_frame, for what real files rarely hold ------------ */

#define CODE_VADDR 0x10000u

static void
put_u8 (GByteArray *b, unsigned v)
{
  guint8 c = v;
  put (b, &c, 1);
}

typedef struct
{
  const char *aug;
  unsigned version, ra;
  uint64_t code;
  int64_t data;
} CieSpec;

/* A CIE defining CFA = rsp + 8, return address at CFA - 8 (unless
   NO_CFA), then INSN.  */
static size_t
add_cie (GByteArray *b, const CieSpec *c, gboolean no_cfa,
         const guint8 *insn, size_t n)
{
  size_t at = b->len;

  put_u32 (b, 0);
  put_u32 (b, 0);
  put_u8 (b, c->version);
  put (b, c->aug, strlen (c->aug) + 1);
  eh_frame_put_uleb (b, c->code);
  eh_frame_put_sleb (b, c->data);
  if (c->version == 1)
    put_u8 (b, c->ra);
  else
    eh_frame_put_uleb (b, c->ra);
  if (c->aug[0] == 'z')
    {
      GByteArray *aug = g_byte_array_new ();
      for (const char *a = c->aug + 1; *a != '\0'; a++)
        if (*a == 'R' || *a == 'L')
          put_u8 (aug, 0x1b);           /* pcrel sdata4 */
        else if (*a == 'P')
          {
            put_u8 (aug, 0x9b);         /* indirect pcrel sdata4 */
            put_u32 (aug, 0);
          }
      eh_frame_put_uleb (b, aug->len);
      put (b, aug->data, aug->len);
      g_byte_array_free (aug, TRUE);
    }
  if (!no_cfa)
    {
      static const guint8 cfa[] = {
        DW_CFA_def_cfa, 7, 8, DW_CFA_offset | 16, 1,
      };
      put (b, cfa, sizeof cfa);
    }
  put (b, insn, n);
  eh_frame_end_entry (b, at, 4);
  return at;
}

/* An FDE of CIE_AT for [START, START + LEN); its pointers absolute
   (a CIE without augmentation) or pc-relative.  */
static size_t
add_fde (GByteArray *b, size_t cie_at, gboolean absolute, uint64_t start,
         uint64_t len, const guint8 *insn, size_t n)
{
  size_t at = b->len;

  put_u32 (b, 0);
  put_u32 (b, at + 4 - cie_at);
  if (absolute)
    {
      put_u64 (b, start);
      put_u64 (b, len);
    }
  else
    {
      put_u32 (b, (uint32_t) (start - (FRAME_VADDR + b->len)));
      put_u32 (b, len);
      eh_frame_put_uleb (b, 0);                  /* augmentation data */
    }
  put (b, insn, n);
  eh_frame_end_entry (b, at, 4);
  return at;
}

/* An x86_64 ELF image in memory with FRAME as .eh_frame and a search
   table of its FDES (offsets, by address) as .eh_frame_hdr.  */
static guint8 *
make_elf (GByteArray *frame, const size_t *fdes, const uint64_t *starts,
          guint n, size_t *size)
{
  GByteArray *hdr = g_byte_array_new ();

  put_u8 (hdr, 1);
  put_u8 (hdr, 0x1b);
  put_u8 (hdr, 0x03);
  put_u8 (hdr, 0x3b);
  put_u32 (hdr, FRAME_VADDR - (HDR_VADDR + 4));
  put_u32 (hdr, n);
  for (guint i = 0; i < n; i++)
    {
      put_u32 (hdr, starts[i] - HDR_VADDR);
      put_u32 (hdr, FRAME_VADDR + fdes[i] - HDR_VADDR);
    }

  guint8 *image = eh_frame_image (hdr->data, hdr->len, frame->data,
                                  frame->len, size);
  g_byte_array_free (hdr, TRUE);
  return image;
}

#define ADV(n) (DW_CFA_advance_loc | (n))

#define N_SYNTHETIC 15

/* Programs each in a function of its own, in a new .eh_frame; their
   offsets and addresses in OFFSETS, STARTS.  */
static GByteArray *
synthetic_frame (size_t *offsets, uint64_t *starts)
{
  static const CieSpec plain = { "zR", 1, 16, 1, -8 };
  static const CieSpec aligned = { "zR", 3, 16, 4, -4 };
  static const CieSpec personality = { "zPLR", 1, 16, 1, -8 };
  static const CieSpec signal = { "zRS", 1, 16, 1, -8 };
  static const CieSpec bare = { "", 1, 16, 1, -8 };
  static const CieSpec other_ra = { "zR", 1, 15, 1, -8 };
  static const guint8 none[] = { DW_CFA_nop };
  static const guint8 b_init[] = {
    DW_CFA_same_value, 3, DW_CFA_undefined, 6,
  };
  /* Every plain opcode.  */
  static const guint8 p_all[] = {
    ADV (1), DW_CFA_def_cfa_offset, 16, DW_CFA_offset | 6, 2, ADV (4),
    DW_CFA_remember_state, DW_CFA_def_cfa_offset, 8, DW_CFA_restore | 6,
    ADV (1), DW_CFA_restore_state, ADV (2), DW_CFA_def_cfa_register, 6,
    ADV (1), DW_CFA_def_cfa_sf, 7, 0x7e, DW_CFA_def_cfa_offset_sf, 0x7d,
    DW_CFA_offset_extended_sf, 3, 0x7f, DW_CFA_val_offset, 12, 1,
    DW_CFA_val_offset_sf, 13, 0x7d, DW_CFA_register, 14, 15,
    DW_CFA_register, 15, 40, DW_CFA_undefined, 16, DW_CFA_same_value, 0,
    DW_CFA_GNU_args_size, 16, DW_CFA_nop, DW_CFA_advance_loc1, 3,
    DW_CFA_GNU_negative_offset_extended, 3, 2, DW_CFA_offset_extended, 20,
    1, DW_CFA_restore_extended, 3, DW_CFA_advance_loc2, 2, 0,
    DW_CFA_offset | 3, 0, DW_CFA_advance_loc4, 1, 0, 0, 0,
    DW_CFA_undefined, 7, ADV (1), DW_CFA_restore | 7, DW_CFA_restore | 16,
  };
  /* The CFA changed while undefined (invalid), restore to the CIE's.  */
  static const guint8 p_invalid[] = {
    DW_CFA_def_cfa_register, 6, ADV (1), DW_CFA_def_cfa_offset, 32, ADV (1),
    DW_CFA_def_cfa, 7, 16, ADV (1), DW_CFA_offset | 6, 2, DW_CFA_restore | 3,
    ADV (1), DW_CFA_restore | 6, ADV (1), DW_CFA_def_cfa_register, 6,
    ADV (2),
  };
  static const guint8 p_nested[] = {
    ADV (1), DW_CFA_def_cfa_offset, 16, DW_CFA_remember_state,
    DW_CFA_def_cfa_offset, 24, DW_CFA_remember_state,
    DW_CFA_def_cfa_offset, 32, DW_CFA_offset | 3, 4, ADV (2),
    DW_CFA_restore_state, ADV (2), DW_CFA_restore_state, ADV (2),
    DW_CFA_def_cfa_offset, 8,
  };
  static const guint8 p_expression[] = {
    ADV (2), DW_CFA_def_cfa_offset, 16, ADV (2), DW_CFA_def_cfa_expression,
    2, 0x77, 8, ADV (2), DW_CFA_def_cfa_offset, 8,
  };
  static const guint8 p_unbalanced[] = {
    ADV (2), DW_CFA_restore_state, ADV (2),
  };
  static const guint8 p_high_reg[] = {
    ADV (1), DW_CFA_offset_extended, 0x80, 1, 1,
  };
  static const guint8 p_simple[] = {
    ADV (1), DW_CFA_def_cfa_offset, 16, ADV (1), DW_CFA_offset | 3, 2,
  };
  /* Past the FDE's end, then what neither reads.  */
  static const guint8 p_past_end[] = {
    ADV (3), DW_CFA_def_cfa_offset, 16, DW_CFA_advance_loc1, 0x50, 0x3f,
  };
  static const guint8 p_set_loc[] = {
    DW_CFA_set_loc, 0x04, 0x05, 0x01, 0, 0, 0, 0, 0,
    DW_CFA_def_cfa_offset, 16,
    DW_CFA_set_loc, 0x08, 0x05, 0x01, 0, 0, 0, 0, 0,
    DW_CFA_def_cfa_offset, 24,
  };
  /* Offsets beyond 32 bits: rules of their own (fallback).  */
  static const guint8 p_huge[] = {
    ADV (1), DW_CFA_offset | 3, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20,
    ADV (1), DW_CFA_def_cfa, 7, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20,
  };
  static const guint8 p_deep[] = {
    ADV (1), DW_CFA_remember_state, DW_CFA_remember_state,
    DW_CFA_remember_state, DW_CFA_remember_state, DW_CFA_remember_state,
    DW_CFA_remember_state, DW_CFA_remember_state, DW_CFA_remember_state,
    DW_CFA_remember_state, DW_CFA_remember_state, DW_CFA_remember_state,
    DW_CFA_remember_state, DW_CFA_remember_state, DW_CFA_remember_state,
    DW_CFA_remember_state, DW_CFA_remember_state, DW_CFA_remember_state,
    ADV (1),
  };
  static const guint8 p_cfa_regs[] = {
    ADV (1), DW_CFA_def_cfa, 16, 8, ADV (1), DW_CFA_def_cfa, 20, 8,
  };
  static const guint8 p_reg_expression[] = {
    ADV (1), DW_CFA_expression, 3, 2, 0x77, 8, ADV (1),
  };
  GByteArray *b = g_byte_array_new ();
  size_t c_plain = add_cie (b, &plain, FALSE, none, 0);
  size_t c_aligned = add_cie (b, &aligned, TRUE, b_init, sizeof b_init);
  size_t c_personality = add_cie (b, &personality, FALSE, none, 0);
  size_t c_signal = add_cie (b, &signal, FALSE, none, 0);
  size_t c_bare = add_cie (b, &bare, FALSE, none, 0);
  size_t c_other_ra = add_cie (b, &other_ra, FALSE, none, 0);
  struct { size_t cie; const guint8 *insn; size_t n; } fdes[] = {
    { c_plain, p_all, sizeof p_all },
    { c_aligned, p_invalid, sizeof p_invalid },
    { c_plain, p_nested, sizeof p_nested },
    { c_plain, p_expression, sizeof p_expression },
    { c_plain, p_unbalanced, sizeof p_unbalanced },
    { c_plain, p_high_reg, sizeof p_high_reg },
    { c_signal, p_simple, sizeof p_simple },
    { c_personality, p_simple, sizeof p_simple },
    { c_plain, p_past_end, sizeof p_past_end },
    { c_bare, p_set_loc, sizeof p_set_loc },
    { c_plain, p_huge, sizeof p_huge },
    { c_other_ra, p_simple, sizeof p_simple },
    { c_plain, p_deep, sizeof p_deep },
    { c_plain, p_cfa_regs, sizeof p_cfa_regs },
    { c_plain, p_reg_expression, sizeof p_reg_expression },
  };
  G_STATIC_ASSERT (G_N_ELEMENTS (fdes) == N_SYNTHETIC);
  for (guint i = 0; i < G_N_ELEMENTS (fdes); i++)
    {
      /* 0x40 bytes each, 0x100 apart: gaps between them.  */
      starts[i] = CODE_VADDR + i * 0x100;
      offsets[i] = add_fde (b, fdes[i].cie, fdes[i].cie == c_bare,
                            starts[i], 0x40, fdes[i].insn, fdes[i].n);
    }
  /* set_loc's operands: the function's start + 4, + 8.  */
  const guint8 *sl = p_set_loc;
  for (guint8 *p = b->data + offsets[9]; p < b->data + b->len; p++)
    if (memcmp (p, sl, 9) == 0)
      {
        uint64_t at = starts[9] + 4;
        memcpy (p + 1, &at, 8);
        at += 4;
        memcpy (p + 11 + 1, &at, 8);
        break;
      }
  put_u32 (b, 0);       /* the terminator */
  return b;
}

/* Every address of the synthetic programs against libdw.  */
static void
test_synthetic (void)
{
  size_t offsets[N_SYNTHETIC], size;
  uint64_t starts[N_SYNTHETIC];
  GByteArray *b = synthetic_frame (offsets, starts);
  guint8 *image = make_elf (b, offsets, starts, N_SYNTHETIC, &size);
  Elf *elf = elf_memory ((char *) image, size);
  Counts n = { .every_address = TRUE };

  g_assert_nonnull (elf);
  check_elf (elf, "synthetic", TRUE, &n);
  g_test_message ("synthetic: %u FDEs, %u rows, %u addresses, %u FDEs "
                  "left to libdw (%u rows before what the reader leaves "
                  "read alone)", n.fdes, n.rows, n.addresses, n.to_libdw,
                  n.partial);
  /* The expression, the unbalanced restore_state, the register
     number 128, remembering 17 deep, the register expression.  */
  g_assert_cmpuint (n.fdes, ==, N_SYNTHETIC);
  g_assert_cmpuint (n.to_libdw, ==, 5);
  g_assert_cmpuint (n.partial, >, 0);
  g_assert_cmpuint (n.gaps, >=, N_SYNTHETIC);
  elf_end (elf);
  g_free (image);
  g_byte_array_free (b, TRUE);
}

/* The synthetic .eh_frame damaged a few bytes at a time: whatever the
   reader still reads must be what libdw reads, and nothing may read
   out of bounds (under ASan).  ST_EH_DAMAGED_ROUNDS (default 300) and
   ST_EH_DAMAGED_SEED set the rounds and the seed, for longer runs.  */
static void
test_damaged (void)
{
  size_t offsets[N_SYNTHETIC], size;
  uint64_t starts[N_SYNTHETIC];
  GByteArray *b = synthetic_frame (offsets, starts);
  const char *env_rounds = g_getenv ("ST_EH_DAMAGED_ROUNDS");
  const char *env_seed = g_getenv ("ST_EH_DAMAGED_SEED");
  guint rounds = env_rounds != NULL ? atoi (env_rounds) : 300;
  GRand *rand = g_rand_new_with_seed (env_seed != NULL ? atoi (env_seed)
                                                       : 4);
  Counts n = { .every_address = TRUE };
  guint read = 0;

  for (guint i = 0; i < rounds; i++)
    {
      GByteArray *d = g_byte_array_new ();
      put (d, b->data, b->len);
      for (guint k = g_rand_int_range (rand, 1, 4); k > 0; k--)
        {
          guint v = g_rand_int_range (rand, 0, 256);
          guint at = g_rand_int_range (rand, 0, d->len);
          d->data[at] = v;
        }
      guint8 *image = make_elf (d, offsets, starts, N_SYNTHETIC, &size);
      Elf *elf = elf_memory ((char *) image, size);
      StEhFrame *f = st_eh_frame_new (elf, st_fast_arch (EM_X86_64));
      gboolean small = TRUE;
      for (guint j = 0; f != NULL && j < st_eh_frame_n_fdes (f); j++)
        {
          uint64_t s, e;
          st_eh_frame_range (f, j, &s, &e);
          small = small && e - s <= 0x1000;
        }
      gboolean accepted = f != NULL;
      st_eh_frame_free (f);
      /* (A range made huge is compared at a few addresses a row.)  */
      n.every_address = small;
      check_elf (elf, NULL, FALSE, &n);
      read += accepted;
      elf_end (elf);
      g_free (image);
      g_byte_array_free (d, TRUE);
    }
  g_test_message ("damaged: %u of %u read, %u FDEs, %u rows, %u addresses "
                  "compared, %u FDEs left to libdw", read, rounds, n.fdes, n.rows,
                  n.addresses, n.to_libdw);
  g_rand_free (rand);
  g_byte_array_free (b, TRUE);
}

/* Tables whose answers would depend on libdw's earlier lookups: the
   whole module is left to libdw.  */
static void
test_rejected (void)
{
  static const CieSpec plain = { "zR", 1, 16, 1, -8 };
  static const guint8 insn[] = { ADV (1), DW_CFA_def_cfa_offset, 16 };
  static const struct { uint64_t start[2], len[2]; } cases[] = {
    { { 0x10000, 0x10020 }, { 0x40, 0x40 } },   /* overlapping */
    { { 0x10000, 0x10100 }, { 0x40, 0 } },      /* covering nothing */
    { { 0x10100, 0x10000 }, { 0x40, 0x40 } },   /* out of order */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GByteArray *b = g_byte_array_new ();
      size_t cie = add_cie (b, &plain, FALSE, insn, 0);
      size_t offsets[2];
      for (guint j = 0; j < 2; j++)
        offsets[j] = add_fde (b, cie, FALSE, cases[i].start[j],
                              cases[i].len[j], insn, sizeof insn);
      size_t size;
      guint8 *image = make_elf (b, offsets, cases[i].start, 2, &size);
      Elf *elf = elf_memory ((char *) image, size);
      g_assert_null (st_eh_frame_new (elf, st_fast_arch (EM_X86_64)));
      elf_end (elf);
      g_free (image);
      g_byte_array_free (b, TRUE);
    }
}

/* The files compared; the optional ones are skipped quietly.  */
static const struct { const char *path; gboolean required; } files[] = {
  { "/lib/x86_64-linux-gnu/libc.so.6", TRUE },
  { "/lib64/ld-linux-x86-64.so.2", TRUE },
  { ST_FIXTURE_DIR "/st-fixture", TRUE },
  { ST_PROGS_DIR "/plt-calls", TRUE },
  { ST_PROGS_DIR "/libstcallee.so", TRUE },
  { ST_PROGS_DIR "/dbgframe-prog", TRUE },
  { ST_PROGS_DIR "/mixed-frames", TRUE },
  { ST_PROGS_DIR "/plain-stripped", TRUE },
  { "/usr/lib/gcc/x86_64-linux-gnu/12/cc1", FALSE },
  /* Linked by LLVM's lld: .eh_frame (SHT_X86_64_UNWIND) before
     .eh_frame_hdr, so libdw reads it without the search table.  */
  { "/usr/lib/llvm-14/bin/lld", FALSE },
  { "/usr/lib/llvm-14/lib/LLVMgold.so", FALSE },
};

static void
test_files (void)
{
  Counts n = { 0 };

  elf_version (EV_CURRENT);
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    if (!check_file (files[i].path, &n) && files[i].required)
      g_error ("%s: cannot open", files[i].path);
  g_test_message ("%u files: %u FDEs, %u rows, %u addresses compared; "
                  "%u FDEs left to libdw", n.files, n.fdes, n.rows,
                  n.addresses, n.to_libdw);
  /* The test is only worth something if the reader read nearly all.  */
  g_assert_cmpuint (n.rows, >, 1000);
  g_assert_cmpuint (n.to_libdw * 20, <, n.fdes);
}

/* The rule cache, reader and libdw together, against libdw alone, at
   addresses in random order (and runs of neighbours, which meet the rows
   already read, in the hot table or not).  */
static void
test_rule_cache (void)
{
  GRand *rand = g_rand_new_with_seed (11);
  guint compared = 0;

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      if (!g_file_test (files[i].path, G_FILE_TEST_EXISTS))
        continue;
      RuleCacheModule o;
      rule_cache_module_open (&o, files[i].path);
      StModule *m = o.m;
      Dwfl_Module *dmod = o.dmod;

      uint64_t addr = m->low_vaddr;
      for (guint k = 0; k < 20000; k++)
        {
          if (k % 8 == 0)
            addr = m->low_vaddr
                   + g_rand_int_range (rand, 0, m->high_vaddr - m->low_vaddr);
          else
            addr += g_rand_int_range (rand, -24, 25);
          if (addr < m->low_vaddr || addr >= m->high_vaddr)
            continue;
          StUnwindRule want;
          libdw_module_rule (dmod, addr, &want);
          const StUnwindRule *got = st_rule_cache_lookup (m->tables, addr);
          if (memcmp (got, &want, sizeof want) != 0)
            g_error ("%s: %#" G_GINT64_MODIFIER "x: the rule cache's rule "
                     "differs from libdw's (kind %u/%u)", files[i].path,
                     addr, got->kind, want.kind);
          compared++;
        }
      rule_cache_module_close (&o);
    }
  g_test_message ("rule cache: %u addresses compared with libdw", compared);
  g_rand_free (rand);
}

/* Whether libdwfl could find a .debug_frame (the rule cache does not
   load a debug file that has none): yes for mixed-frames (in its
   separate debug file) and its unstripped build (in itself), no for
   plain-stripped (neither); and over all of mixed-frames, address by
   address, the rule cache against libdw, the leaf's rules coming from
   the debug file's .debug_frame.  */
static void
test_debug_frame_search (void)
{
  static const struct { const char *path; gboolean may; } cases[] = {
    { ST_PROGS_DIR "/mixed-frames", TRUE },
    { ST_PROGS_DIR "/mixed-frames.full", TRUE },
    { ST_PROGS_DIR "/plain-stripped", FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      RuleCacheModule o;
      rule_cache_module_open (&o, cases[i].path);
      g_assert_cmpint (st_find_debuginfo_may_have_debug_frame (o.dmod), ==,
                       cases[i].may);
      rule_cache_module_close (&o);
    }

  RuleCacheModule o;
  Dwarf_Addr eh_bias;
  guint from_debug_frame = 0;
  rule_cache_module_open (&o, cases[0].path);
  Dwarf_CFI *eh = dwfl_module_eh_cfi (o.dmod, &eh_bias);
  for (uint64_t addr = o.m->low_vaddr; addr < o.m->high_vaddr; addr++)
    {
      StUnwindRule want;
      Dwarf_Frame *frame;
      libdw_module_rule (o.dmod, addr, &want);
      const StUnwindRule *got = st_rule_cache_lookup (o.m->tables, addr);
      if (memcmp (got, &want, sizeof want) != 0)
        g_error ("mixed-frames: %#" G_GINT64_MODIFIER "x: the rule cache's "
                 "rule differs from libdw's (kind %u/%u)", addr, got->kind,
                 want.kind);
      if (want.kind != ST_RULE_NO_CFI
          && (eh == NULL
              || dwarf_cfi_addrframe (eh, addr - eh_bias, &frame) != 0))
        from_debug_frame++;
      else if (want.kind != ST_RULE_NO_CFI)
        free (frame);
    }
  rule_cache_module_close (&o);
  g_test_message ("mixed-frames: %u addresses unwound by the debug file's "
                  ".debug_frame", from_debug_frame);
  g_assert_cmpuint (from_debug_frame, >, 0);
}

/* libdwfl's answer to "is ADDR in the function at the entry point", as
   the libdwfl engine gives it (dwfl-unwinder.c).  */
static gboolean
reference_at_entry (Dwfl_Module *dmod, uint64_t addr)
{
  Dwarf_Addr bias;
  GElf_Ehdr ehdr;
  GElf_Sym sym;
  GElf_Off off;
  Elf *elf = dwfl_module_getelf (dmod, &bias);

  if (elf == NULL || gelf_getehdr (elf, &ehdr) == NULL || ehdr.e_entry == 0)
    return FALSE;
  uint64_t entry = ehdr.e_entry + bias;
  if (dwfl_module_addrinfo (dmod, addr, &off, &sym, NULL, NULL, NULL) != NULL)
    return addr - off == entry;
  return addr >= entry && addr - entry < 64;
}

/* The rule cache's entry-point answer (its window read from the symbol
   table directly when it can) against libdwfl's, around the entry point
   and at random addresses, for every file.  */
static void
test_entry_point (void)
{
  GRand *rand = g_rand_new_with_seed (5);
  guint compared = 0, at = 0;

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      if (!g_file_test (files[i].path, G_FILE_TEST_EXISTS))
        continue;
      RuleCacheModule o;
      rule_cache_module_open (&o, files[i].path);
      Dwarf_Addr bias;
      GElf_Ehdr ehdr;
      Elf *elf = dwfl_module_getelf (o.dmod, &bias);
      g_assert_nonnull (elf);
      g_assert_nonnull (gelf_getehdr (elf, &ehdr));
      /* libdwfl's lookup is a linear search: fewer addresses in big
         tables.  */
      guint step = dwfl_module_getsymtab (o.dmod) > 10000 ? 7 : 1;
      uint64_t entry = ehdr.e_entry + bias;
      for (uint64_t k = 0; ehdr.e_entry != 0 && k < 600; k += step)
        {
          uint64_t addr = entry - 16 + k;
          gboolean want = reference_at_entry (o.dmod, addr);
          if (st_rule_cache_at_entry_point (o.m->tables, addr) != want)
            g_error ("%s: %#" G_GINT64_MODIFIER "x: the rule cache says %s "
                     "the entry point's function, libdwfl %s",
                     files[i].path, addr, want ? "outside" : "in",
                     want ? "in" : "outside");
          compared++;
          at += want;
        }
      for (guint k = 0; k < 40; k++)
        {
          uint64_t addr = o.m->low_vaddr
                          + g_rand_int_range (rand, 0,
                                              o.m->high_vaddr - o.m->low_vaddr);
          g_assert_cmpint (st_rule_cache_at_entry_point (o.m->tables, addr),
                           ==, reference_at_entry (o.dmod, addr));
          compared++;
        }
      rule_cache_module_close (&o);
    }
  g_test_message ("entry point: %u addresses compared with libdwfl, %u in "
                  "the entry point's function", compared, at);
  g_assert_cmpuint (at, >, 0);
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  elf_version (EV_CURRENT);
  g_test_add_func ("/eh-frame/synthetic", test_synthetic);
  g_test_add_func ("/eh-frame/damaged", test_damaged);
  g_test_add_func ("/eh-frame/rejected", test_rejected);
  g_test_add_func ("/eh-frame/files", test_files);
  g_test_add_func ("/eh-frame/rule-cache", test_rule_cache);
  g_test_add_func ("/eh-frame/debug-frame-search", test_debug_frame_search);
  g_test_add_func ("/eh-frame/entry-point", test_entry_point);
  return g_test_run ();
}
