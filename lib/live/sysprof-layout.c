/* Sysprof 48's perf event layout, and records checked against it; see
   sysprof-layout.h for why the attribute is built, not read.  */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "format/perf-sample.h"
#include "live/sysprof-layout.h"
#include "util/popcount.h"
#include "model/event.h"

/* The sample_id trailer of non-sample records: TID, TIME, IDENTIFIER.  */
#define TRAILER_SIZE 24

void
st_sysprof_layout_attr (StPerfEventAttr *attr, uint32_t stack_size)
{
  memset (attr, 0, sizeof *attr);
  attr->type = ST_PERF_TYPE_SOFTWARE;
  attr->size = sizeof *attr;
  attr->config = ST_PERF_COUNT_SW_CPU_CLOCK;
  attr->sample_period = 1000000;
  attr->sample_type = ST_SYSPROF_SAMPLE_TYPE;
  attr->flags = ST_PERF_ATTR_FLAG_DISABLED | ST_PERF_ATTR_FLAG_MMAP
                | ST_PERF_ATTR_FLAG_COMM | ST_PERF_ATTR_FLAG_TASK
                | ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL | ST_PERF_ATTR_FLAG_MMAP2;
  attr->sample_regs_user = ST_SYSPROF_REGS_X86_64;
  attr->sample_stack_user = stack_size;
}

void
st_sysprof_layout_checked (StPerfAttr *a, StPerfEventAttr *attr)
{
  memset (a, 0, sizeof *a);
  a->raw = (uint8_t *) attr;
  a->raw_size = sizeof *attr;
  a->size = attr->size;
  a->type = attr->type;
  a->config = attr->config;
  a->sample_type = attr->sample_type;
  a->flags = attr->flags;
  a->sample_regs_user = attr->sample_regs_user;
  a->sample_stack_user = attr->sample_stack_user;
}

static char *
sample_misfit (const StPerfAttr *a, const uint8_t *rec, size_t size,
               StPerfSample *sample)
{
  StPerfSample s;
  char *why = st_perf_sample_parse (a, rec, size, &s);

  if (why != NULL)
    return why;
  if (sample != NULL)
    *sample = s;
  if (s.abi > ST_REGS_ABI_64)
    return g_strdup_printf ("REGS_USER ABI %" G_GUINT64_FORMAT
                            " is none of 0, 1, 2", s.abi);
  if (s.stack_size > a->sample_stack_user)
    return g_strdup_printf ("STACK_USER of %" G_GUINT64_FORMAT " bytes, more "
                            "than the %u asked for", s.stack_size,
                            a->sample_stack_user);
  if (s.dyn_size > s.stack_size)
    return g_strdup_printf ("STACK_USER dyn_size %" G_GUINT64_FORMAT
                            " beyond its %" G_GUINT64_FORMAT " bytes",
                            s.dyn_size, s.stack_size);
  if (s.stack_user_end != size)
    return g_strdup_printf ("%zu bytes after STACK_USER, where the layout "
                            "has none", size - s.stack_user_end);
  return NULL;
}

char *
st_sysprof_layout_misfit (const StPerfAttr *a, const uint8_t *rec,
                          size_t size, StPerfSample *sample)
{
  StPerfEventHeader header;
  size_t fixed;

  if (size < sizeof header)
    return g_strdup ("shorter than a record header");
  memcpy (&header, rec, sizeof header);
  switch (header.type)
    {
    case ST_PERF_RECORD_SAMPLE:
      return sample_misfit (a, rec, size, sample);
    /* The fixed part, a name of at least one 8-byte word where there is
       one, then the trailer.  */
    case ST_PERF_RECORD_MMAP: fixed = sizeof (StPerfMmap) + 8; break;
    case ST_PERF_RECORD_MMAP2: fixed = sizeof (StPerfMmap2) + 8; break;
    case ST_PERF_RECORD_COMM: fixed = sizeof (StPerfComm) + 8; break;
    case ST_PERF_RECORD_FORK:
    case ST_PERF_RECORD_EXIT: fixed = sizeof (StPerfForkExit); break;
    case ST_PERF_RECORD_LOST: fixed = sizeof (StPerfLost); break;
    default:
      return NULL;
    }
  if (size < fixed + TRAILER_SIZE)
    return g_strdup_printf ("%zu bytes, too short for its fields and "
                            "sample_id (%zu)", size, fixed + TRAILER_SIZE);
  return NULL;
}

size_t
st_sysprof_layout_end_stack (uint8_t *rec, size_t at, uint64_t dyn_size)
{
  uint64_t keep = ST_PERF_ALIGN8 (dyn_size);
  size_t end = at;
  uint16_t size;

  /* With nothing kept, neither copy nor dyn_size: a size of 0 has none. */
  memcpy (rec + at - 8, &keep, 8);
  if (keep > 0)
    {
      memcpy (rec + at + keep, &dyn_size, 8);
      end += keep + 8;
    }
  size = (uint16_t) end;
  memcpy (rec + offsetof (StPerfEventHeader, size), &size, sizeof size);
  return end;
}

size_t
st_sysprof_layout_cut_stack (uint8_t *rec, size_t size,
                             const StPerfSample *sample)
{
  if (sample->stack_size == 0
      || ST_PERF_ALIGN8 (sample->dyn_size) >= sample->stack_size)
    return size;
  return st_sysprof_layout_end_stack (rec, (size_t) (sample->stack - rec),
                                      sample->dyn_size);
}

gboolean
st_sysprof_layout_stack_at (const StPerfAttr *a, const uint8_t *rec,
                            size_t prefix_len, size_t size, size_t *at)
{
  StPerfEventHeader header;
  /* IDENTIFIER, IP, TID, TIME (and PERIOD: --record's): then
     CALLCHAIN's count.  */
  size_t pos = sizeof header + 4 * 8;
  uint64_t nr, abi, stack_size;

  if ((a->sample_type & ~(uint64_t) ST_PERF_SAMPLE_PERIOD)
      != ST_SYSPROF_SAMPLE_TYPE)
    return FALSE;
  if (a->sample_type & ST_PERF_SAMPLE_PERIOD)
    pos += 8;
  if (prefix_len > size || prefix_len < pos + 8)
    return FALSE;
  memcpy (&header, rec, sizeof header);
  if (header.type != ST_PERF_RECORD_SAMPLE)
    return FALSE;
  nr = st_perf_get_u64 (rec + pos);
  if (nr > prefix_len / 8)
    return FALSE;
  pos += 8 + 8 * nr;
  if (pos + 8 > prefix_len)
    return FALSE;
  abi = st_perf_get_u64 (rec + pos);
  pos += 8;
  if (abi != 0)
    pos += 8 * (size_t) st_popcount64 (a->sample_regs_user);
  if (pos + 8 > prefix_len)
    return FALSE;
  stack_size = st_perf_get_u64 (rec + pos);
  pos += 8;
  if (stack_size == 0 || stack_size > a->sample_stack_user
      || pos + stack_size + 8 != size)
    return FALSE;
  *at = pos;
  return TRUE;
}
