/* Patching perf_event_attr copies for unwound callchains.  */
#include "config.h"

#include <string.h>

#include "format/perf-attr.h"
#include "format/perf-types.h"

#define RAW_STACK_BITS (ST_PERF_SAMPLE_REGS_USER | ST_PERF_SAMPLE_STACK_USER)

gboolean
st_perf_attr_has_raw_stacks (uint64_t sample_type)
{
  return (sample_type & RAW_STACK_BITS) == RAW_STACK_BITS;
}

uint64_t
st_perf_attr_unwound_sample_type (uint64_t sample_type)
{
  return (sample_type & ~RAW_STACK_BITS) | ST_PERF_SAMPLE_CALLCHAIN;
}

/* Bytes of the attr at ATTR that belong to it (its size field; 0 means
   the first version).  */
static size_t
attr_extent (const uint8_t *attr, size_t len)
{
  uint32_t size;

  memcpy (&size, attr + ST_PERF_ATTR_SIZE, 4);
  return MIN (len, size != 0 ? size : ST_PERF_ATTR_SIZE_VER0);
}

static void
put_u64_if (uint8_t *attr, size_t valid, size_t off, uint64_t v)
{
  if (off + 8 <= valid)
    memcpy (attr + off, &v, 8);
}

gboolean
st_perf_attr_patch_unwound (uint8_t *attr, size_t len)
{
  size_t valid;
  uint64_t st, flags;

  if (len < ST_PERF_ATTR_SIZE_VER0)
    return FALSE;
  valid = attr_extent (attr, len);
  if (valid < ST_PERF_ATTR_SIZE_VER0)
    return FALSE;
  memcpy (&st, attr + ST_PERF_ATTR_SAMPLE_TYPE, 8);
  if (!st_perf_attr_has_raw_stacks (st))
    return FALSE;
  memcpy (&flags, attr + ST_PERF_ATTR_FLAGS, 8);
  st = st_perf_attr_unwound_sample_type (st);
  flags &= ~ST_PERF_ATTR_FLAG_EXCLUDE_CALLCHAIN_USER;
  memcpy (attr + ST_PERF_ATTR_SAMPLE_TYPE, &st, 8);
  memcpy (attr + ST_PERF_ATTR_FLAGS, &flags, 8);
  put_u64_if (attr, valid, ST_PERF_ATTR_SAMPLE_REGS_USER, 0);
  if (ST_PERF_ATTR_SAMPLE_STACK_USER + 4 <= valid)
    memset (attr + ST_PERF_ATTR_SAMPLE_STACK_USER, 0, 4);
  return TRUE;
}

/* EVENT_DESC: u32 nr, u32 attr_size, then per event the attr, u32 nr_ids,
   a string (u32 len, then len bytes), u64 ids[nr_ids].  */
static gboolean
walk_event_desc (uint8_t *sec, size_t size, gboolean patch)
{
  uint32_t nr, attr_size, n_ids, len;
  size_t pos = 8;

  if (size < 8)
    return FALSE;
  memcpy (&nr, sec, 4);
  memcpy (&attr_size, sec + 4, 4);
  if (attr_size < ST_PERF_ATTR_SIZE_VER0)
    return FALSE;
  for (uint32_t i = 0; i < nr; i++)
    {
      uint8_t *attr = sec + pos;

      if (attr_size > size - pos || size - pos - attr_size < 8)
        return FALSE;
      pos += attr_size;
      memcpy (&n_ids, sec + pos, 4);
      memcpy (&len, sec + pos + 4, 4);
      pos += 8;
      if (len > size - pos)
        return FALSE;
      pos += len;
      if (n_ids > (size - pos) / 8)
        return FALSE;
      pos += 8 * (size_t) n_ids;
      if (patch)
        st_perf_attr_patch_unwound (attr, attr_size);
    }
  return TRUE;
}

gboolean
st_perf_event_desc_patch_unwound (uint8_t *sec, size_t size)
{
  /* Check the whole section before changing any of it.  */
  return (walk_event_desc (sec, size, FALSE)
          && walk_event_desc (sec, size, TRUE));
}
