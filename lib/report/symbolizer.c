/* Symbol names through a per-file index that gives libdwfl's answer.

   libdwfl (dwfl_module_addrsym, 0.188) considers the symbols at or below
   the address that are named, defined and not SECTION, FILE or TLS.  It
   searches the global part of the table (from first_global on) and, only
   when that gave no sized symbol containing the address, the local part.
   Among the sized symbols containing the address, taken in table order,
   a symbol replaces the one chosen so far when it starts higher or has a
   stronger binding (GLOBAL > WEAK > LOCAL), or when it starts at the same
   address and is smaller with no weaker binding.  Without any, it falls
   back to a sizeless symbol (an assembly label in the address's section,
   not inside another symbol).

   The index answers the sized case: per part, the sized symbols sorted
   by address with the running maximum of their ends, so the symbols
   containing an address are found by a binary search and a short walk
   back, then ranked in table order as libdwfl would.  Without one, the
   answer is no name unless a sizeless symbol could qualify; only then
   (or when a global sizeless symbol starts exactly at the address) is
   the question left to libdwfl itself: hand-written assembly, rare.
   Every answer is memoized per address; a demangled name is made once
   per symbol name of the file.

   ARM's mapping symbols ($x and $d on aarch64, $a, $t and $d on arm,
   also with a ".suffix") mark where code and data start; they name no
   function, and libdwfl 0.188 would answer with them for any address
   after one that no sized symbol covers: they are left out, and an
   answer of libdwfl's that is one becomes no name.  */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/module-cache.h"
#include "report/demangle.h"
#include "report/symbolizer.h"

typedef struct
{
  uint64_t value;         /* ELF address (runtime address - bias) */
  uint64_t end;           /* value + size */
  uint32_t index;         /* in the symbol table: ties go by it */
  uint8_t binding;        /* 3 GLOBAL, 2 WEAK, 1 LOCAL, 0 other */
  const char *name;       /* in the index's string chunk */
} Sym;

/* Whether NAME is an ARM mapping symbol: $a, $d, $t or $x, alone or
   followed by a dot and anything.  */
static gboolean
is_mapping_symbol (const char *name)
{
  return name[0] == '$' && name[1] != '\0' && strchr ("adtx", name[1]) != NULL
         && (name[2] == '\0' || name[2] == '.');
}

/* One part of the table: sized symbols by value, and MAX_END[i], the
   largest end among SYMS[0..i].  */
typedef struct
{
  Sym *syms;
  uint64_t *max_end;
  guint n;
} Part;

typedef struct
{
  Part global;
  Part local;
  uint64_t *sizeless_global;    /* values of sizeless global symbols,
                                   sorted */
  guint n_sizeless_global;
  uint64_t *sizeless;           /* values of all sizeless symbols, sorted */
  guint n_sizeless;
  GStringChunk *names;
  GHashTable *memo;             /* ELF address -> name, or NO_NAME */
  GHashTable *demangled;        /* symbol name -> its demangled form (in
                                   NAMES), or the name itself */
} Index;

struct StSymbolizer
{
  GHashTable *indexes;          /* module identity -> Index* */
  uint64_t indexed;
  uint64_t searched;
  gboolean demangle;
  StJitNames *jit;              /* NULL: no JIT names */
  int32_t pid;                  /* the process named */
  const StAddressSpace *maps;   /* its mappings, or NULL */
};

/* Memoized "no symbol": distinct from NULL, which a lookup returns for
   an address not yet memoized.  */
static const char no_name[] = "";
#define NO_NAME no_name

/* Memos past this size are dropped and started again.  */
#define MEMO_MAX 1000000

static void
index_free (gpointer data)
{
  Index *x = data;

  g_free (x->global.syms);
  g_free (x->global.max_end);
  g_free (x->local.syms);
  g_free (x->local.max_end);
  g_free (x->sizeless_global);
  g_free (x->sizeless);
  g_string_chunk_free (x->names);
  g_hash_table_destroy (x->memo);
  g_hash_table_destroy (x->demangled);
  g_free (x);
}

StSymbolizer *
st_symbolizer_new (void)
{
  StSymbolizer *s = g_new0 (StSymbolizer, 1);

  s->indexes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                      index_free);
  return s;
}

void
st_symbolizer_free (StSymbolizer *s)
{
  if (s == NULL)
    return;
  g_hash_table_destroy (s->indexes);
  g_free (s);
}

void
st_symbolizer_set_demangle (StSymbolizer *s, gboolean demangle)
{
  /* Memos hold the names of one choice.  */
  if (s->demangle != demangle)
    g_hash_table_remove_all (s->indexes);
  s->demangle = demangle;
}

void
st_symbolizer_set_jit_names (StSymbolizer *s, StJitNames *jit)
{
  s->jit = jit;
}

void
st_symbolizer_set_process (StSymbolizer *s, int32_t pid,
                           const StAddressSpace *maps)
{
  s->pid = pid;
  s->maps = maps;
}

void
st_symbolizer_counts (const StSymbolizer *s, uint64_t *indexed,
                      uint64_t *searched)
{
  *indexed = s->indexed;
  *searched = s->searched;
}

static int
binding_value (const GElf_Sym *sym)
{
  switch (GELF_ST_BIND (sym->st_info))
    {
    case STB_GLOBAL: return 3;
    case STB_WEAK: return 2;
    case STB_LOCAL: return 1;
    default: return 0;
    }
}

static int
sym_by_value (const void *a, const void *b)
{
  const Sym *x = a, *y = b;

  if (x->value != y->value)
    return x->value < y->value ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

static int
u64_cmp (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return x < y ? -1 : x > y;
}

static void
part_finish (Part *p, GArray *syms)
{
  p->n = syms->len;
  p->syms = (Sym *) g_array_free (syms, FALSE);
  /* An empty GArray gives NULL, which qsort must not get.  */
  if (p->n > 1)
    qsort (p->syms, p->n, sizeof (Sym), sym_by_value);
  p->max_end = g_new (uint64_t, MAX (p->n, 1));
  for (guint i = 0; i < p->n; i++)
    p->max_end[i] = MAX (p->syms[i].end, i ? p->max_end[i - 1] : 0);
}

/* The index of MOD's symbol table, BIAS its main file's load bias.  */
static Index *
index_build (Dwfl_Module *mod, Dwarf_Addr bias)
{
  Index *x = g_new0 (Index, 1);
  GArray *global = g_array_new (FALSE, FALSE, sizeof (Sym));
  GArray *local = g_array_new (FALSE, FALSE, sizeof (Sym));
  GArray *sizeless_global = g_array_new (FALSE, FALSE, sizeof (uint64_t));
  GArray *sizeless = g_array_new (FALSE, FALSE, sizeof (uint64_t));
  int n = dwfl_module_getsymtab (mod);
  int first_global = dwfl_module_getsymtab_first_global (mod);
  /* libdwfl's parts: globals from first_global (1 when it is 0), locals
     below it.  */
  int global_from = first_global <= 0 ? 1 : first_global;

  x->names = g_string_chunk_new (65536);
  x->memo = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                   NULL);
  x->demangled = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (int i = 1; i < n; i++)
    {
      GElf_Sym sym;
      GElf_Addr value;
      GElf_Word shndx;
      const char *name = dwfl_module_getsym_info (mod, i, &sym, &value,
                                                  &shndx, NULL, NULL);
      int type = GELF_ST_TYPE (sym.st_info);

      if (name == NULL || name[0] == '\0' || sym.st_shndx == SHN_UNDEF
          || type == STT_SECTION || type == STT_FILE || type == STT_TLS
          || is_mapping_symbol (name))
        continue;
      if (sym.st_size == 0)
        {
          uint64_t v = value - bias;
          g_array_append_val (sizeless, v);
          if (i >= global_from)
            g_array_append_val (sizeless_global, v);
          continue;
        }
      Sym s = {
        .value = value - bias,
        .end = value - bias + sym.st_size,
        .index = (uint32_t) i,
        .binding = (uint8_t) binding_value (&sym),
        .name = g_string_chunk_insert_const (x->names, name),
      };
      g_array_append_val (i >= global_from ? global : local, s);
    }
  part_finish (&x->global, global);
  part_finish (&x->local, local);
  x->n_sizeless_global = sizeless_global->len;
  x->sizeless_global = (uint64_t *) g_array_free (sizeless_global, FALSE);
  if (x->n_sizeless_global > 1)
    qsort (x->sizeless_global, x->n_sizeless_global, sizeof (uint64_t),
           u64_cmp);
  x->n_sizeless = sizeless->len;
  x->sizeless = (uint64_t *) g_array_free (sizeless, FALSE);
  if (x->n_sizeless > 1)
    qsort (x->sizeless, x->n_sizeless, sizeof (uint64_t), u64_cmp);
  return x;
}

static int
candidate_by_index (const void *a, const void *b)
{
  const Sym *x = *(const Sym *const *) a, *y = *(const Sym *const *) b;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* How many symbols of P start at or below ADDR.  */
static guint
part_count_at_most (const Part *p, uint64_t addr)
{
  guint lo = 0, hi = p->n;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (p->syms[mid].value <= addr)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* The largest end of the symbols of P starting at or below ADDR (0 when
   none does).  */
static uint64_t
part_max_end (const Part *p, uint64_t addr)
{
  guint n = part_count_at_most (p, addr);
  return n > 0 ? p->max_end[n - 1] : 0;
}

/* libdwfl's choice among the sized symbols of P containing ADDR, or
   NULL when none does.  */
static const Sym *
part_lookup (const Part *p, uint64_t addr)
{
  guint lo = part_count_at_most (p, addr);
  GPtrArray *found = NULL;
  const Sym *only = NULL;
  for (guint j = lo; j-- > 0 && p->max_end[j] > addr;)
    if (p->syms[j].end > addr)
      {
        if (only == NULL && found == NULL)
          only = &p->syms[j];
        else
          {
            if (found == NULL)
              {
                found = g_ptr_array_new ();
                g_ptr_array_add (found, (gpointer) only);
              }
            g_ptr_array_add (found, &p->syms[j]);
          }
      }
  if (found == NULL)
    return only;

  /* Several (nested or aliased symbols): libdwfl's ranking, in table
     order.  */
  g_ptr_array_sort (found, candidate_by_index);
  const Sym *best = NULL;
  for (guint k = 0; k < found->len; k++)
    {
      const Sym *s = found->pdata[k];
      if (best == NULL || best->value < s->value || best->binding < s->binding)
        best = s;
      else if (best->value == s->value
               && ((best->end - best->value > s->end - s->value
                    && best->binding <= s->binding)
                   || (best->end - best->value >= s->end - s->value
                       && best->binding < s->binding)))
        best = s;
    }
  g_ptr_array_free (found, TRUE);
  return best;
}

static gboolean
has_value (const uint64_t *values, guint n, uint64_t v)
{
  return n > 0 && bsearch (&v, values, n, sizeof *values, u64_cmp) != NULL;
}

/* Whether libdwfl could answer ADDR with a sizeless symbol, when no sized
   one contains it (both parts were searched then).  Its candidate must
   start at or above every symbol end below ADDR, sizeless starts
   included: so the highest sizeless start at or below ADDR must reach
   the largest end of the sized symbols there.  */
static gboolean
sizeless_possible (const Index *x, uint64_t addr)
{
  guint lo = 0, hi = x->n_sizeless;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (x->sizeless[mid] <= addr)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return FALSE;
  uint64_t ends = MAX (part_max_end (&x->global, addr),
                       part_max_end (&x->local, addr));
  return x->sizeless[lo - 1] >= ends;
}

/* The demangled form of NAME (a string of X's chunk), made once per
   name.  */
static const char *
demangled (Index *x, const char *name)
{
  const char *d = g_hash_table_lookup (x->demangled, name);

  if (d != NULL)
    return d;
  char *made = st_demangle (name);
  d = made != NULL ? g_string_chunk_insert_const (x->names, made) : name;
  free (made);
  g_hash_table_insert (x->demangled, (gpointer) name, (gpointer) d);
  return d;
}

/* The name of ELF address ADDR (runtime address RUNTIME) in MOD, or
   NULL; from the index when it can tell, else from libdwfl.  */
static const char *
index_lookup (StSymbolizer *s, Index *x, Dwfl_Module *mod, uint64_t addr,
              uint64_t runtime)
{
  const char *name = g_hash_table_lookup (x->memo, &addr);

  if (name != NULL)
    return name == NO_NAME ? NULL : name;

  /* A global sizeless symbol right at ADDR keeps libdwfl from the
     local part, and may be its answer: left to it.  */
  const Sym *sym = part_lookup (&x->global, addr);
  gboolean ask = FALSE;
  if (sym == NULL)
    {
      ask = has_value (x->sizeless_global, x->n_sizeless_global, addr);
      if (!ask)
        sym = part_lookup (&x->local, addr);
      if (sym == NULL && !ask)
        ask = sizeless_possible (x, addr);
    }
  if (sym != NULL)
    {
      name = sym->name;
      s->indexed++;
    }
  else if (!ask)
    {
      name = NO_NAME;
      s->indexed++;
    }
  else
    {
      /* Sizeless symbols: libdwfl's own search, once per address.  */
      const char *found = dwfl_module_addrname (mod, runtime);
      name = found != NULL && !is_mapping_symbol (found)
             ? g_string_chunk_insert_const (x->names, found) : NO_NAME;
      s->searched++;
    }
  if (name != NO_NAME && s->demangle)
    name = demangled (x, name);
  if (g_hash_table_size (x->memo) >= MEMO_MAX)
    g_hash_table_remove_all (x->memo);
  g_hash_table_insert (x->memo, g_memdup2 (&addr, sizeof addr),
                       (gpointer) name);
  return name == NO_NAME ? NULL : name;
}

/* The name of RUNTIME in MOD, through the index of its file.  */
static const char *
lookup_name (StSymbolizer *s, Dwfl_Module *mod, uint64_t runtime,
             Dwarf_Addr bias)
{
  void **userdata = NULL;

  dwfl_module_info (mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
  const StModule *m = userdata != NULL ? *userdata : NULL;
  if (m == NULL || st_module_identity (m) == NULL)
    {
      /* (Not demangled: no index to keep the name in.  Modules the
         unwinders report all have one.)  */
      s->searched++;
      const char *found = dwfl_module_addrname (mod, runtime);
      return found != NULL && !is_mapping_symbol (found) ? found : NULL;
    }
  Index *x = g_hash_table_lookup (s->indexes, st_module_identity (m));
  if (x == NULL)
    {
      x = index_build (mod, bias);
      g_hash_table_insert (s->indexes, g_strdup (st_module_identity (m)), x);
    }
  return index_lookup (s, x, mod, runtime - bias, runtime);
}

/* ADDR in no module: JIT code, named by the JIT's files, or anonymous
   code.  */
static void
symbolize_outside_modules (StSymbolizer *s, uint64_t addr, GString *out)
{
  const StMap *map = s->maps != NULL ? st_address_space_find (s->maps, addr)
                                     : NULL;
  const char *name = s->jit != NULL ? st_jit_names_lookup (s->jit, s->pid,
                                                            addr)
                                    : NULL;

  if (name != NULL)
    g_string_append (out, name);
  else if (map != NULL && st_map_is_anonymous (map) && st_map_maybe_code (map))
    g_string_append (out, "[JIT]");
  else
    g_string_append (out, "[unknown]");
}

void
st_symbolize (StSymbolizer *s, Dwfl *dwfl, uint64_t addr, GString *out)
{
  Dwfl_Module *mod = dwfl != NULL ? dwfl_addrmodule (dwfl, addr) : NULL;

  if (mod == NULL)
    {
      symbolize_outside_modules (s, addr, out);
      return;
    }
  Dwarf_Addr bias = 0;
  dwfl_module_getelf (mod, &bias);
  const char *name = lookup_name (s, mod, addr, bias);
  if (name != NULL)
    {
      g_string_append (out, name);
      return;
    }

  const char *modname = dwfl_module_info (mod, NULL, NULL, NULL, NULL, NULL,
                                          NULL, NULL);
  const char *slash = modname ? strrchr (modname, '/') : NULL;
  g_string_append_printf (out, "[%s+0x%" G_GINT64_MODIFIER "x]",
                          slash ? slash + 1 : (modname ? modname : "?"),
                          (guint64) (addr - bias));
}
