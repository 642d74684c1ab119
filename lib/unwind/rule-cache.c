/* Rule cache: rules deduplicated in one array; the .eh_frame rows read
   so far by our own reader (eh-frame.h), a small sorted array per FDE,
   found through the FDE table; other address ranges (what the reader
   leaves to libdw, .debug_frame, no CFI) in a balanced tree, filled from
   libdw on a miss; and in front of them a direct-mapped table of
   recently used ranges, which is what nearly every lookup hits: return
   addresses repeat, and so do hot leaf PCs.  */
#include "config.h"

#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/dwfl-offline.h"
#include "unwind/eh-frame.h"
#include "unwind/fast-arch.h"
#include "unwind/find-debuginfo.h"
#include "unwind/leaf-code.h"
#include "unwind/rule-cache.h"
#include "unwind/stack-roots.h"
#include "util/byte-budget.h"
#include "util/zero-filled.h"

#define HOT_MIN_BITS 8
#define HOT_MAX_BITS 16
/* The most a cooled module's tables start with when used again.  */
#define REWARM_BITS 12

typedef struct
{
  uint64_t start;
  uint64_t end;           /* exclusive, modulo 2^64: the range of the
                             last address ends at 0 */
} Range;

/* A row of an FDE, as the reader gave it.  */
typedef struct
{
  uint64_t start;
  uint32_t len;
  uint32_t rule;          /* index */
} Row;

/* The rows of one FDE read so far, in address order.  Only those asked
   for: an FDE has some 10 rows, a profile needs 2 of them.  */
typedef struct
{
  Row *rows;
  uint32_t n;
  uint32_t size : 31;     /* of ROWS */
  uint32_t to_libdw : 1;  /* the reader failed on it once: libdw's */
} FdeRows;

struct StRuleCache
{
  struct StRuleCachePublic pub;   /* first: the inline lookup reads it */
  guint hot_bits;
  /* Everything below that is read from the CFI or the code (rows,
     rules, ranges, memos, the reader, the hot and return tables at their
     full size) is charged to the budget (st_rule_cache_prepare's
     USER_DATA); cooled, it is emptied down to the small tables of a
     module not used yet, and filled again when it is.  */
  StByteBudgetEntry budget;
  gboolean cold;          /* small tables, until the next slow lookup */
  guint warm_bits;        /* of the hot table once in use */
  StModule *module;
  const StFastArch *arch;

  /* A Dwfl of this module alone (st_dwfl_of_module): the same CFI and
     symbols as the libdwfl engine's.  */
  Dwfl *dwfl;
  Dwfl_Module *dmod;
  Dwarf_CFI *eh;
  Dwarf_Addr eh_bias;
  Dwarf_CFI *dwarf;
  Dwarf_Addr dwarf_bias;
  gboolean dwarf_tried;
  gboolean dwfl_ended;    /* cooled: DWFL, DMOD and EH made again by warm */
  StEhFrame *reader;      /* .eh_frame read directly, when it can be */
  gboolean reader_tried;
  FdeRows *fdes;          /* by FDE index */

  GArray *rules;          /* StUnwindRule */
  GArray *lean;           /* StLeanRule, one per rule */
  GHashTable *rule_ids;   /* StUnwindRule bytes -> index + 1 */
  GTree *ranges;          /* Range* -> index + 1 */
  guint misses;           /* hot table misses since its last resize */
  GHashTable *entry_memo; /* address -> at entry point + 1 */
  GHashTable *leaf_memo;  /* address -> LeafMemo */
  StReturnCheck *returns; /* return addresses checked, by ELF address of
                             the call's last byte */
  size_t returns_bytes;   /* its size, as accounted */
  gboolean entry_known;   /* ENTRY and ENTRY_WINDOW computed */
  uint64_t entry;         /* e_entry + bias; 0: none */
  uint64_t bias;          /* of the private Dwfl's module (0) */
  uint64_t entry_window;  /* answers outside [ENTRY, ENTRY + this) are
                             FALSE; 0: no such shortcut */
};

/* DELTA more bytes held, counted for the module cache and the budget.  */
static void
account (StRuleCache *c, gssize delta)
{
  st_module_account (c->module, delta);
  st_byte_budget_charge (&c->budget, delta);
}

static guint
rule_hash (gconstpointer key)
{
  /* The rule's bytes, a word at a time (the struct is all 4-byte
     fields and zeroed padding).  */
  const uint8_t *p = key;
  guint h = 5381;

  G_STATIC_ASSERT (sizeof (StUnwindRule) % 4 == 0);
  for (size_t i = 0; i < sizeof (StUnwindRule); i += 4)
    {
      uint32_t w;
      memcpy (&w, p + i, 4);
      h = (h ^ w) * 0x01000193u;
    }
  return h;
}

static gboolean
rule_equal (gconstpointer a, gconstpointer b)
{
  return memcmp (a, b, sizeof (StUnwindRule)) == 0;
}

static gint
range_cmp (gconstpointer a, gconstpointer b, gpointer unused)
{
  const Range *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* For g_tree_search: negative sends the search to smaller keys.  */
static gint
range_contains (gconstpointer key, gconstpointer addrp)
{
  const Range *r = key;
  uint64_t addr = *(const uint64_t *) addrp;

  if (addr < r->start)
    return -1;
  return addr - r->start >= r->end - r->start ? 1 : 0;
}

static void
rule_cache_free (gpointer data)
{
  StRuleCache *c = data;

  if (c == NULL)
    return;
  st_byte_budget_entry_remove (&c->budget);
  if (c->reader != NULL)
    for (guint i = 0; i < st_eh_frame_n_fdes (c->reader); i++)
      g_free (c->fdes[i].rows);
  g_free (c->fdes);
  st_eh_frame_free (c->reader);
  if (c->dwfl != NULL)
    dwfl_end (c->dwfl);
  g_free (c->pub.hot);
  g_array_free (c->rules, TRUE);
  g_array_free (c->lean, TRUE);
  g_hash_table_destroy (c->rule_ids);
  g_tree_destroy (c->ranges);
  g_hash_table_destroy (c->entry_memo);
  g_hash_table_destroy (c->leaf_memo);
  st_return_check_free (c->returns);
  g_free (c);
}

/* A new, empty hot table of 2^BITS slots (it is only a cache).  */
static void
hot_resize (StRuleCache *c, guint bits)
{
  gssize old = c->pub.hot != NULL ? (gssize) sizeof (StRuleHot) << c->hot_bits
                                  : 0;

  g_free (c->pub.hot);
  c->hot_bits = bits;
  c->pub.hot = st_zero_filled_new (sizeof (StRuleHot) << bits);
  c->pub.hot_shift = 64 - bits;
  account (c, ((gssize) sizeof (StRuleHot) << bits) - old);
}

/* The module is in use: its tables at their full size.  */
static void
warm (StRuleCache *c)
{
  c->cold = FALSE;
  if (c->dwfl_ended)
    {
      c->dwfl_ended = FALSE;
      c->dwfl = st_dwfl_of_module (c->module, &c->dmod);
      if (c->dmod != NULL)
        c->eh = dwfl_module_eh_cfi (c->dmod, &c->eh_bias);
    }
  if (c->hot_bits < c->warm_bits)
    hot_resize (c, c->warm_bits);
}

/* The budget's cooling: everything read from the CFI and the code is
   forgotten (it is read again when needed); the reader's FDE table too.
   Only between walks: rule indices and pointers die here.  */
static void
cool (StByteBudgetEntry *entry)
{
  StRuleCache *c = (StRuleCache *) ((char *) entry
                                    - G_STRUCT_OFFSET (StRuleCache, budget));

  if (c->reader != NULL)
    for (guint i = 0; i < st_eh_frame_n_fdes (c->reader); i++)
      g_free (c->fdes[i].rows);
  g_clear_pointer (&c->fdes, g_free);
  g_clear_pointer (&c->reader, st_eh_frame_free);
  c->reader_tried = FALSE;
  g_tree_remove_all (c->ranges);
  g_array_free (c->rules, TRUE);
  g_array_free (c->lean, TRUE);
  c->rules = g_array_new (FALSE, FALSE, sizeof (StUnwindRule));
  c->lean = g_array_new (FALSE, FALSE, sizeof (StLeanRule));
  c->pub.rules = NULL;
  c->pub.lean = NULL;
  g_hash_table_remove_all (c->rule_ids);
  g_hash_table_remove_all (c->entry_memo);
  g_hash_table_remove_all (c->leaf_memo);
  g_clear_pointer (&c->pub.hot, g_free);
  st_return_check_clear (c->returns);
  c->misses = 0;
  /* libdw's own caches (every FDE and CIE it parsed, the symbol table)
     live in the private Dwfl: ended, made again when the module is used
     again -- unless its .debug_frame is in use (found by a search, maybe
     a download, not to be made again).  */
  if (c->dwfl != NULL && c->dwarf == NULL)
    {
      dwfl_end (c->dwfl);
      c->dwfl = NULL;
      c->dmod = NULL;
      c->eh = NULL;
      c->dwfl_ended = TRUE;
    }
  account (c, -(gssize) c->budget.bytes);
  hot_resize (c, HOT_MIN_BITS);
  c->returns_bytes = st_return_check_bytes (c->returns);
  account (c, (gssize) c->returns_bytes);
  c->cold = TRUE;
  /* Used again, it starts small and grows with its misses: a big
     program's full-size tables (1.5 MiB) warmed and cooled over and
     over cost more than the misses (40,000 coolings in 4 minutes of a
     live soak).  */
  c->warm_bits = MIN (c->warm_bits, REWARM_BITS);
}

void
st_rule_cache_prepare (StModule *m, void *user_data)
{
  StByteBudget *budget = user_data;
  const StFastArch *arch = st_fast_arch (m->machine);

  if (m->tables != NULL)
    return;
  if (arch == NULL)
    {
      /* For the libdwfl engine, which unwinds it.  */
      st_dwfl_offline_prepare (m, NULL);
      return;
    }

  st_stack_roots_find (m);
  StRuleCache *c = g_new0 (StRuleCache, 1);
  c->module = m;
  c->arch = arch;
  c->rules = g_array_new (FALSE, FALSE, sizeof (StUnwindRule));
  c->lean = g_array_new (FALSE, FALSE, sizeof (StLeanRule));
  c->rule_ids = g_hash_table_new_full (rule_hash, rule_equal, g_free, NULL);
  c->ranges = g_tree_new_full (range_cmp, NULL, g_free, NULL);
  c->entry_memo = g_hash_table_new_full (g_int64_hash, g_int64_equal,
                                         g_free, NULL);
  c->leaf_memo = g_hash_table_new_full (g_int64_hash, g_int64_equal,
                                        g_free, NULL);
  m->tables = c;
  m->tables_free = rule_cache_free;
  st_module_account (m, sizeof *c);
  st_byte_budget_entry_init (&c->budget, budget, cool);
  /* A slot per 256 bytes of code, within bounds: a big program's table
     starts big, rather than growing (and emptying) on the hot path --
     from its first lookup: until then, small ones (most modules a
     process maps are never sampled).  */
  guint bits = HOT_MIN_BITS;
  while (bits < HOT_MAX_BITS
         && ((uint64_t) 256 << bits) < m->high_vaddr - m->low_vaddr)
    bits++;
  c->warm_bits = bits;
  hot_resize (c, HOT_MIN_BITS);
  /* The return addresses checked: a table that grows as they come.  */
  c->returns = st_return_check_new ();
  c->returns_bytes = st_return_check_bytes (c->returns);
  account (c, (gssize) c->returns_bytes);
  c->cold = TRUE;

  c->dwfl = st_dwfl_of_module (m, &c->dmod);
  /* .eh_frame now (cheap: its header); .debug_frame only when .eh_frame
     leaves an address uncovered, since it may mean reading a separate
     debug file -- unless the module's CFI may be only there (stripped
     code built without unwind tables): then now, so that the search
     (and a debuginfod download) happens while the module is prepared,
     off the hot path.  */
  if (c->dmod != NULL)
    c->eh = dwfl_module_eh_cfi (c->dmod, &c->eh_bias);
  if (st_find_debuginfo_prepare (m) && c->dmod != NULL)
    {
      c->dwarf_tried = TRUE;
      c->dwarf = dwfl_module_dwarf_cfi (c->dmod, &c->dwarf_bias);
    }
}

static guint
intern_rule (StRuleCache *c, const StUnwindRule *rule)
{
  guint id = GPOINTER_TO_UINT (g_hash_table_lookup (c->rule_ids, rule));

  if (id != 0)
    return id - 1;
  StLeanRule lean;
  st_lean_rule_from_rule (rule, c->arch, &lean);
  g_array_append_val (c->rules, *rule);
  g_array_append_val (c->lean, lean);
  c->pub.rules = (StUnwindRule *) c->rules->data;
  c->pub.lean = (StLeanRule *) c->lean->data;
  id = c->rules->len;
  g_hash_table_insert (c->rule_ids, g_memdup2 (rule, sizeof *rule),
                       GUINT_TO_POINTER (id));
  account (c, 2 * sizeof *rule + sizeof lean + 32);
  return id - 1;
}

/* libdwfl's order: .eh_frame, then .debug_frame, else no CFI.  A
   .debug_frame row (or no row) is kept for ADDR alone: .eh_frame might
   cover a neighbouring address, and it comes first there.  */
static guint
fill (StRuleCache *c, uint64_t addr, Range *range)
{
  Dwarf_Frame *frame;
  StUnwindRule rule;
  Dwarf_Addr start, end;

  range->start = addr;
  range->end = addr + 1;
  /* The reader's FDE of ADDR (-1: none, or no reader).  An address in
     no FDE of the reader's is in none of libdw's either (test-eh-frame
     checks it): not asked, since without a search table libdw would
     read and keep every FDE of the module looking for it (11 MB for
     libLLVM, again after each cooling).  */
  uint64_t fde_start = 0, fde_end = 0;
  int fde = c->reader != NULL
            ? st_eh_frame_find (c->reader, addr - c->eh_bias, &fde_start,
                                &fde_end)
            : -1;
  gboolean in_no_fde = c->reader != NULL && fde < 0;
  if (c->eh != NULL && !in_no_fde
      && dwarf_cfi_addrframe (c->eh, addr - c->eh_bias, &frame) == 0)
    {
      st_cfi_rule_from_frame (frame, c->arch->n_regs, c->arch->ra, &rule,
                              &start, &end);
      free (frame);
      if (c->arch->sp_is_cfa)
        st_cfi_rule_default_sp (&rule, c->arch->sp);
      /* The row ends at END; its start as libdw reports it is not to be
         trusted (after DW_CFA_restore_state it is the remembered row's),
         so the range starts at ADDR.  (Checking the reported start with
         a second query does not pay: on cc1, misses are new rows far
         more often than lower addresses of a known one.)  */
      if (addr < end + c->eh_bias)
        range->end = end + c->eh_bias;
      /* After an advance beyond the FDE's end, END is past it too: the
         addresses there are not the FDE's.  The reader knows where it
         ends.  */
      if (fde >= 0)
        range->end = MIN (range->end, fde_end + c->eh_bias);
      return intern_rule (c, &rule);
    }
  if (!c->dwarf_tried && c->dmod != NULL)
    {
      c->dwarf_tried = TRUE;
      if (st_find_debuginfo_may_have_debug_frame (c->dmod))
        c->dwarf = dwfl_module_dwarf_cfi (c->dmod, &c->dwarf_bias);
    }
  if (c->dwarf != NULL
      && dwarf_cfi_addrframe (c->dwarf, addr - c->dwarf_bias, &frame) == 0)
    {
      st_cfi_rule_from_frame (frame, c->arch->n_regs, c->arch->ra, &rule,
                              &start, &end);
      free (frame);
      if (c->arch->sp_is_cfa)
        st_cfi_rule_default_sp (&rule, c->arch->sp);
      return intern_rule (c, &rule);
    }
  memset (&rule, 0, sizeof rule);
  rule.kind = ST_RULE_NO_CFI;
  return intern_rule (c, &rule);
}

/* The reader, when libdw's .eh_frame is the ELF's own section data
   and the reader understands the module.  */
static void
open_reader (StRuleCache *c)
{
  Dwarf_Addr bias;
  Elf *elf;

  c->reader_tried = TRUE;
  if (c->eh == NULL
      || (elf = dwfl_module_getelf (c->dmod, &bias)) == NULL
      || bias != c->eh_bias)
    return;
  c->reader = st_eh_frame_new (elf, c->arch);
  if (c->reader == NULL)
    return;
  guint n = st_eh_frame_n_fdes (c->reader);
  c->fdes = st_zero_filled_new (n * sizeof (FdeRows));
  account (c, st_eh_frame_size (c->reader) + n * sizeof (FdeRows));
}

/* The row of ADDR read by the reader (now, if not yet), or NULL when it
   is libdw's.  */
static const Row *
reader_row (StRuleCache *c, uint64_t addr)
{
  uint64_t start, end;

  if (!c->reader_tried)
    open_reader (c);
  if (c->reader == NULL)
    return NULL;
  int index = st_eh_frame_find (c->reader, addr - c->eh_bias, &start,
                                &end);
  if (index < 0)
    return NULL;

  /* The first row starting after ADDR.  */
  FdeRows *fr = &c->fdes[index];
  guint lo = 0, hi = fr->n;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (fr->rows[mid].start <= addr)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo > 0 && addr - fr->rows[lo - 1].start < fr->rows[lo - 1].len)
    return &fr->rows[lo - 1];
  if (fr->to_libdw)
    return NULL;

  StCfiRow crow;
  StUnwindRule rule;
  if (!st_eh_frame_row (c->reader, index, addr - c->eh_bias, &start, &end,
                        &crow))
    {
      fr->to_libdw = TRUE;
      return NULL;
    }
  st_cfi_rule_from_row (&crow, c->arch->n_regs, c->arch->ra, &rule);
  if (c->arch->sp_is_cfa)
    st_cfi_rule_default_sp (&rule, c->arch->sp);
  if (fr->n == fr->size)
    {
      fr->size = fr->size == 0 ? 2 : 2 * fr->size;
      fr->rows = g_renew (Row, fr->rows, fr->size);
      account (c, (fr->size - fr->n) * sizeof (Row));
    }
  memmove (&fr->rows[lo + 1], &fr->rows[lo], (fr->n - lo) * sizeof (Row));
  fr->rows[lo] = (Row) { start + c->eh_bias, end - start,
                         intern_rule (c, &rule) };
  fr->n++;
  return &fr->rows[lo];
}

StRuleHot *
st_rule_cache_fill_hot (StRuleCache *c, uint64_t addr)
{
  st_byte_budget_touch (&c->budget);
  if (c->cold)
    warm (c);

  const Row *row = reader_row (c, addr);
  uint64_t start, len;
  guint id;

  if (row != NULL)
    {
      start = row->start;
      len = row->len;
      id = row->rule;
    }
  else
    {
      GTreeNode *node = g_tree_search_node (c->ranges, range_contains,
                                            &addr);
      const Range *range;
      if (node != NULL)
        {
          range = g_tree_node_key (node);
          id = GPOINTER_TO_UINT (g_tree_node_value (node)) - 1;
        }
      else
        {
          Range *r = g_new (Range, 1);
          id = fill (c, addr, r);
          g_tree_insert (c->ranges, r, GUINT_TO_POINTER (id + 1));
          /* (And about what libdw keeps of the FDE it parsed.)  */
          account (c, sizeof *r + 48 + 64);
          range = r;
        }
      start = range->start;
      len = range->end - range->start;
    }
  /* Misses by the thousand for a small table: the module's hot addresses
     do not fit, make it bigger.  */
  if (++c->misses > (1u << c->hot_bits) && c->hot_bits < HOT_MAX_BITS)
    {
      hot_resize (c, c->hot_bits + 2);
      c->misses = 0;
    }
  /* A range longer than a slot holds: the part around ADDR.  */
  if (len > ST_RULE_HOT_MAX_LEN)
    {
      uint64_t from = addr - start > ST_RULE_HOT_MAX_LEN / 2
                      ? addr - ST_RULE_HOT_MAX_LEN / 2 : start;
      len = MIN (len - (from - start), (uint64_t) ST_RULE_HOT_MAX_LEN);
      start = from;
    }
  StRuleHot *h = st_rule_cache_hot_slot (&c->pub, addr);
  h->start = start;
  h->len = (uint16_t) len;
  h->rule = id;
  h->ret = (uint16_t) (start + len);
  return h;
}

uint32_t
st_rule_cache_lookup_slow (StRuleCache *c, uint64_t addr)
{
  return st_rule_cache_fill_hot (c, addr)->rule;
}

gboolean
st_rule_cache_follows_call (StRuleCache *c, StRuleHot *h, uint64_t addr,
                            const StFastArch *arch, StProcessModules *pm,
                            uint64_t ra)
{
  gboolean ok = st_return_check_keyed (c->returns, addr, arch, pm, ra);
  size_t bytes = st_return_check_bytes (c->returns);

  if (bytes != c->returns_bytes)
    {
      account (c, (gssize) bytes - (gssize) c->returns_bytes);
      c->returns_bytes = bytes;
    }
  if (ok && h != NULL)
    h->ret = (uint16_t) addr;
  return ok;
}

/* The symbols find_entry_window looks for, read straight from the ELF
   table libdwfl's N symbols are (dwfl_module_getsym_info costs some 270
   instructions a symbol: 10 million for cc1's 39,000).  Recognised only
   when libdwfl's symbols are those of the module's own x86_64 ET_EXEC
   or ET_DYN file, or of its separate debug file at the same bias (which
   libdwfl loads once a symbol is looked up, e.g. a function's start for
   leaf-code.h), a .symtab or .dynsym of exactly N entries (no
   MiniDebugInfo); FALSE otherwise, and the caller
   asks libdwfl symbol by symbol.  A symbol counts as at ENTRY (e_entry
   plus BIAS) by its value with or without the bias, a superset of
   libdwfl's answer: the window can only come out larger, or absent,
   which costs lookups, never a wrong answer.  *SIZELESS: one of them
   has no size (no window).  */
static gboolean
scan_entry_symbols (StRuleCache *c, Elf *elf, const GElf_Ehdr *ehdr,
                    Dwarf_Addr bias, int n, uint64_t *window,
                    gboolean *sizeless)
{
  GElf_Sym sym;
  GElf_Addr value;
  Elf *symelf = NULL;
  Dwarf_Addr symbias = 0;

  if (n < 2 || ehdr->e_ident[EI_CLASS] != ELFCLASS64
      || (ehdr->e_type != ET_EXEC && ehdr->e_type != ET_DYN)
      || dwfl_module_getsym_info (c->dmod, 1, &sym, &value, NULL, &symelf,
                                  &symbias) == NULL
      || symelf == NULL || (symelf != elf && symbias != bias))
    return FALSE;

  const Elf64_Sym *syms = NULL;
  for (int pass = 0; pass < 2 && syms == NULL; pass++)
    {
      Elf_Scn *scn = NULL;
      while ((scn = elf_nextscn (symelf, scn)) != NULL)
        {
          GElf_Shdr shdr;
          Elf_Data *data;
          if (gelf_getshdr (scn, &shdr) == NULL
              || shdr.sh_type != (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM)
              || shdr.sh_entsize != sizeof (Elf64_Sym)
              || shdr.sh_size / sizeof (Elf64_Sym) != (uint64_t) n
              || (data = elf_getdata (scn, NULL)) == NULL
              || data->d_size < (size_t) n * sizeof (Elf64_Sym))
            continue;
          syms = data->d_buf;
          break;
        }
    }
  if (syms == NULL)
    return FALSE;

  uint64_t adjusted = ehdr->e_entry, raw = ehdr->e_entry + bias;
  *window = 64;
  *sizeless = FALSE;
  for (int i = 1; i < n; i++)
    if (syms[i].st_value == adjusted || syms[i].st_value == raw)
      {
        if (syms[i].st_size == 0)
          *sizeless = TRUE;
        *window = MAX (*window, syms[i].st_size);
      }
  return TRUE;
}

/* libdwfl's answer (the libdwfl engine's at_entry_point) is a symbol
   lookup, a linear search in big symbol tables: too slow for every
   truncated walk.  It can only be TRUE for an address in a symbol that
   starts at the entry point, or within 64 bytes of it when no symbol
   covers it; so when every symbol at the entry point has a size (no
   sizeless one, which libdwfl could pick for any address after it), the
   answer is FALSE outside [entry, entry + max (largest size, 64)), and
   only addresses inside need the lookup (memoized).  */
static void
find_entry_window (StRuleCache *c)
{
  Dwarf_Addr bias;
  Elf *elf = c->dmod != NULL ? dwfl_module_getelf (c->dmod, &bias) : NULL;
  GElf_Ehdr ehdr;

  c->entry_known = TRUE;
  if (elf == NULL || gelf_getehdr (elf, &ehdr) == NULL || ehdr.e_entry == 0)
    return;
  c->bias = bias;
  c->entry = ehdr.e_entry + bias;

  uint64_t window = 64;
  gboolean sizeless;
  int n = dwfl_module_getsymtab (c->dmod);
  if (scan_entry_symbols (c, elf, &ehdr, bias, n, &window, &sizeless))
    {
      if (!sizeless)
        c->entry_window = window;
      return;
    }
  for (int i = 1; i < n; i++)
    {
      GElf_Sym sym;
      GElf_Addr value;
      if (dwfl_module_getsym_info (c->dmod, i, &sym, &value, NULL, NULL,
                                   NULL) == NULL
          || value != c->entry)
        continue;
      if (sym.st_size == 0)
        return;         /* no shortcut */
      window = MAX (window, sym.st_size);
    }
  c->entry_window = window;
}

gboolean
st_rule_cache_at_entry_point (StRuleCache *c, uint64_t addr)
{
  if (c->cold)
    warm (c);
  if (!c->entry_known)
    find_entry_window (c);

  uint64_t pc = addr + c->bias;
  if (c->entry == 0 || pc < c->entry
      || (c->entry_window != 0 && pc - c->entry >= c->entry_window))
    return FALSE;

  gpointer memo = g_hash_table_lookup (c->entry_memo, &addr);
  if (memo != NULL)
    return GPOINTER_TO_UINT (memo) - 1;

  gboolean at;
  GElf_Sym sym;
  GElf_Off off;
  if (dwfl_module_addrinfo (c->dmod, pc, &off, &sym, NULL, NULL, NULL)
      != NULL)
    at = pc - off == c->entry;
  else
    at = pc >= c->entry && pc - c->entry < 64;
  uint64_t *key = g_new (uint64_t, 1);
  *key = addr;
  g_hash_table_insert (c->entry_memo, key, GUINT_TO_POINTER (at + 1));
  st_byte_budget_touch (&c->budget);
  account (c, 48);
  return at;
}

/* The memo of st_rule_cache_leaf_rule: the key first (g_free frees it
   all).  */
typedef struct
{
  uint64_t addr;
  gboolean found;
  StLeafRule rule;
} LeafMemo;

gboolean
st_rule_cache_leaf_rule (StRuleCache *c, const StProcessModule *m,
                         uint64_t pc, StLeafRule *rule)
{
  uint64_t addr = pc - m->bias;
  if (c->cold)
    warm (c);
  LeafMemo *memo = g_hash_table_lookup (c->leaf_memo, &addr);

  if (memo == NULL)
    {
      /* The private Dwfl has the module at its ELF addresses + BIAS.  */
      Dwarf_Addr bias = 0;
      uint64_t start = 0;
      gboolean start_known
        = c->dmod != NULL && dwfl_module_getelf (c->dmod, &bias) != NULL
          && st_function_start (c->dmod, addr + bias, &start);
      memo = g_new0 (LeafMemo, 1);
      memo->addr = addr;
      memo->found = st_leaf_code_rule (c->arch, m, pc, start_known,
                                       start - bias + m->bias,
                                       &memo->rule);
      g_hash_table_insert (c->leaf_memo, &memo->addr, memo);
      st_byte_budget_touch (&c->budget);
      account (c, sizeof *memo + 32);
    }
  *rule = memo->rule;
  return memo->found;
}
