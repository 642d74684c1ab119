/* perf.data reader over a forward-only StInput.

   File mode: the header, then the attributes and their id arrays, read
   forward from the bytes before the data section (perf puts them there),
   then exactly the data section's records.  The feature sections lie
   behind the data: they are pread() up front when the input is a regular
   file, and read forward after the data otherwise.

   Pipe mode: a 16-byte header, then records until EOF; attributes arrive
   as HEADER_ATTR records.

   perf record -z: the records inside COMPRESSED and COMPRESSED2 records
   are decompressed (perf-decompress.c) and come out as if they had been
   written uncompressed, before the record that follows the compressed
   one.

   This file frames the records and resynchronizes after damage;
   perf-reader-header.c reads the header and feature sections,
   perf-reader-decode.c decodes records (perf-reader-private.h).

   With a damage handler, a bad record does not end the reading: see
   damage.h and the table in doc/ROBUSTNESS.  */
#include "config.h"

#include <string.h>

#include "format/damage.h"
#include "util/domain.h"
#include "format/perf-decompress.h"
#include "format/perf-reader-private.h"

/* The build-ID table is looked up by name for every mapping record: its
   names hashed eight bytes at a time (g_str_hash goes byte by byte).  */
static guint
name_hash (gconstpointer key)
{
  const char *s = key;
  size_t len = strlen (s);
  uint64_t h = len * 0x9e3779b97f4a7c15ull, w;

  for (; len >= 8; len -= 8, s += 8)
    {
      memcpy (&w, s, 8);
      h = (h ^ w) * 0xff51afd7ed558ccdull;
    }
  w = 0;
  memcpy (&w, s, len);
  h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
  return (guint) (h >> 32);
}

StPerfReader *
st_perf_reader_new (StInput *in, GError **error)
{
  StPerfReader *r;
  const uint8_t *p = st_input_peek_header (in, ST_PERF_PIPE_HEADER_SIZE,
                                           "perf.data header", error);
  uint64_t size;

  if (p == NULL)
    return NULL;
  if (memcmp (p, ST_PERF_MAGIC_SWAPPED, 8) == 0)
    {
      g_set_error (error, ST_ERROR, ST_ERROR_UNSUPPORTED,
                   "offset 0: byte-swapped (big-endian) perf.data not "
                   "supported");
      return NULL;
    }
  if (memcmp (p, ST_PERF_MAGIC, 8) != 0)
    {
      g_set_error (error, ST_ERROR, ST_ERROR_FORMAT,
                   "offset 0: bad perf.data magic (expected \"PERFILE2\")");
      return NULL;
    }
  size = st_perf_get_u64 (p + 8);
  if (size != ST_PERF_PIPE_HEADER_SIZE && size != ST_PERF_FILE_HEADER_SIZE
      && size != ST_PERF_FILE_HEADER_V0)
    {
      g_set_error (error, ST_ERROR, ST_ERROR_FORMAT,
                   "offset 8: unexpected perf.data header size %"
                   G_GUINT64_FORMAT " (expected 16, 72 or 104)", size);
      return NULL;
    }

  r = g_new0 (StPerfReader, 1);
  r->in = in;
  r->attrs = g_ptr_array_new_with_free_func (st_perf_reader_attr_free);
  r->by_id = g_hash_table_new (g_int64_hash, g_int64_equal);
  r->build_ids = g_hash_table_new_full (name_hash, g_str_equal, g_free,
                                        g_free);
  r->data_end = UNTIL_EOF;
  if (size == ST_PERF_PIPE_HEADER_SIZE)
    {
      r->pipe = TRUE;
      st_input_consume (in, size);
      return r;
    }

  p = st_input_peek_header (in, size, "perf.data header", error);
  if (p == NULL)
    {
      st_perf_reader_free (r);
      return NULL;
    }
  if (!st_perf_reader_read_file_header (r, p, size, error))
    {
      st_perf_reader_free (r);
      return NULL;
    }
  return r;
}

void
st_perf_reader_free (StPerfReader *r)
{
  if (r == NULL)
    return;
  g_hash_table_destroy (r->by_id);
  if (r->cpu_by_id != NULL)
    g_hash_table_destroy (r->cpu_by_id);
  g_hash_table_destroy (r->build_ids);
  g_ptr_array_free (r->attrs, TRUE);
  for (int i = 0; i < ST_PERF_FEATURE_BITS; i++)
    g_free (r->features[i]);
  if (r->head != NULL)
    g_byte_array_free (r->head, TRUE);
  g_clear_error (&r->feature_damage);
  st_perf_decompress_free (r->decomp);
  g_free (r->scratch);
  g_free (r);
}

/* The bytes that follow records of TYPE outside their size (tracing and
   AUXTRACE data), from the record's fixed part at P (SIZE bytes).  */
static int
payload_size (uint32_t type, const uint8_t *p, size_t size, uint64_t *out)
{
  *out = 0;
  if (type == ST_PERF_RECORD_HEADER_TRACING_DATA)
    {
      /* perf 4.x writes the record without its pad: 12 bytes.  */
      if (size < ST_PERF_TRACING_DATA_SIZE_OLD)
        return -1;
      *out = ST_PERF_ALIGN8 ((uint64_t) ((const StPerfTracingData *) p)->size);
    }
  else if (type == ST_PERF_RECORD_AUXTRACE)
    {
      if (size < sizeof (StPerfAuxtrace))
        return -1;
      *out = ((const StPerfAuxtrace *) p)->size;
      if (*out > MAX_PAYLOAD)
        return -1;
      *out = ST_PERF_ALIGN8 (*out);
    }
  return *out > MAX_PAYLOAD ? -1 : 0;
}

/* Whether TYPE is a record type perf or the kernel writes (a
   resynchronization only stops at these).  */
static gboolean
known_record_type (uint32_t type)
{
  return (type >= ST_PERF_RECORD_MMAP && type < ST_PERF_RECORD_KERNEL_MAX)
         || (type >= ST_PERF_RECORD_HEADER_ATTR
             && type <= ST_PERF_RECORD_USER_LAST);
}

/* Whether perf writes records of TYPE with sizes that are not multiples
   of 8.  */
static gboolean
unaligned_type (uint32_t type)
{
  return type == ST_PERF_RECORD_HEADER_TRACING_DATA
         || type == ST_PERF_RECORD_HEADER_FEATURE
         || type == ST_PERF_RECORD_COMPRESSED;
}

/* Whether the 8 bytes at P, at offset OFF, look like a record header
   whose record fits in the data section.  */
static gboolean
plausible_header (const StPerfReader *r, const uint8_t *p, uint64_t off)
{
  StPerfEventHeader h;

  memcpy (&h, p, sizeof h);
  return known_record_type (h.type) && h.size >= sizeof h
         && (h.size % 8 == 0 || (r->unaligned && unaligned_type (h.type)))
         && h.size <= r->data_end - off;
}

/* Whether a record starts at the input's position: a plausible header,
   a record that decodes (for the types decoded without side effects),
   and after it a plausible header or the end.  */
static gboolean
record_starts_here (void *user)
{
  StPerfReader *r = user;
  uint64_t off = st_input_offset (r->in);
  size_t avail = 0;
  const uint8_t *p = st_input_peek (r->in, 8, &avail, NULL);
  StPerfEventHeader h;
  StEvent ev;

  if (p == NULL || !plausible_header (r, p, off))
    return FALSE;
  memcpy (&h, p, sizeof h);
  if (h.type == ST_PERF_RECORD_HEADER_TRACING_DATA
      || h.type == ST_PERF_RECORD_AUXTRACE)
    return FALSE;   /* a payload size is too easily taken from garbage */

  gboolean next_known = TRUE;
  p = st_input_peek (r->in, h.size + sizeof h, &avail, NULL);
  if (p == NULL)
    {
      next_known = FALSE;
      if ((p = st_input_peek (r->in, h.size, &avail, NULL)) == NULL)
        return FALSE;
    }
  if ((uintptr_t) p % 8 != 0 && !r->unaligned)
    return FALSE;   /* records of most real files stay 8-aligned */
  if (h.type == ST_PERF_RECORD_SAMPLE || (h.type >= ST_PERF_RECORD_MMAP
                                          && h.type <= ST_PERF_RECORD_FORK)
      || h.type == ST_PERF_RECORD_MMAP2)
    {
      GError *bad = NULL;
      if (st_perf_reader_decode_record (r, p, h.type, h.size, off, h.size,
                                        &ev, &bad) < 0)
        {
          g_error_free (bad);
          return FALSE;
        }
    }
  if (!next_known || off + h.size >= r->data_end)
    return TRUE;
  if (!plausible_header (r, p + h.size, off + h.size))
    return FALSE;
  if (!r->unaligned)
    return TRUE;

  /* Byte by byte, junk passes for two records more often: a third
     header must follow as well (or the end).  */
  StPerfEventHeader next;
  uint64_t third;

  memcpy (&next, p + h.size, sizeof next);
  third = (uint64_t) h.size + next.size;
  if (off + third >= r->data_end)
    return TRUE;
  p = st_input_peek (r->in, third + sizeof h, &avail, NULL);
  return p == NULL || plausible_header (r, p + third, off + third);
}

/* The input ended at OFFSET inside a record or its header (AVAIL bytes
   left), or before the end of the data section.  The reason is in
   LOCAL.  */
static int
truncated_end (StPerfReader *r, uint64_t offset, size_t avail,
               GError *local, GError **error)
{
  if (local->code != ST_ERROR_TRUNCATED)
    {
      g_propagate_error (error, local);   /* a read error: stop */
      return -1;
    }
  gboolean go_on = st_damage_report (&r->damage, ST_DAMAGE_TRUNCATED, offset,
                                     avail, ST_ERROR_TRUNCATED,
                                     local->message, error);
  g_error_free (local);
  if (!go_on)
    return -1;
  st_input_consume (r->in, avail);
  r->data_end = st_input_offset (r->in);
  return 0;
}

/* At the end of the data section: the feature sections of a file read
   through a pipe.  Damaged or cut off, they cost the build IDs, not the
   records read before.  */
static int
end_of_data (StPerfReader *r, GError **error)
{
  GError *local = NULL;

  if (st_perf_reader_read_tail_features (r, &local) == 0)
    return 0;
  if (local->code == ST_ERROR_IO)
    {
      g_propagate_error (error, local);
      return -1;
    }
  g_autofree char *msg = g_strdup_printf ("%s; the feature sections are "
                                          "ignored", local->message);
  gboolean go_on = st_damage_report (&r->damage, ST_DAMAGE_SKIPPED,
                                     r->data_end, 0, local->code, msg, error);
  g_error_free (local);
  return go_on ? 0 : -1;
}

/* Decodes the record at P (header H, TOTAL bytes with its payload) at
   OFF into EV.  With a damage handler, a record whose content does not
   decode is passed on unchanged.  Inlined: as a call of its own it cost
   about 40 instructions a record (0.5 % of the cc1 benchmark).  */
G_ALWAYS_INLINE static inline int
deliver (StPerfReader *r, const uint8_t *p, const StPerfEventHeader *h,
         uint64_t off, uint64_t total, StEvent *ev, GError **error)
{
  GError *local = NULL;

  if ((uintptr_t) p % 8 != 0)
    {
      /* Only a record at an odd offset: keep u64 arrays aligned.  */
      if (r->scratch_cap < total)
        {
          g_free (r->scratch);
          r->scratch_cap = MAX (total, 65536);
          r->scratch = g_malloc (r->scratch_cap);
        }
      memcpy (r->scratch, p, total);
      p = r->scratch;
    }
  if (st_perf_reader_decode_record (r, p, h->type, h->size, off, total, ev,
                                    &local) > 0)
    return 1;
  if (local->code == ST_ERROR_UNSUPPORTED || r->damage.func == NULL)
    {
      g_propagate_error (error, local);
      return -1;
    }
  /* Inconsistent content: the record goes on unchanged, not
     interpreted.  */
  g_autofree char *msg = g_strdup_printf ("%s; record passed on "
                                          "unchanged", local->message);
  g_error_free (local);
  st_damage_report (&r->damage, ST_DAMAGE_PASSED, off, total,
                    ST_ERROR_FORMAT, msg, NULL);
  st_perf_reader_decode_record (r, p, ST_PERF_RECORD_KERNEL_MAX, h->size, off,
                                total, ev, NULL);
  ev->round_end = FALSE;
  return 1;
}

/* The compressed record P (header H, whole) at OFF into the decompressed
   bytes.  Data that does not decompress is damage: reported, and the
   records after it go on.  0, or -1 with ERROR set.  */
static int
take_compressed (StPerfReader *r, const uint8_t *p,
                 const StPerfEventHeader *h, uint64_t off, GError **error)
{
  uint64_t dropped = 0;
  g_autofree char *why = st_perf_decompress_record (
    st_perf_reader_decompressor (r), off, p, h->size, &dropped);

  if (why == NULL)
    return 0;

  g_autofree char *msg = g_strdup_printf (
    "offset %" G_GUINT64_FORMAT ": bad perf record (type %u, size %u): "
    "compressed data %s; the records in it are dropped%s", off, h->type,
    h->size, why, dropped > 0 ? ", with the incomplete record held from "
                                "before it" : "");
  return st_damage_report (&r->damage, ST_DAMAGE_DROPPED, off,
                           h->size + dropped, ST_ERROR_FORMAT, msg, error)
         ? 0 : -1;
}

/* The next whole record of the decompressed bytes into EV: 1, or 0 when
   there is none (the rest continues in the next compressed record), or
   -1 with ERROR set.  */
static int
next_decompressed (StPerfReader *r, StEvent *ev, GError **error)
{
  if (r->decomp_pending > 0)
    {
      st_perf_decompress_consume (r->decomp, r->decomp_pending);
      r->decomp_pending = 0;
    }
  for (;;)
    {
      size_t held;
      uint64_t off, total, payload = 0;
      const uint8_t *p = st_perf_decompress_held (r->decomp, &held, &off);
      StPerfEventHeader h;
      const char *why = NULL;

      if (held < sizeof h)
        return 0;
      memcpy (&h, p, sizeof h);
      if (h.size < sizeof h)
        why = "smaller than its 8-byte header";
      else if (h.type == ST_PERF_RECORD_COMPRESSED
               || h.type == ST_PERF_RECORD_COMPRESSED2)
        why = "compressed record inside compressed data";
      else if (h.type > 0xffff)
        why = "not a perf record type";
      else if ((h.type == ST_PERF_RECORD_HEADER_TRACING_DATA
                || h.type == ST_PERF_RECORD_AUXTRACE) && held >= h.size
               && payload_size (h.type, p, h.size, &payload) < 0)
        why = "too short, or too large a data payload";
      if (why != NULL)
        {
          size_t skip = st_perf_decompress_skip_to_record (r->decomp);
          g_autofree char *msg = g_strdup_printf (
            "offset %" G_GUINT64_FORMAT ": bad perf record (type %u, size "
            "%u) in the data decompressed from this compressed record: %s; "
            "skipped %zu of the %zu decompressed bytes held", off, h.type,
            h.size, why, skip, held);
          if (!st_damage_report (&r->damage, ST_DAMAGE_SKIPPED, off, skip,
                                 ST_ERROR_FORMAT, msg, error))
            return -1;
          continue;
        }
      total = h.size + payload;
      if (held < total)
        return 0;
      r->decomp_pending = total;
      return deliver (r, p, &h, off, total, ev, error);
    }
}

/* The end of the input or of the data section: a record begun in
   compressed data and never completed is cut off.  FALSE with ERROR set
   when that stops the reading.  */
static gboolean
held_at_end (StPerfReader *r, GError **error)
{
  size_t held = 0;
  uint64_t off = 0;

  if (r->decomp == NULL)
    return TRUE;
  st_perf_decompress_held (r->decomp, &held, &off);
  if (held == 0)
    return TRUE;
  g_autofree char *msg = g_strdup_printf (
    "offset %" G_GUINT64_FORMAT ": input ended inside a perf record begun "
    "in the data decompressed from this compressed record (%zu bytes "
    "held)", off, held);
  st_perf_decompress_consume (r->decomp, held);
  return st_damage_report (&r->damage, ST_DAMAGE_TRUNCATED, off, held,
                           ST_ERROR_TRUNCATED, msg, error);
}

int
st_perf_reader_next (StPerfReader *r, StEvent *ev, GError **error)
{
  if (r->feature_damage != NULL)
    {
      GError *e = g_steal_pointer (&r->feature_damage);
      g_autofree char *msg = g_strdup_printf ("%s; the feature sections "
                                              "are ignored", e->message);
      uint64_t table = r->header.data.offset + r->header.data.size;
      gboolean go_on = st_damage_report (&r->damage, ST_DAMAGE_SKIPPED,
                                         table, 0, e->code, msg, error);
      g_error_free (e);
      if (!go_on)
        return -1;
    }
  for (;;)
    {
      uint64_t off, total, payload;
      size_t avail = 0;
      GError *local = NULL;
      const uint8_t *p;
      StPerfEventHeader h;
      g_autofree char *why = NULL;

      if (r->pending > 0)
        {
          st_input_consume (r->in, r->pending);
          r->pending = 0;
        }
      if (r->decomp != NULL)
        {
          int got = next_decompressed (r, ev, error);
          if (got != 0)
            return got;
        }
      off = st_input_offset (r->in);
      if (off >= r->data_end)
        return held_at_end (r, error) ? end_of_data (r, error) : -1;

      p = st_input_peek (r->in, sizeof h, &avail, &local);
      if (p == NULL)
        {
          if (local == NULL && avail == 0)
            {
              if (r->data_end == UNTIL_EOF)
                return held_at_end (r, error) ? 0 : -1;
              g_set_error (&local, ST_ERROR, ST_ERROR_TRUNCATED,
                           "offset %" G_GUINT64_FORMAT ": input ended inside "
                           "the perf.data data section, which ends at offset %"
                           G_GUINT64_FORMAT, off, r->data_end);
            }
          else
            st_perf_reader_input_ended (&local, off, avail, sizeof h,
                                        "record header");
          return truncated_end (r, off, avail, local, error);
        }
      memcpy (&h, p, sizeof h);
      total = h.size;
      if (h.size < sizeof h)
        why = g_strdup ("smaller than its 8-byte header");
      else if (h.type > 0xffff)
        why = g_strdup ("not a perf record type");
      else if (h.size % 8 != 0 && !known_record_type (h.type))
        why = g_strdup ("unknown type with a size that is not a multiple "
                        "of 8");
      else if (h.type == ST_PERF_RECORD_HEADER_TRACING_DATA
               || h.type == ST_PERF_RECORD_AUXTRACE)
        {
          p = st_input_peek (r->in, h.size, &avail, &local);
          if (p == NULL)
            {
              st_perf_reader_input_ended (&local, off, avail, h.size,
                                          "record");
              return truncated_end (r, off, avail, local, error);
            }
          if (payload_size (h.type, p, h.size, &payload) < 0)
            why = g_strdup ("too short, or too large a data payload");
          total += payload;
        }
      if (why == NULL && total > r->data_end - off)
        why = g_strdup_printf ("runs past the end of the data section at "
                               "offset %" G_GUINT64_FORMAT, r->data_end);
      if (why != NULL)
        {
          g_autofree char *msg = g_strdup_printf (
            "offset %" G_GUINT64_FORMAT ": bad perf record (type %u, size %u)"
            ": %s", off, h.type, h.size, why);
          if (!st_damage_resynchronize (&r->damage, r->in, off, r->data_end,
                                        r->unaligned ? 1 : 8,
                                        record_starts_here, r, msg, error))
            return -1;
          continue;
        }

      p = st_input_peek (r->in, total, &avail, &local);
      if (p == NULL)
        {
          st_perf_reader_input_ended (&local, off, avail, total,
                                      "record");
          return truncated_end (r, off, avail, local, error);
        }
      r->pending = total;
      /* perf 4.x tracing data, pipe-mode features, compressed records:
         what follows may be at any offset.  */
      if (h.size % 8 != 0 && unaligned_type (h.type))
        r->unaligned = TRUE;
      if (h.type == ST_PERF_RECORD_COMPRESSED
          || h.type == ST_PERF_RECORD_COMPRESSED2)
        {
          if (take_compressed (r, p, &h, off, error) < 0)
            return -1;
          continue;
        }
      return deliver (r, p, &h, off, total, ev, error);
    }
}

void
st_perf_reader_set_damage_handler (StPerfReader *r,
                                   const StDamageHandler *handler)
{
  r->damage = handler != NULL ? *handler : (StDamageHandler) { 0 };
}

gboolean
st_perf_reader_is_pipe (const StPerfReader *r)
{
  return r->pipe;
}

