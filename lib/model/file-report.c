/* The per-module file report: one entry per module identity, counts by
   verification, samples lost to unusable files.  */
#include "config.h"

#include <string.h>

#include "model/file-report.h"

struct StFileReport
{
  GHashTable *by_key;         /* identity -> StFileEntry* (owned) */
  uint64_t not_listed;
  uint64_t not_listed_samples;
};

static void
entry_free (gpointer data)
{
  StFileEntry *e = data;

  g_free (e->name);
  g_free (e->path);
  g_free (e->detail);
  g_free (e);
}

StFileReport *
st_file_report_new (void)
{
  StFileReport *r = g_new0 (StFileReport, 1);

  r->by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                     entry_free);
  return r;
}

void
st_file_report_free (StFileReport *r)
{
  if (r == NULL)
    return;
  g_hash_table_destroy (r->by_key);
  g_free (r);
}

void
st_file_report_module (StFileReport *r, const char *key, const char *name,
                       const char *path, StFileSource source,
                       StFileVerification verification,
                       StFileProblem problem, const char *detail,
                       gboolean has_build_id)
{
  StFileEntry *e = g_hash_table_lookup (r->by_key, key);

  if (e == NULL)
    {
      if (g_hash_table_size (r->by_key) >= ST_FILE_REPORT_MAX)
        {
          r->not_listed++;
          return;
        }
      e = g_new0 (StFileEntry, 1);
      e->name = g_strdup (name);
      g_hash_table_insert (r->by_key, g_strdup (key), e);
    }
  /* Again (fetched later, or opened again after an eviction): the
     latest word, the samples counted so far kept.  */
  g_free (e->path);
  g_free (e->detail);
  e->path = problem == ST_FILE_OK ? g_strdup (path) : NULL;
  e->detail = problem != ST_FILE_OK ? g_strdup (detail) : NULL;
  e->source = source;
  e->verification = verification;
  e->problem = problem;
  e->has_build_id = has_build_id;
}

void
st_file_report_cost (StFileReport *r, const char *key)
{
  StFileEntry *e = g_hash_table_lookup (r->by_key, key);

  if (e != NULL)
    e->samples++;
  else
    r->not_listed_samples++;
}

void
st_file_report_no_unwind_data (StFileReport *r, const char *key,
                               StNoCfiReason why)
{
  StFileEntry *e = g_hash_table_lookup (r->by_key, key);

  if (e == NULL)
    {
      r->not_listed_samples++;
      return;
    }
  if (e->problem == ST_FILE_OK)
    {
      e->problem = why == ST_NO_CFI_DEBUG_FILE ? ST_FILE_DEBUG_WITHOUT_CFI
                                               : ST_FILE_NO_UNWIND_DATA;
      g_free (e->detail);
      e->detail = g_strdup_printf (
        why == ST_NO_CFI_SECTIONS
        ? "%s: no .eh_frame or .debug_frame, and no debug file with one "
          "was found"
        : why == ST_NO_CFI_CODE
        ? "%s: built without unwind tables (its .eh_frame covers little of "
          "its code, no .debug_frame), and no debug file was found"
        : "%s: built without unwind tables (its .eh_frame covers little of "
          "its code), and its debug file has no .debug_frame", e->path);
    }
  e->samples++;
}

/* A mapped file that is not ELF and no sample stopped in: data a
   process mapped (/etc/ld.so.cache, locale archives, fonts), never
   code, so not a file the unwinder missed.  */
gboolean
st_file_entry_is_data_file (const StFileEntry *e)
{
  return e->problem == ST_FILE_NOT_ELF && e->samples == 0;
}

void
st_file_report_totals (const StFileReport *r, StFileReportTotals *t)
{
  GHashTableIter it;
  gpointer value;

  memset (t, 0, sizeof *t);
  g_hash_table_iter_init (&it, r->by_key);
  while (g_hash_table_iter_next (&it, NULL, &value))
    {
      const StFileEntry *e = value;
      t->modules++;
      if (st_file_entry_is_data_file (e))
        t->data_files++;
      else if (e->problem != ST_FILE_OK)
        {
          t->unusable++;
          t->unusable_samples += e->samples;
        }
      else if (e->verification == ST_FILE_VERIFIED_BUILD_ID)
        t->verified_build_id++;
      else if (e->verification == ST_FILE_VERIFIED_INODE)
        t->verified_inode++;
      else
        t->unverified++;
    }
  t->not_listed = r->not_listed;
  t->modules += r->not_listed;
  t->unusable_samples += r->not_listed_samples;
}

static gint
by_cost (gconstpointer a, gconstpointer b)
{
  const StFileEntry *x = *(StFileEntry *const *) a;
  const StFileEntry *y = *(StFileEntry *const *) b;

  if (x->samples != y->samples)
    return x->samples > y->samples ? -1 : 1;
  return strcmp (x->name, y->name);
}

static gint
by_name (gconstpointer a, gconstpointer b)
{
  const StFileEntry *x = *(StFileEntry *const *) a;
  const StFileEntry *y = *(StFileEntry *const *) b;

  return strcmp (x->name, y->name);
}

static GPtrArray *
entries (const StFileReport *r, gboolean unusable_only, GCompareFunc order)
{
  GPtrArray *list = g_ptr_array_new ();
  GHashTableIter it;
  gpointer value;

  g_hash_table_iter_init (&it, r->by_key);
  while (g_hash_table_iter_next (&it, NULL, &value))
    if (!unusable_only || (((StFileEntry *) value)->problem != ST_FILE_OK
                           && !st_file_entry_is_data_file (value)))
      g_ptr_array_add (list, value);
  g_ptr_array_sort (list, order);
  return list;
}

GPtrArray *
st_file_report_unusable (const StFileReport *r)
{
  return entries (r, TRUE, by_cost);
}

GPtrArray *
st_file_report_all (const StFileReport *r)
{
  return entries (r, FALSE, by_name);
}
