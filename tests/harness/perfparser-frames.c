/* The samples hotspot sees: decodes the stream hotspot's perf.data parser
   (hotspot-perfparser --output FILE) writes for hotspot, for
   tests/integration/hotspot-parser.sh:

     perfparser-frames STREAM

   prints
     error CODE MESSAGE          each error the parser reported to hotspot
     sample PID TID TIME ADDRS   each sample: its user frames' addresses,
                                 leaf first, as 0x%x joined by commas (the
                                 form of stacktrace --chains)
     messages N                  how many messages the stream held

   The stream (hotspot 1.3): "QPERFSTREAM\0", a little-endian u32
   version, then messages, each a little-endian u32 size and that many
   bytes of Qt data stream (big-endian): a u8 type, then its fields.
   Used here: LocationDefinition (3: i32 id; u64 address; i32 file; u32
   pid; i32 line, column, parent), Error (8: i32 code; QString as u32
   byte count and UTF-16BE), Sample (13: u32 pid, tid; u64 time; u32 cpu;
   u32 n; i32 location ids[n], leaf first).  Others are skipped by size.
   Exit status 1 on a stream that is cut or malformed.  */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#define MAGIC "QPERFSTREAM"
#define MSG_LOCATION 3
#define MSG_ERROR 8
#define MSG_SAMPLE 13
/* Kernel addresses (x86_64): the user frames are the others.  */
#define KERNEL_START 0xffff800000000000ull

typedef struct
{
  const uint8_t *p;
  size_t len;
  size_t pos;
  gboolean bad;
} Cursor;

static uint64_t
take (Cursor *c, unsigned n)
{
  uint64_t v = 0;

  if (c->bad || c->len - c->pos < n)
    {
      c->bad = TRUE;
      return 0;
    }
  for (unsigned i = 0; i < n; i++)
    v = v << 8 | c->p[c->pos++];
  return v;
}

static void
print_error (Cursor *c)
{
  int32_t code = (int32_t) take (c, 4);
  uint32_t bytes = (uint32_t) take (c, 4);

  printf ("error %d ", code);
  /* QString: UTF-16BE; 0xffffffff is a null string.  */
  for (uint32_t i = 0; bytes != 0xffffffffu && i + 1 < bytes && !c->bad;
       i += 2)
    {
      unsigned ch = (unsigned) take (c, 2);
      putchar (ch >= 0x20 && ch < 0x7f ? (int) ch : '?');
    }
  putchar ('\n');
}

int
main (int argc, char **argv)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  g_autoptr (GError) error = NULL;
  GHashTable *addresses;   /* location id -> address */
  size_t pos = sizeof MAGIC + 4;
  uint64_t n_messages = 0;

  if (argc != 2)
    {
      fprintf (stderr, "usage: perfparser-frames STREAM\n");
      return 2;
    }
  if (!g_file_get_contents (argv[1], &data, &len, &error))
    {
      fprintf (stderr, "perfparser-frames: %s\n", error->message);
      return 1;
    }
  if (len < pos || memcmp (data, MAGIC, sizeof MAGIC) != 0)
    {
      fprintf (stderr, "perfparser-frames: %s: not a QPERFSTREAM\n", argv[1]);
      return 1;
    }
  addresses = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                     g_free);
  while (pos < len)
    {
      uint32_t size;

      if (len - pos < 4)
        break;
      memcpy (&size, data + pos, 4);
      size = GUINT32_FROM_LE (size);
      pos += 4;
      if (size == 0 || size > len - pos)
        {
          fprintf (stderr, "perfparser-frames: message at %zu cut\n", pos - 4);
          return 1;
        }

      Cursor c = { (const uint8_t *) data + pos, size, 0, FALSE };
      unsigned type = (unsigned) take (&c, 1);
      n_messages++;
      pos += size;
      if (type == MSG_LOCATION)
        {
          int32_t id = (int32_t) take (&c, 4);
          uint64_t *address = g_new (uint64_t, 1);

          *address = take (&c, 8);
          g_hash_table_insert (addresses, GINT_TO_POINTER (id), address);
        }
      else if (type == MSG_ERROR)
        print_error (&c);
      else if (type == MSG_SAMPLE)
        {
          uint32_t pid = (uint32_t) take (&c, 4);
          uint32_t tid = (uint32_t) take (&c, 4);
          uint64_t time = take (&c, 8);
          const char *sep = "";

          take (&c, 4);   /* cpu */
          uint32_t n = (uint32_t) take (&c, 4);
          printf ("sample %" PRIu32 " %" PRIu32 " %" PRIu64 " ", pid, tid,
                  time);
          for (uint32_t i = 0; i < n && !c.bad; i++)
            {
              int32_t id = (int32_t) take (&c, 4);
              const uint64_t *address
                = g_hash_table_lookup (addresses, GINT_TO_POINTER (id));

              if (address == NULL)
                {
                  printf ("%s?", sep);
                  sep = ",";
                }
              else if (*address < KERNEL_START)
                {
                  printf ("%s0x%" PRIx64, sep, *address);
                  sep = ",";
                }
            }
          putchar ('\n');
        }
      if (c.bad)
        {
          fprintf (stderr, "perfparser-frames: message of type %u at %zu "
                   "too short\n", type, pos - size - 4);
          return 1;
        }
    }
  printf ("messages %" PRIu64 "\n", n_messages);
  g_hash_table_unref (addresses);
  return 0;
}
