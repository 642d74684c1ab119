/* perf.data output.

   From perf.data: every record is copied as it is, except that, when
   raw stacks are unwound, the attributes with raw stacks lose them in
   every copy (attribute section, HEADER_ATTR, EVENT_DESC) and all their
   samples are re-serialized without REGS_USER and STACK_USER, the
   raw-stack ones with their unwound chain as CALLCHAIN.  What only one
   mode has is converted: a file-mode input's attributes and feature
   sections become HEADER_ATTR/HEADER_FEATURE/... records in pipe mode,
   and a pipe-mode input's such records become the attribute and feature
   sections of a file.

   From a Sysprof capture: perf-from-capture.c, chosen by writer.c.  */
#include "config.h"

#include <string.h>

#include "format/perf-attr.h"
#include "format/perf-output.h"
#include "format/perf-sample.h"
#include "format/perf-writer.h"
#include "format/unwound-chain.h"

typedef struct
{
  StPerfWriter *writer;
  StPerfReader *perf_in;
  gboolean unwinding;
  gboolean features_carried;    /* the input's feature sections */

  /* Where the AUXTRACE records went (input offset -> output offset),
     for the AUXTRACE feature's index.  */
  GHashTable *auxtrace_moves;

  StUnwoundChain chain;
} StPerfOutput;

static uint16_t
record_type (const StEvent *ev)
{
  uint32_t type;

  memcpy (&type, ev->raw, 4);
  return (uint16_t) type;
}

static uint16_t
record_misc (const StEvent *ev)
{
  uint16_t misc;

  memcpy (&misc, ev->raw + 4, 2);
  return misc;
}

/* Whether samples of A lose their raw stacks in the output.  */
static gboolean
patched (const StPerfOutput *o, const StPerfAttr *a)
{
  return o->unwinding && a != NULL
         && st_perf_attr_has_raw_stacks (a->sample_type);
}

/* An attribute into the output, patched when its raw stacks go.  */
static void
add_attr (StPerfOutput *o, const uint8_t *attr, size_t size,
          const uint64_t *ids, size_t n_ids)
{
  uint8_t *copy = g_memdup2 (attr, size);

  if (o->unwinding)
    st_perf_attr_patch_unwound (copy, size);
  st_perf_writer_attr (o->writer, copy, size, ids, n_ids);
  g_free (copy);
}

/* The AUXTRACE feature is an index of the AUXTRACE records by file
   offset (u64 count, then {u64 offset, u64 size} each): point it at the
   records' new places, leaving out those that are not in the output.  */
static uint8_t *
moved_auxtrace_index (StPerfOutput *o, const uint8_t *data, size_t size,
                      size_t *out_size)
{
  uint64_t n, kept = 0;
  uint8_t *out;

  *out_size = 0;
  if (size < 8)
    return NULL;
  memcpy (&n, data, 8);
  if (n > (size - 8) / 16)
    return NULL;
  out = g_malloc (8 + 16 * n);
  for (uint64_t i = 0; i < n; i++)
    {
      uint64_t entry[2], *to;

      memcpy (entry, data + 8 + 16 * i, 16);
      to = o->auxtrace_moves != NULL
           ? g_hash_table_lookup (o->auxtrace_moves, &entry[0]) : NULL;
      if (to == NULL)
        continue;
      entry[0] = to[1];
      memcpy (out + 8 + 16 * kept++, entry, 16);
    }
  memcpy (out, &kept, 8);
  *out_size = 8 + 16 * kept;
  return out;
}

/* The file-mode input's feature sections into the output: all of them
   into a file (at the end, where the AUXTRACE records' places are
   known), those perf carries in pipe mode into a pipe.  */
static void
carry_features (StPerfOutput *o)
{
  if (o->features_carried || !st_perf_reader_features_known (o->perf_in)
      || st_perf_reader_is_pipe (o->perf_in))
    return;
  o->features_carried = TRUE;
  for (guint bit = 0; bit < ST_PERF_FEATURE_BITS; bit++)
    {
      uint64_t size = 0;
      const uint8_t *data = st_perf_reader_feature (o->perf_in, bit, &size);
      uint8_t *copy = NULL;
      size_t copy_size = size;

      /* The output is never compressed.  */
      if (data == NULL || bit == ST_PERF_FEAT_COMPRESSED)
        continue;
      if (bit == ST_PERF_FEAT_EVENT_DESC && o->unwinding)
        {
          copy = g_memdup2 (data, size);
          st_perf_event_desc_patch_unwound (copy, size);
        }
      else if (bit == ST_PERF_FEAT_AUXTRACE)
        {
          copy = moved_auxtrace_index (o, data, size, &copy_size);
          if (copy == NULL)
            continue;
        }
      st_perf_writer_feature (o->writer, bit, copy != NULL ? copy : data,
                              copy_size);
      g_free (copy);
    }
}

/* A sample of a patched attribute, with CHAIN as its callchain (NULL:
   the one it has).  */
static void
rewrite_sample (StPerfOutput *o, const StPerfAttr *a, const StEvent *ev,
                const uint64_t *chain, size_t n_chain)
{
  StPerfSampleSpans spans;
  char *why = st_perf_sample_locate (a, ev->raw, ev->raw_len, &spans);

  if (why != NULL)
    {
      /* The reader parsed this same record: not reached.  */
      g_free (why);
      st_perf_writer_record (o->writer, ev->raw, ev->raw_len);
      return;
    }
  st_perf_writer_unwound_sample (o->writer, ev->raw, ev->raw_len, &spans,
                                 chain, n_chain);
}

/* HEADER_ATTR: attr (its own size) then ids.  */
static void
header_attr (StPerfOutput *o, const StEvent *ev)
{
  const uint8_t *attr = ev->raw + sizeof (StPerfEventHeader);
  uint32_t size;
  size_t avail = ev->raw_len - sizeof (StPerfEventHeader);

  /* One the reader could not take in (passed on as damage) is copied as
     it is.  */
  if (avail < ST_PERF_ATTR_SIZE_VER0)
    {
      st_perf_writer_record (o->writer, ev->raw, ev->raw_len);
      return;
    }
  memcpy (&size, attr + ST_PERF_ATTR_SIZE, 4);
  if (size == 0)
    size = ST_PERF_ATTR_SIZE_VER0;
  if (size < ST_PERF_ATTR_SIZE_VER0 || size > avail)
    {
      st_perf_writer_record (o->writer, ev->raw, ev->raw_len);
      return;
    }
  add_attr (o, attr, size, (const uint64_t *) (attr + size),
            (avail - size) / 8);
}

/* A pipe-mode input's own records: into the header parts of a file, as
   they are into a pipe (attributes and EVENT_DESC patched).  */
static gboolean
pipe_header_record (StPerfOutput *o, const StEvent *ev)
{
  gboolean file = st_perf_writer_file_mode (o->writer);
  size_t body_len = ev->raw_len - MIN (ev->raw_len,
                                       sizeof (StPerfFeatureRecord));

  switch (record_type (ev))
    {
    case ST_PERF_RECORD_HEADER_ATTR:
      header_attr (o, ev);
      return TRUE;

    case ST_PERF_RECORD_HEADER_FEATURE:
      {
        const StPerfFeatureRecord *f = (const StPerfFeatureRecord *) ev->raw;
        uint8_t *copy;

        if (ev->raw_len < sizeof *f)
          break;
        /* The output is never compressed.  */
        if (f->feat_id == ST_PERF_FEAT_COMPRESSED)
          return FALSE;
        /* Without data: perf's end-of-features mark, a pipe thing.  */
        if (file && (body_len == 0 || f->feat_id >= ST_PERF_FEATURE_BITS))
          return body_len == 0;
        copy = g_memdup2 (ev->raw, ev->raw_len);
        if (f->feat_id == ST_PERF_FEAT_EVENT_DESC && o->unwinding)
          st_perf_event_desc_patch_unwound (copy + sizeof *f, body_len);
        if (file)
          st_perf_writer_feature (o->writer, (guint) f->feat_id,
                                  copy + sizeof *f, body_len);
        else
          st_perf_writer_record (o->writer, copy, ev->raw_len);
        g_free (copy);
        return TRUE;
      }

    case ST_PERF_RECORD_HEADER_BUILD_ID:
      st_perf_writer_build_id (o->writer, ev->raw, ev->raw_len);
      return TRUE;

    case ST_PERF_RECORD_HEADER_TRACING_DATA:
      {
        /* The payload follows the record, whose size is 12 (perf 4.x)
           or 16: written again the way perf 6.1 writes it (a 16-byte
           record in pipe mode, the feature section of a file).  */
        uint16_t size;

        memcpy (&size, ev->raw + 6, 2);
        if (size > ev->raw_len)
          break;
        st_perf_writer_feature (o->writer, ST_PERF_FEAT_TRACING_DATA,
                                ev->raw + size, ev->raw_len - size);
        return TRUE;
      }

    case ST_PERF_RECORD_HEADER_EVENT_TYPE:
      /* Obsolete; a file has no place for it.  */
      if (file)
        return FALSE;
      break;
    }
  st_perf_writer_record (o->writer, ev->raw, ev->raw_len);
  return TRUE;
}

static gboolean
perf_event (StPerfOutput *o, const StEvent *ev)
{
  uint16_t type = record_type (ev);

  if (ev->kind == ST_EVENT_SAMPLE || ev->kind == ST_EVENT_STACK_USER)
    {
      const StPerfAttr *a = st_perf_reader_record_attr (o->perf_in, ev->raw,
                                                        ev->raw_len);

      if (patched (o, a))
        rewrite_sample (o, a, ev, NULL, 0);
      else
        st_perf_writer_record (o->writer, ev->raw, ev->raw_len);
      return TRUE;
    }
  /* perf 6.1 stops at a user record type it does not know (newer
     perf's, anyone's): those are left out, and counted.  */
  if (type > ST_PERF_RECORD_FINISHED_INIT)
    return FALSE;
  if (st_perf_reader_is_pipe (o->perf_in)
      && type >= ST_PERF_RECORD_HEADER_ATTR)
    return pipe_header_record (o, ev);
  if (type == ST_PERF_RECORD_HEADER_ATTR && o->unwinding)
    {
      uint8_t *copy = g_memdup2 (ev->raw, ev->raw_len);

      st_perf_attr_patch_unwound (copy + sizeof (StPerfEventHeader),
                                  ev->raw_len - sizeof (StPerfEventHeader));
      st_perf_writer_record (o->writer, copy, ev->raw_len);
      g_free (copy);
      return TRUE;
    }
  if (type == ST_PERF_RECORD_AUXTRACE)
    {
      uint64_t *move = g_new (uint64_t, 2);

      move[0] = ev->offset;
      move[1] = st_perf_writer_offset (o->writer);
      if (o->auxtrace_moves == NULL)
        o->auxtrace_moves = g_hash_table_new_full (g_int64_hash,
                                                   g_int64_equal, g_free,
                                                   NULL);
      g_hash_table_replace (o->auxtrace_moves, move, move);
    }
  st_perf_writer_record (o->writer, ev->raw, ev->raw_len);
  return TRUE;
}

static void
perf_unwound (StPerfOutput *o, const StEvent *ev, const uint64_t *user,
              uint32_t n_user)
{
  const StPerfAttr *a = st_perf_reader_record_attr (o->perf_in, ev->raw,
                                                    ev->raw_len);
  uint64_t ip;
  size_t n_chain;

  if (a == NULL)
    {
      st_perf_writer_record (o->writer, ev->raw, ev->raw_len);
      return;
    }
  /* Nothing unwound: at least the sampled user IP, as perf shows it when
     its own unwinding fails.  */
  if (n_user == 0 && (a->sample_type & ST_PERF_SAMPLE_IP)
      && (record_misc (ev) & ST_PERF_MISC_CPUMODE_MASK) == ST_PERF_MISC_USER)
    {
      memcpy (&ip, ev->raw + sizeof (StPerfEventHeader)
                    + ((a->sample_type & ST_PERF_SAMPLE_IDENTIFIER) ? 8 : 0),
              8);
      user = &ip;
      n_user = 1;
    }
  n_chain = st_unwound_chain_build (&o->chain, ev, user, n_user);
  rewrite_sample (o, a, ev, o->chain.ips, n_chain);
}

/* --- StWriterOps --------------------------------------------------------- */

void *
st_perf_output_new (StOutput *out, StPerfReader *perf_in, gboolean unwinding)
{
  StPerfOutput *o = g_new0 (StPerfOutput, 1);
  gboolean file_mode = st_perf_writer_file_mode_possible (out);

  o->writer = st_perf_writer_new (out, file_mode);
  o->unwinding = unwinding;
  o->perf_in = perf_in;
  /* A file-mode input's attributes are all known now.  */
  for (guint i = 0; !st_perf_reader_is_pipe (o->perf_in)
                    && i < st_perf_reader_n_attrs (o->perf_in); i++)
    {
      const StPerfAttr *a = st_perf_reader_attr (o->perf_in, i);

      add_attr (o, a->raw, a->raw_size, a->ids, a->n_ids);
    }
  if (!file_mode)
    carry_features (o);
  return o;
}

static gboolean
perf_output_event (void *impl, const StEvent *ev)
{
  return perf_event (impl, ev);
}

static void
perf_output_unwound (void *impl, const StEvent *ev, const uint64_t *user_ips,
                     uint32_t n_user_ips)
{
  perf_unwound (impl, ev, user_ips, n_user_ips);
}

static gboolean
perf_output_finish (void *impl, GError **error)
{
  StPerfOutput *o = impl;

  /* Into a file, and into a pipe when they could not be read before the
     data (a file-mode input through a pipe): late, but not lost.  */
  carry_features (o);
  return st_perf_writer_finish (o->writer, error);
}

static void
perf_output_free (void *impl)
{
  StPerfOutput *o = impl;

  if (o == NULL)
    return;
  st_perf_writer_free (o->writer);
  if (o->auxtrace_moves != NULL)
    g_hash_table_destroy (o->auxtrace_moves);
  st_unwound_chain_clear (&o->chain);
  g_free (o);
}

const StWriterOps st_perf_output_ops = {
  perf_output_event,
  perf_output_unwound,
  perf_output_finish,
  perf_output_free,
};
