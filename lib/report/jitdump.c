/* A CODE_MOVE names its new place after the code_index of the CODE_LOAD
   it moves (the name is not repeated): the loads' names are kept by
   index while reading.  */
#include "config.h"

#include <string.h>

#include "report/jitdump.h"
#include "util/domain.h"
#include "util/printable.h"

#define RECORD_CODE_LOAD 0
#define RECORD_CODE_MOVE 1

/* Fields after the record header.  */
#define LOAD_FIXED 40           /* pid, tid, vma, code_addr, code_size,
                                   code_index */
#define MOVE_FIXED 48           /* pid, tid, vma, old, new, size, index */

static uint32_t
u32_at (const uint8_t *p)
{
  uint32_t v;
  memcpy (&v, p, sizeof v);
  return v;
}

static uint64_t
u64_at (const uint8_t *p)
{
  uint64_t v;
  memcpy (&v, p, sizeof v);
  return v;
}

static gboolean
fail (GError **error, const char *file_name, uint64_t offset,
      const char *what)
{
  g_autofree char *shown = st_printable (file_name);

  g_set_error (error, ST_ERROR, ST_ERROR_FORMAT,
               "%s: offset %" G_GUINT64_FORMAT ": %s", shown, offset, what);
  return FALSE;
}

static gboolean
read_header (const uint8_t *data, size_t len, const char *file_name,
             size_t *header_size, GError **error)
{
  if (len < ST_JITDUMP_HEADER_MIN)
    return fail (error, file_name, 0, "shorter than a jitdump header");
  uint32_t magic = u32_at (data);
  if (magic == GUINT32_SWAP_LE_BE (ST_JITDUMP_MAGIC))
    return fail (error, file_name, 0,
                 "a jitdump of the other byte order (not read)");
  if (magic != ST_JITDUMP_MAGIC)
    return fail (error, file_name, 0, "not a jitdump file (bad magic)");
  uint32_t size = u32_at (data + 8);
  if (size < ST_JITDUMP_HEADER_MIN || size > len)
    return fail (error, file_name, 8, "bad header size");
  *header_size = size;
  return TRUE;
}

gboolean
st_jitdump_read (const uint8_t *file_data, size_t file_len,
                 size_t data_start, const char *file_name,
                 gboolean truncated_ok, size_t *offset, StJitTable *table,
                 StJitdumpCounts *counts, GError **error)
{
  if (*offset == 0 && data_start == 0
      && !read_header (file_data, file_len, file_name, offset, error))
    return FALSE;
  if (*offset < data_start || *offset - data_start > file_len)
    return fail (error, file_name, *offset, "read from a wrong offset");
  /* Offsets below are the file's; AT (OFF) is its byte there.  */
#define AT(off) (file_data + ((off) - data_start))
  size_t len = data_start + file_len;

  /* code_index -> name of its load, for the moves.  */
  g_autoptr (GHashTable) loaded
    = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  size_t off;
  for (off = *offset; off < len; *offset = off)
    {
      if (len - off < ST_JITDUMP_RECORD_HEADER)
        return truncated_ok
               || fail (error, file_name, off, "a record header cut short");
      uint32_t id = u32_at (AT (off));
      uint32_t size = u32_at (AT (off) + 4);
      if (size < ST_JITDUMP_RECORD_HEADER)
        return fail (error, file_name, off, "a record shorter than its "
                     "header");
      if (size > len - off)
        return truncated_ok
               || fail (error, file_name, off, "a record past the end of "
                        "the file");
      const uint8_t *body = AT (off) + ST_JITDUMP_RECORD_HEADER;
      size_t body_len = size - ST_JITDUMP_RECORD_HEADER;
      if (id == RECORD_CODE_LOAD)
        {
          if (body_len < LOAD_FIXED + 1)
            return fail (error, file_name, off, "a CODE_LOAD record too "
                         "short for its fields");
          uint64_t addr = u64_at (body + 16), code_size = u64_at (body + 24);
          uint64_t index = u64_at (body + 32);
          const char *name = (const char *) body + LOAD_FIXED;
          size_t room = body_len - LOAD_FIXED;
          const char *nul = memchr (name, '\0', room);
          if (nul == NULL)
            return fail (error, file_name, off, "a CODE_LOAD record whose "
                         "name is not terminated");
          size_t name_len = (size_t) (nul - name);
          /* The code bytes follow the name: they must fit too.  */
          if (code_size > room - name_len - 1)
            return fail (error, file_name, off, "a CODE_LOAD record "
                         "shorter than its code");
          if (st_jit_table_add (table, addr, code_size, name, name_len))
            counts->loads++;
          g_hash_table_replace (loaded, g_memdup2 (&index, sizeof index),
                                g_strndup (name, name_len));
        }
      else if (id == RECORD_CODE_MOVE)
        {
          if (body_len < MOVE_FIXED)
            return fail (error, file_name, off, "a CODE_MOVE record too "
                         "short for its fields");
          uint64_t to = u64_at (body + 24), code_size = u64_at (body + 32);
          uint64_t index = u64_at (body + 40);
          const char *name = g_hash_table_lookup (loaded, &index);
          if (name != NULL
              && st_jit_table_add (table, to, code_size, name, strlen (name)))
            counts->moves++;
        }
      else
        counts->skipped++;
      off += size;
    }
#undef AT
  return TRUE;
}
