/* Walking the fields of a perf sample in the kernel's order, bounds-checked.
   Fields after STACK_USER are not needed: a writer copies them as one
   range.  */
#include "config.h"

#include <glib.h>
#include <string.h>

#include "format/perf-sample.h"
#include "util/popcount.h"

typedef struct
{
  const uint8_t *rec;
  size_t pos;
  size_t size;
} Cursor;

static gboolean
cur_take (Cursor *c, uint64_t n, const uint8_t **out)
{
  if (n > c->size - c->pos)
    return FALSE;
  if (out != NULL)
    *out = c->rec + c->pos;
  c->pos += n;
  return TRUE;
}

static gboolean
cur_u64 (Cursor *c, uint64_t *v)
{
  const uint8_t *p;

  if (!cur_take (c, 8, &p))
    return FALSE;
  *v = st_perf_get_u64 (p);
  return TRUE;
}

/* Skips N items of ITEM bytes each.  */
static gboolean
cur_skip_array (Cursor *c, uint64_t n, uint64_t item, const uint8_t **out)
{
  if (n > (c->size - c->pos) / item)
    return FALSE;
  return cur_take (c, n * item, out);
}

static gboolean
skip_read_values (Cursor *c, uint64_t read_format)
{
  uint64_t extra = 8 * st_popcount64 (
    read_format & (ST_PERF_FORMAT_TOTAL_TIME_ENABLED
                   | ST_PERF_FORMAT_TOTAL_TIME_RUNNING));
  uint64_t per_value = 8 * (1 + st_popcount64 (
    read_format & (ST_PERF_FORMAT_ID | ST_PERF_FORMAT_LOST)));
  uint64_t nr;

  if (!(read_format & ST_PERF_FORMAT_GROUP))
    return cur_take (c, extra + per_value, NULL);
  return (cur_u64 (c, &nr) && cur_take (c, extra, NULL)
          && cur_skip_array (c, nr, per_value, NULL));
}

char *
st_perf_sample_parse (const StPerfAttr *a, const uint8_t *rec, size_t size,
                      StPerfSample *s)
{
  uint64_t st = a->sample_type, v;
  const uint8_t *p = NULL;
  const char *field = NULL;
  Cursor c = { rec, sizeof (StPerfEventHeader), size };

  memset (s, 0, sizeof *s);
  if (size < c.pos)
    return g_strdup ("record shorter than its header");

#define TAKE(bit, name, stmt)                   \
  if (st & (bit))                               \
    {                                           \
      field = (name);                           \
      if (!(stmt))                              \
        goto short_record;                      \
    }

  TAKE (ST_PERF_SAMPLE_IDENTIFIER, "IDENTIFIER", cur_u64 (&c, &v));
  TAKE (ST_PERF_SAMPLE_IP, "IP", cur_u64 (&c, &s->ip));
  TAKE (ST_PERF_SAMPLE_TID, "TID", cur_take (&c, 8, &p));
  if (st & ST_PERF_SAMPLE_TID)
    {
      s->pid = st_perf_get_u32 (p);
      s->tid = st_perf_get_u32 (p + 4);
    }
  TAKE (ST_PERF_SAMPLE_TIME, "TIME", cur_u64 (&c, &s->time));
  TAKE (ST_PERF_SAMPLE_ADDR, "ADDR", cur_u64 (&c, &v));
  TAKE (ST_PERF_SAMPLE_ID, "ID", cur_u64 (&c, &v));
  TAKE (ST_PERF_SAMPLE_STREAM_ID, "STREAM_ID", cur_u64 (&c, &v));
  TAKE (ST_PERF_SAMPLE_CPU, "CPU", cur_take (&c, 8, &p));
  if (st & ST_PERF_SAMPLE_CPU)
    s->cpu = st_perf_get_u32 (p);
  TAKE (ST_PERF_SAMPLE_PERIOD, "PERIOD", cur_u64 (&c, &v));
  TAKE (ST_PERF_SAMPLE_READ, "READ", skip_read_values (&c, a->read_format));
  s->callchain_at = c.pos;
  TAKE (ST_PERF_SAMPLE_CALLCHAIN, "CALLCHAIN",
        cur_u64 (&c, &s->nr) && cur_skip_array (&c, s->nr, 8, &s->ips));
  s->callchain_end = c.pos;
  TAKE (ST_PERF_SAMPLE_RAW, "RAW", cur_take (&c, 4, &p));
  if (st & ST_PERF_SAMPLE_RAW)
    {
      uint32_t raw_size = st_perf_get_u32 (p);

      /* The kernel pads the data so that size + 4 is 8-aligned; the u64
         fields after it rely on that.  */
      if ((raw_size + 4ull) % 8 != 0)
        return g_strdup_printf ("RAW size %u + 4 is not a multiple of 8",
                                raw_size);
      TAKE (ST_PERF_SAMPLE_RAW, "RAW", cur_take (&c, raw_size, NULL));
    }
  if (st & ST_PERF_SAMPLE_BRANCH_STACK)
    {
      uint64_t n_branches = 0;

      TAKE (ST_PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK",
            cur_u64 (&c, &n_branches));
      if (a->branch_sample_type & ST_PERF_BRANCH_HW_INDEX)
        TAKE (ST_PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK", cur_u64 (&c, &v));
      TAKE (ST_PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK",
            cur_skip_array (&c, n_branches, ST_PERF_BRANCH_ENTRY_SIZE, NULL));
    }
  s->regs_user_at = c.pos;
  TAKE (ST_PERF_SAMPLE_REGS_USER, "REGS_USER", cur_u64 (&c, &s->abi));
  if ((st & ST_PERF_SAMPLE_REGS_USER) && s->abi != 0)
    {
      s->n_regs = st_popcount64 (a->sample_regs_user);
      TAKE (ST_PERF_SAMPLE_REGS_USER, "REGS_USER",
            cur_skip_array (&c, s->n_regs, 8, &s->regs));
    }
  TAKE (ST_PERF_SAMPLE_STACK_USER, "STACK_USER",
        cur_u64 (&c, &s->stack_size)
        && cur_take (&c, s->stack_size, &s->stack));
  if ((st & ST_PERF_SAMPLE_STACK_USER) && s->stack_size != 0)
    TAKE (ST_PERF_SAMPLE_STACK_USER, "STACK_USER", cur_u64 (&c, &s->dyn_size));
  s->stack_user_end = c.pos;
#undef TAKE
  return NULL;

short_record:
  return g_strdup_printf ("%s field runs past the end of the record", field);
}

/* The fields before CALLCHAIN that are one u64 each (TID and CPU are two
   u32).  */
#define FIXED_BEFORE_CALLCHAIN (ST_PERF_SAMPLE_IDENTIFIER | ST_PERF_SAMPLE_IP \
                                | ST_PERF_SAMPLE_TID | ST_PERF_SAMPLE_TIME    \
                                | ST_PERF_SAMPLE_ADDR | ST_PERF_SAMPLE_ID     \
                                | ST_PERF_SAMPLE_STREAM_ID                    \
                                | ST_PERF_SAMPLE_CPU | ST_PERF_SAMPLE_PERIOD)

/* The fields of variable size quick_spans leaves to the parser.  */
#define SPANS_PARSED (ST_PERF_SAMPLE_READ | ST_PERF_SAMPLE_RAW \
                      | ST_PERF_SAMPLE_BRANCH_STACK)

/* st_perf_sample_locate without the parser; FALSE when it is needed.  */
static gboolean
quick_spans (const StPerfAttr *a, const uint8_t *rec, size_t size,
             StPerfSampleSpans *spans)
{
  uint64_t st = a->sample_type, n;
  size_t pos;

  if (st & SPANS_PARSED)
    return FALSE;
  pos = sizeof (StPerfEventHeader)
        + 8 * st_popcount64 (st & FIXED_BEFORE_CALLCHAIN);
  if (pos > size)
    return FALSE;
  spans->callchain_at = pos;
  if (st & ST_PERF_SAMPLE_CALLCHAIN)
    {
      if (size - pos < 8)
        return FALSE;
      n = st_perf_get_u64 (rec + pos);
      pos += 8;
      if (n > (size - pos) / 8)
        return FALSE;
      pos += 8 * n;
    }
  spans->callchain_end = pos;
  spans->regs_user_at = pos;
  if (st & ST_PERF_SAMPLE_REGS_USER)
    {
      if (size - pos < 8)
        return FALSE;
      /* The ABI; registers only with one.  */
      n = st_perf_get_u64 (rec + pos) != 0
          ? st_popcount64 (a->sample_regs_user) : 0;
      pos += 8;
      if (n > (size - pos) / 8)
        return FALSE;
      pos += 8 * n;
    }
  if (st & ST_PERF_SAMPLE_STACK_USER)
    {
      if (size - pos < 8)
        return FALSE;
      /* The copy's size, the copy, and its dyn_size when not empty.  */
      n = st_perf_get_u64 (rec + pos);
      pos += 8;
      if (n > size - pos)
        return FALSE;
      pos += n;
      if (n != 0)
        {
          if (size - pos < 8)
            return FALSE;
          pos += 8;
        }
    }
  spans->stack_user_end = pos;
  return TRUE;
}

char *
st_perf_sample_locate (const StPerfAttr *a, const uint8_t *rec, size_t size,
                       StPerfSampleSpans *spans)
{
  StPerfSample s;
  char *why;

  if (quick_spans (a, rec, size, spans))
    return NULL;
  why = st_perf_sample_parse (a, rec, size, &s);
  spans->callchain_at = s.callchain_at;
  spans->callchain_end = s.callchain_end;
  spans->regs_user_at = s.regs_user_at;
  spans->stack_user_end = s.stack_user_end;
  return why;
}
