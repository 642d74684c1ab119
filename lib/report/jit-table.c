/* Ranges kept in the order added and sorted only when looked up after
   additions (a perf map is read whole, then asked many times).  A
   lookup takes the ranges starting at or below the address whose end
   lies above it (found by a binary search and the running maximum of
   the ends), and the latest added among them.  */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "report/jit-table.h"

/* Ranges looked at below an address, at most.  */
#define LOOKBACK_MAX 4096

typedef struct
{
  uint64_t start;
  uint64_t end;
  uint32_t seq;             /* order added: the latest wins */
  const char *name;
} Range;

struct StJitTable
{
  GArray *ranges;           /* Range */
  uint64_t *max_end;        /* max_end[i]: the largest end of ranges[0..i] */
  gboolean sorted;
  GStringChunk *names;
  uint64_t dropped;
};

StJitTable *
st_jit_table_new (void)
{
  StJitTable *t = g_new0 (StJitTable, 1);

  t->ranges = g_array_new (FALSE, FALSE, sizeof (Range));
  t->names = g_string_chunk_new (16384);
  t->sorted = TRUE;
  return t;
}

void
st_jit_table_free (StJitTable *t)
{
  if (t == NULL)
    return;
  g_array_free (t->ranges, TRUE);
  g_free (t->max_end);
  g_string_chunk_free (t->names);
  g_free (t);
}

gboolean
st_jit_table_add (StJitTable *t, uint64_t start, uint64_t size,
                  const char *name, size_t name_len)
{
  if (size == 0 || start + size < start)
    return FALSE;
  if (t->ranges->len >= ST_JIT_TABLE_MAX)
    {
      t->dropped++;
      return FALSE;
    }
  Range r = { start, start + size, t->ranges->len,
              g_string_chunk_insert_len (t->names, name, (gssize) name_len) };
  g_array_append_val (t->ranges, r);
  t->sorted = FALSE;
  return TRUE;
}

static int
by_start (const void *a, const void *b)
{
  const Range *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void
sort_ranges (StJitTable *t)
{
  Range *r = (Range *) (void *) t->ranges->data;
  guint n = t->ranges->len;

  if (n > 1)
    qsort (r, n, sizeof *r, by_start);
  g_free (t->max_end);
  t->max_end = g_new (uint64_t, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    t->max_end[i] = MAX (r[i].end, i > 0 ? t->max_end[i - 1] : 0);
  t->sorted = TRUE;
}

const char *
st_jit_table_lookup (StJitTable *t, uint64_t addr)
{
  if (!t->sorted)
    sort_ranges (t);

  const Range *r = (const Range *) (const void *) t->ranges->data;
  guint lo = 0, hi = t->ranges->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (r[mid].start <= addr)
        lo = mid + 1;
      else
        hi = mid;
    }
  const Range *best = NULL;
  /* (Bounded: one huge bogus range would make every lookup walk back
     to it.)  */
  guint floor = lo > LOOKBACK_MAX ? lo - LOOKBACK_MAX : 0;
  for (guint j = lo; j-- > floor && t->max_end[j] > addr;)
    if (r[j].end > addr && (best == NULL || r[j].seq > best->seq))
      best = &r[j];
  return best != NULL ? best->name : NULL;
}

guint
st_jit_table_size (const StJitTable *t)
{
  return t->ranges->len;
}

uint64_t
st_jit_table_dropped (const StJitTable *t)
{
  return t->dropped;
}
