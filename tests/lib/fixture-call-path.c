#include "config.h"

#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "fixture-call-path.h"
#include "format/reader.h"

typedef struct
{
  uint64_t start, end;
  char *name;
} FunctionSymbol;

struct FixtureSymbols
{
  GArray *functions;        /* FunctionSymbol */
};

FixtureSymbols *
fixture_symbols_load (const char *path)
{
  FixtureSymbols *s = g_new0 (FixtureSymbols, 1);
  int fd = open (path, O_RDONLY | O_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  s->functions = g_array_new (FALSE, FALSE, sizeof (FunctionSymbol));
  elf_version (EV_CURRENT);
  Elf *elf = elf_begin (fd, ELF_C_READ, NULL);
  g_assert_nonnull (elf);
  for (Elf_Scn *scn = NULL; (scn = elf_nextscn (elf, scn)) != NULL;)
    {
      GElf_Shdr sh;
      if (gelf_getshdr (scn, &sh) == NULL || sh.sh_type != SHT_SYMTAB
          || sh.sh_entsize == 0)
        continue;
      Elf_Data *data = elf_getdata (scn, NULL);
      g_assert_nonnull (data);
      for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++)
        {
          GElf_Sym sym;
          const char *name;
          if (gelf_getsym (data, (int) i, &sym) == NULL
              || GELF_ST_TYPE (sym.st_info) != STT_FUNC || sym.st_size == 0
              || (name = elf_strptr (elf, sh.sh_link, sym.st_name)) == NULL)
            continue;
          FunctionSymbol f = { sym.st_value, sym.st_value + sym.st_size,
                               g_strdup (name) };
          g_array_append_val (s->functions, f);
        }
    }
  elf_end (elf);
  close (fd);
  g_assert_cmpuint (s->functions->len, >, 0);
  return s;
}

void
fixture_symbols_free (FixtureSymbols *s)
{
  for (guint i = 0; i < s->functions->len; i++)
    g_free (g_array_index (s->functions, FunctionSymbol, i).name);
  g_array_free (s->functions, TRUE);
  g_free (s);
}

gboolean
fixture_symbols_in (const FixtureSymbols *s, uint64_t addr, const char *name)
{
  for (guint i = 0; i < s->functions->len; i++)
    {
      const FunctionSymbol *f = &g_array_index (s->functions, FunctionSymbol, i);
      if (addr >= f->start && addr < f->end && strcmp (f->name, name) == 0)
        return TRUE;
    }
  return FALSE;
}

uint64_t
fixture_symbols_address (const FixtureSymbols *s, const char *name)
{
  for (guint i = 0; i < s->functions->len; i++)
    {
      const FunctionSymbol *f = &g_array_index (s->functions, FunctionSymbol, i);
      if (strcmp (f->name, name) == 0)
        return f->start;
    }
  return 0;
}

const char *
fixture_symbols_name (const FixtureSymbols *s, uint64_t addr)
{
  for (guint i = 0; i < s->functions->len; i++)
    {
      const FunctionSymbol *f = &g_array_index (s->functions, FunctionSymbol, i);
      if (addr >= f->start && addr < f->end)
        return f->name;
    }
  return "?";
}

char *
fixture_call_path_describe (const FixtureSymbols *s, const uint64_t *ips,
                            guint n)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    g_string_append_printf (out, "%s%s@%#" G_GINT64_MODIFIER "x",
                            i > 0 ? ";" : "", fixture_symbols_name (s, ips[i]),
                            ips[i]);
  return g_string_free (out, FALSE);
}

/* The frames every chain ends with, outermost last.  */
static const char *const startup[] = {
  "__libc_start_main", "_start",
};

char *
fixture_call_path_check (const FixtureSymbols *s, const uint64_t *ips,
                         guint n, gboolean *in_work)
{
  const guint n_startup = G_N_ELEMENTS (startup);

  *in_work = n > 0 && fixture_symbols_in (s, ips[0], "st_leaf_work");
  if (n < n_startup + 1)
    return g_strdup_printf ("only %u frames", n);
  for (guint k = 0; k < n_startup; k++)
    if (!fixture_symbols_in (s, ips[n - n_startup + k], startup[k]))
      return g_strdup_printf ("frame %u is not in %s", n - n_startup + k,
                              startup[k]);
  if (!*in_work)
    return NULL;

  /* st_leaf_work, st_recurse x (depth + 1), st_run, main,
     __libc_start_call_main, then the startup frames.  */
  guint i = 1, recurse = 0;
  while (i < n && fixture_symbols_in (s, ips[i], "st_recurse"))
    i++, recurse++;
  if (recurse < 6 || recurse > 61)
    return g_strdup_printf ("%u st_recurse frames, not 6..61", recurse);
  static const char *const tail[] = { "st_run", "main",
                                      "__libc_start_call_main" };
  if (n != i + G_N_ELEMENTS (tail) + n_startup)
    return g_strdup_printf ("%u frames after st_recurse, not %u", n - i,
                            (guint) (G_N_ELEMENTS (tail) + n_startup));
  for (guint k = 0; k < G_N_ELEMENTS (tail); k++, i++)
    if (!fixture_symbols_in (s, ips[i], tail[k]))
      return g_strdup_printf ("frame %u is not in %s", i, tail[k]);
  return NULL;
}

gboolean
fixture_call_path_assert (const FixtureSymbols *s, const StEvent *ev,
                          const uint64_t *ips, const StUnwindResult *res)
{
  gboolean in_work;
  g_autofree char *why = fixture_call_path_check (s, ips, res->n_ips,
                                                  &in_work);

  if (why != NULL || res->status != ST_UNWIND_COMPLETE)
    {
      g_autofree char *chain = fixture_call_path_describe (s, ips,
                                                           res->n_ips);
      g_error ("sample at offset %" G_GUINT64_FORMAT ": %s (status %d, "
               "cause %s): %s", ev->offset, why ? why : "not complete",
               res->status, st_unwind_cause_name (res->cause), chain);
    }
  return in_work;
}

void
fixture_check_cut_walks (FixtureUnwind unwind, void *engine, StProcess *p,
                         const StEvent *ev, const uint64_t *ips,
                         const uint64_t *sps, uint32_t n)
{
  uint64_t got_ips[ST_UNWIND_MAX_FRAMES], got_sps[ST_UNWIND_MAX_FRAMES];
  StUnwindResult res;

  g_assert_cmpuint (n, >, 11);
  StEvent cut = *ev;
  cut.stack.stack_size = sps[10] - sps[0];
  unwind (engine, p, &cut, got_ips, got_sps, ST_UNWIND_MAX_FRAMES, &res);
  g_assert_cmpint (res.status, ==, ST_UNWIND_TRUNCATED);
  g_assert_cmpint (res.cause, ==, ST_CAUSE_STACK_END);
  g_assert_cmpuint (res.n_ips, ==, 11);
  g_assert_cmpmem (got_ips, 11 * sizeof ips[0], ips, 11 * sizeof ips[0]);
  g_assert_cmpmem (got_sps, 11 * sizeof sps[0], sps, 11 * sizeof sps[0]);

  cut.stack.stack_size = 0;
  unwind (engine, p, &cut, got_ips, got_sps, ST_UNWIND_MAX_FRAMES, &res);
  g_assert_cmpint (res.status, ==, ST_UNWIND_TRUNCATED);
  g_assert_cmpint (res.cause, ==, ST_CAUSE_STACK_END);
  g_assert_cmpuint (res.n_ips, ==, 1);
  g_assert_cmphex (got_ips[0], ==, ips[0]);

  unwind (engine, p, ev, got_ips, got_sps, 7, &res);
  g_assert_cmpint (res.status, ==, ST_UNWIND_TRUNCATED);
  g_assert_cmpint (res.cause, ==, ST_CAUSE_MAX_DEPTH);
  g_assert_cmpuint (res.n_ips, ==, 7);
  g_assert_cmpmem (got_ips, 7 * sizeof ips[0], ips, 7 * sizeof ips[0]);
}

guint
fixture_for_each_sample (const char *path, StProcessTable *processes,
                         void (*sample) (StProcess *p, const StEvent *ev,
                                         void *user),
                         void *user)
{
  GError *error = NULL;
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  StEvent ev;
  guint n = 0;
  int r;

  g_assert_cmpint (fd, >=, 0);
  StReader *reader = st_reader_new (fd, ST_FORMAT_AUTO, &error);
  g_assert_no_error (error);
  while ((r = st_reader_next (reader, &ev, &error)) > 0)
    {
      if (ev.kind == ST_EVENT_STACK_USER)
        {
          StProcess *p = st_process_table_get (processes, ev.pid);
          st_process_table_use_unwind_state (processes, p);
          sample (p, &ev, user);
          n++;
        }
      else
        st_process_table_apply (processes, &ev);
    }
  g_assert_no_error (error);
  g_assert_cmpint (r, ==, 0);
  st_reader_free (reader);
  close (fd);
  return n;
}
