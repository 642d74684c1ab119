/* The .eh_frame reader (eh-frame.h) against libdw, FDE by FDE, on real
   ELF files: this system's libc and dynamic linker, the committed
   fixture program, the test programs plt-calls (with its library) and
   dbgframe-prog (.eh_frame with only _start and the PLT), and gcc's cc1
   when installed.  For every row of every FDE the reader reads, at its
   first, middle and last address, the rule must be byte for byte the
   one of dwarf_cfi_addrframe + st_cfi_rule_from_frame, and the row must
   end where libdw says it does; the rows must cover the FDE exactly; an
   address the reader finds in no FDE must be one libdw has no row for
   either.  FDEs the reader leaves to libdw are counted.  */
#include "config.h"

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdw.h>
#include <glib.h>

#include "unwind/eh-frame.h"

typedef struct
{
  uint64_t start, end;
  StCfiRow row;
} Row;

typedef struct
{
  guint files, fdes, rows, addresses, to_libdw, gaps;
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
    g_error ("%#" G_GINT64_MODIFIER "x: libdw has no row", addr);
  if (memcmp (&mine, &theirs, sizeof mine) != 0)
    g_error ("%#" G_GINT64_MODIFIER "x (row %#" G_GINT64_MODIFIER "x-%#"
             G_GINT64_MODIFIER "x): rules differ (kind %u/%u, cfa %u+%d/"
             "%u+%d, same %#x/%#x, regs %u/%u)", addr, r->start, r->end,
             mine.kind, theirs.kind, mine.cfa_reg, mine.cfa_offset,
             theirs.cfa_reg, theirs.cfa_offset, mine.same, theirs.same,
             mine.n_regs, theirs.n_regs);
  if (end != r->end)
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
    g_error ("%#" G_GINT64_MODIFIER "x: in no FDE, but libdw has a row",
             addr);
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
      n->to_libdw++;
      return;
    }
  uint64_t at = start;
  for (guint i = 0; i < rows->len; i++)
    {
      const Row *r = &g_array_index (rows, Row, i);
      g_assert_cmphex (r->start, ==, at);
      g_assert_cmphex (r->end, >, r->start);
      at = r->end;
      check_address (f, index, cfi, arch, r, r->start, n);
      check_address (f, index, cfi, arch, r,
                     r->start + (r->end - r->start) / 2, n);
      check_address (f, index, cfi, arch, r, r->end - 1, n);
      n->rows++;
    }
  g_assert_cmphex (at, ==, end);
}

/* Compares every FDE of PATH; FALSE when it cannot be opened.  */
static gboolean
check_file (const char *path, gboolean must_read, Counts *n)
{
  const StFastArch *arch = st_fast_arch (EM_X86_64);
  int fd = open (path, O_RDONLY);

  if (fd < 0)
    return FALSE;
  Elf *elf = elf_begin (fd, ELF_C_READ_MMAP, NULL);
  g_assert_nonnull (elf);
  Dwarf_CFI *cfi = dwarf_getcfi_elf (elf);
  StEhFrame *f = st_eh_frame_new (elf, arch);
  Counts before = *n;

  if (must_read)
    {
      g_assert_nonnull (cfi);
      g_assert_nonnull (f);
    }
  if (f != NULL)
    {
      GArray *rows = g_array_new (FALSE, FALSE, sizeof (Row));
      for (guint i = 0; i < st_eh_frame_n_fdes (f); i++)
        check_fde (f, cfi, arch, (int) i, rows, n);
      g_array_free (rows, TRUE);
    }
  g_test_message ("%s: %s%u FDEs, %u rows, %u addresses compared, "
                  "%u FDEs left to libdw, %u gaps", path,
                  f == NULL ? "left to libdw whole; " : "",
                  n->fdes - before.fdes, n->rows - before.rows,
                  n->addresses - before.addresses,
                  n->to_libdw - before.to_libdw, n->gaps - before.gaps);
  n->files++;
  st_eh_frame_free (f);
  dwarf_cfi_end (cfi);
  elf_end (elf);
  close (fd);
  return TRUE;
}

static void
test_files (void)
{
  static const struct { const char *path; gboolean required; } files[] = {
    { "/lib/x86_64-linux-gnu/libc.so.6", TRUE },
    { "/lib64/ld-linux-x86-64.so.2", TRUE },
    { ST_FIXTURE_DIR "/st-fixture", TRUE },
    { ST_PROGS_DIR "/plt-calls", TRUE },
    { ST_PROGS_DIR "/libstcallee.so", TRUE },
    { ST_PROGS_DIR "/dbgframe-prog", TRUE },
    { "/usr/lib/gcc/x86_64-linux-gnu/12/cc1", FALSE },
  };
  Counts n = { 0 };

  elf_version (EV_CURRENT);
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    if (!check_file (files[i].path, TRUE, &n) && files[i].required)
      g_error ("%s: cannot open", files[i].path);
  g_test_message ("%u files: %u FDEs, %u rows, %u addresses compared; "
                  "%u FDEs left to libdw", n.files, n.fdes, n.rows,
                  n.addresses, n.to_libdw);
  /* The test is only worth something if the reader read nearly all.  */
  g_assert_cmpuint (n.rows, >, 1000);
  g_assert_cmpuint (n.to_libdw * 20, <, n.fdes);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/eh-frame/files", test_files);
  return g_test_run ();
}
