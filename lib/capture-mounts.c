#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "capture-mounts.h"
#include "format/capture-types.h"

struct StCaptureMounts
{
  StFileResolver *resolver;
  GHashTable *partial;        /* path -> GString: files not complete yet */
};

/* Files gathered at a time at most.  */
#define MAX_PARTIAL 64

static void
text_free (gpointer data)
{
  g_string_free (data, TRUE);
}

StCaptureMounts *
st_capture_mounts_new (StFileResolver *resolver)
{
  StCaptureMounts *m = g_new0 (StCaptureMounts, 1);

  m->resolver = resolver;
  m->partial = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                      text_free);
  return m;
}

void
st_capture_mounts_free (StCaptureMounts *m)
{
  if (m == NULL)
    return;
  g_hash_table_destroy (m->partial);
  g_free (m);
}

/* The process whose mount table PATH is: "/proc/PID/mountinfo" gives PID,
   "/proc/mounts" (the recorder's) 0; -1 for other files.  */
static int32_t
table_owner (const char *path)
{
  char *end;

  if (strcmp (path, "/proc/mounts") == 0)
    return 0;
  if (!g_str_has_prefix (path, "/proc/") || !g_ascii_isdigit (path[6]))
    return -1;
  long pid = strtol (path + 6, &end, 10);
  return strcmp (end, "/mountinfo") == 0 && pid > 0 && pid <= G_MAXINT32
         ? (int32_t) pid : -1;
}

void
st_capture_mounts_feed (StCaptureMounts *m, const StEvent *ev)
{
  const StCaptureFileChunk *c = (const StCaptureFileChunk *) ev->raw;
  char path[sizeof c->path + 1];

  if (ev->kind != ST_EVENT_OTHER || ev->source != ST_FORMAT_SYSPROF
      || ev->raw_len < sizeof *c || c->frame.type != ST_CAPTURE_FILE_CHUNK)
    return;
  memcpy (path, c->path, sizeof c->path);
  path[sizeof c->path] = '\0';
  int32_t owner = table_owner (path);
  if (owner < 0)
    return;
  size_t len = MIN ((size_t) c->len, ev->raw_len - sizeof *c);
  GString *text = g_hash_table_lookup (m->partial, path);
  if (text == NULL)
    {
      if (g_hash_table_size (m->partial) >= MAX_PARTIAL)
        return;
      text = g_string_new (NULL);
      g_hash_table_insert (m->partial, g_strdup (path), text);
    }
  if (text->len + len <= ST_CAPTURE_MOUNTS_MAX_FILE)
    g_string_append_len (text, (const char *) c->data, (gssize) len);
  if (c->is_last)
    {
      st_file_resolver_add_mountinfo (m->resolver, owner, text->str,
                                      text->len);
      g_hash_table_remove (m->partial, path);
    }
}
