/* .eh_frame read directly, with libdw 0.188's semantics (eh-frame.h):
   its tables, CIEs and FDEs here, the CFA programs in cfa-program.c.  */
#include "config.h"

#include <elf.h>
#include <string.h>

#include "unwind/cfa-program.h"
#include "unwind/dwarf-bytes.h"
#include "unwind/eh-frame.h"

typedef struct
{
  StCfaCie cfa;         /* what its programs need */
  gboolean sized;       /* 'z': FDEs carry augmentation data */
  gboolean state_ok;    /* its instructions were understood */
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

/* Parses the CIE at OFFSET into C.  FALSE when not understood.  */
static gboolean
parse_cie (const StEhFrame *f, size_t offset, Cie *c)
{
  const uint8_t *p = f->data + offset, *end;
  uint64_t len, id, version, v;

  memset (c, 0, sizeof *c);
  if (!st_read_fixed (&p, f->data + f->size, 4, &len) || len == 0
      || len >= 0xfffffff0u || len > (uint64_t) (f->data + f->size - p))
    return FALSE;
  end = p + len;
  if (!st_read_fixed (&p, end, 4, &id) || id != 0
      || !st_read_fixed (&p, end, 1, &version)
      || (version != 1 && version != 3))
    return FALSE;
  const char *aug = (const char *) p;
  const uint8_t *nul = memchr (p, 0, end - p);
  if (nul == NULL)
    return FALSE;
  p = nul + 1;
  if (!st_read_uleb (&p, end, &c->cfa.code_align)
      || !st_read_sleb (&p, end, &c->cfa.data_align))
    return FALSE;
  if (version == 1 ? !st_read_fixed (&p, end, 1, &v) : !st_read_uleb (&p, end, &v))
    return FALSE;
  if (v > INT32_MAX)
    return FALSE;
  c->cfa.ra = (int) v;
  c->cfa.fde_encoding = ST_PE_ABSPTR;
  if (aug[0] == 'z')
    {
      uint64_t aug_len;
      const uint8_t *aug_end;
      c->sized = TRUE;
      if (!st_read_uleb (&p, end, &aug_len)
          || aug_len > (uint64_t) (end - p))
        return FALSE;
      aug_end = p + aug_len;
      for (const char *a = aug + 1; *a != '\0'; a++)
        switch (*a)
          {
          case 'R':
            if (!st_read_fixed (&p, aug_end, 1, &v))
              return FALSE;
            c->cfa.fde_encoding = v;
            break;
          case 'L':
            if (!st_read_fixed (&p, aug_end, 1, &v))
              return FALSE;
            break;
          case 'P':
            {
              uint64_t enc, personality;
              if (!st_read_fixed (&p, aug_end, 1, &enc)
                  || !st_read_encoded (&p, aug_end, enc & 0x7f, 0, 0,
                                    &personality))
                return FALSE;
            }
            break;
          case 'S':
            c->cfa.signal = TRUE;
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
  if (!st_read_encoded (&pp, probe + 8, c->cfa.fde_encoding, 0, 0, &dummy)
      || (c->cfa.fde_encoding & 0x0f) == ST_PE_ULEB128
      || (c->cfa.fde_encoding & 0x0f) == ST_PE_SLEB128)
    return FALSE;
  c->state_ok = st_cfa_run_cie (&c->cfa, f->arch, p, end);
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

  if (!st_read_fixed (&p, f->data + f->size, 4, &len) || len == 0
      || len >= 0xfffffff0u || len > (uint64_t) (f->data + f->size - p))
    return NULL;
  e = p + len;
  if (!st_read_fixed (&p, e, 4, &id) || id == 0 || id > offset + 4)
    return NULL;
  const Cie *cie = cie_at (f, offset + 4 - id);
  if (cie == NULL)
    return NULL;
  uint64_t at = f->vaddr + (uint64_t) (p - f->data);
  if (!st_read_encoded (&p, e, cie->cfa.fde_encoding, at, 0, start)
      || !st_read_encoded (&p, e, cie->cfa.fde_encoding & 0x0f, 0, 0,
                           &range))
    return NULL;
  *end = *start + range;
  if (cie->sized)
    {
      uint64_t aug_len;
      if (!st_read_uleb (&p, e, &aug_len) || aug_len > (uint64_t) (e - p))
        return NULL;
      p += aug_len;
    }
  *insn = p;
  *insn_end = e;
  return cie;
}

/* The data of section NAME and its index; NULL when absent (*INDEX 0)
   or without data (NOBITS, as libdw skips it: any other type, also the
   SHT_X86_64_UNWIND that LLVM's tools give .eh_frame, is read).  */
static const Elf_Data *
section_data (Elf *elf, size_t shstrndx, const char *name, uint64_t *vaddr,
              size_t *index)
{
  Elf_Scn *scn = NULL;

  *index = 0;
  while ((scn = elf_nextscn (elf, scn)) != NULL)
    {
      GElf_Shdr shdr;
      const char *n;
      if (gelf_getshdr (scn, &shdr) == NULL
          || (n = elf_strptr (elf, shstrndx, shdr.sh_name)) == NULL
          || strcmp (n, name) != 0)
        continue;
      *index = elf_ndxscn (scn);
      if (shdr.sh_type == SHT_NOBITS)
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
  if (cie->cfa.fde_encoding != (ST_PE_PCREL | ST_PE_SDATA4))
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
  if (!st_read_encoded (&p, hend, h[1], hdr_vaddr + 4, hdr_vaddr, &frame_ptr)
      || frame_ptr != f->vaddr
      || !st_read_encoded (&p, hend, h[2], hdr_vaddr + (p - h), hdr_vaddr,
                        &count)
      || table_enc != (ST_PE_DATAREL | ST_PE_SDATA4)
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
      if (!st_read_fixed (&p, f->data + f->size, 4, &len))
        return FALSE;
      if (len == 0)
        break;          /* the terminator: it must be the end */
      if (len >= 0xfffffff0u || len > (uint64_t) (f->data + f->size - p)
          || !st_read_fixed (&p, f->data + f->size, 4, &id))
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
  /* Room was made for the most FDEs the section can hold (16 bytes
     each); a real one has a fifth of that: 5 MB for libLLVM's 94,000
     FDEs, 1.5 MB kept.  */
  f->fdes = g_renew (Fde, f->fdes, f->n_fdes);
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
  size_t hdr_index, frame_index;
  const Elf_Data *hdr = section_data (elf, shstrndx, ".eh_frame_hdr",
                                      &hdr_vaddr, &hdr_index);
  const Elf_Data *frame = section_data (elf, shstrndx, ".eh_frame",
                                        &f->vaddr, &frame_index);
  if (frame == NULL || frame->d_buf == NULL || frame->d_size >= G_MAXUINT32)
    return FALSE;
  f->data = frame->d_buf;
  f->size = frame->d_size;
  /* libdw takes the search table only from an .eh_frame_hdr that comes
     before .eh_frame in the section headers (it stops at .eh_frame);
     after it, as LLVM's lld places it, libdw reads .eh_frame from the
     start, and so do we.  */
  if (hdr_index != 0 && hdr_index < frame_index)
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

/* Runs FDE INDEX's program: all rows, or the one holding FIND.  */
static gboolean
run_fde (StEhFrame *f, int index, gboolean all, uint64_t find,
         StCfiRowFunc func, void *user)
{
  const Fde *fde = &f->fdes[index];
  uint64_t start, end;
  const uint8_t *insn, *insn_end;
  const Cie *cie = parse_fde (f, fde->offset, &start, &end, &insn,
                              &insn_end);

  if (cie == NULL || !cie->state_ok)
    return FALSE;
  return st_cfa_run_fde (&cie->cfa, insn, insn_end,
                         f->vaddr + (uint64_t) (insn - f->data), start, end,
                         all, find, func, user);
}

gboolean
st_eh_frame_rows (StEhFrame *f, int index, StCfiRowFunc func, void *user)
{
  return run_fde (f, index, TRUE, 0, func, user);
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

  if (!run_fde (f, index, FALSE, addr, one_row, &o) || !o.found)
    return FALSE;
  *start = o.start;
  *end = o.end;
  return TRUE;
}
