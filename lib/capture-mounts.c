#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "capture-mounts.h"
#include "format/capture-types.h"

struct StCaptureMounts
{
  StFileResolver *resolver;
  GHashTable *partial;        /* path -> Partial: files not complete yet */
  uint64_t chunks;            /* chunks taken in so far */
};

/* A file being gathered.  */
typedef struct
{
  GString *text;
  gboolean too_long;          /* past ST_CAPTURE_MOUNTS_MAX_FILE: dropped
                                 when its last chunk comes */
  uint64_t last_chunk;        /* StCaptureMounts.chunks at its latest */
} Partial;

/* Files gathered at a time at most: the one fed longest ago (whose last
   chunk may never come) makes room for a new one.  */
#define MAX_PARTIAL 64

static void
partial_free (gpointer data)
{
  Partial *part = data;

  g_string_free (part->text, TRUE);
  g_free (part);
}

/* Drops the unfinished file fed longest ago.  */
static void
drop_stalest (StCaptureMounts *m)
{
  GHashTableIter it;
  gpointer key, value;
  gpointer stalest = NULL;
  uint64_t oldest = G_MAXUINT64;

  g_hash_table_iter_init (&it, m->partial);
  while (g_hash_table_iter_next (&it, &key, &value))
    if (((Partial *) value)->last_chunk < oldest)
      {
        oldest = ((Partial *) value)->last_chunk;
        stalest = key;
      }
  if (stalest != NULL)
    g_hash_table_remove (m->partial, stalest);
}

StCaptureMounts *
st_capture_mounts_new (StFileResolver *resolver)
{
  StCaptureMounts *m = g_new0 (StCaptureMounts, 1);

  m->resolver = resolver;
  m->partial = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                      partial_free);
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

typedef enum
{
  NOT_OURS,
  MOUNTINFO,
  FLATPAK_INFO,
} FileKind;

/* What PATH is to us: "/proc/PID/mountinfo" (*PID), "/proc/mounts" (the
   recorder's: *PID 0), "/proc/PID/root/.flatpak-info".  */
static FileKind
file_kind (const char *path, int32_t *pid)
{
  char *end;

  *pid = 0;
  if (strcmp (path, "/proc/mounts") == 0)
    return MOUNTINFO;
  if (!g_str_has_prefix (path, "/proc/") || !g_ascii_isdigit (path[6]))
    return NOT_OURS;
  long n = strtol (path + 6, &end, 10);
  if (n <= 0 || n > G_MAXINT32)
    return NOT_OURS;
  *pid = (int32_t) n;
  if (strcmp (end, "/mountinfo") == 0)
    return MOUNTINFO;
  if (strcmp (end, "/root/.flatpak-info") == 0)
    return FLATPAK_INFO;
  return NOT_OURS;
}

/* A Flatpak's keyfile: its [Instance] app-path is /app in the sandbox,
   runtime-path /usr.  */
static void
add_flatpak_info (StFileResolver *r, int32_t pid, const char *text,
                  size_t len)
{
  g_autoptr (GKeyFile) info = g_key_file_new ();

  if (!g_key_file_load_from_data (info, text, len, G_KEY_FILE_NONE, NULL))
    return;
  g_autofree char *app = g_key_file_get_string (info, "Instance", "app-path",
                                                NULL);
  g_autofree char *runtime = g_key_file_get_string (info, "Instance",
                                                    "runtime-path", NULL);
  if (app != NULL)
    st_file_resolver_add_prefix (r, pid, "/app", app, 0);
  if (runtime != NULL)
    st_file_resolver_add_prefix (r, pid, "/usr", runtime, 0);
}

/* An OVERLAY frame: a layer of the process's root.  */
static void
feed_overlay (StCaptureMounts *m, const StEvent *ev)
{
  const StCaptureOverlay *o = (const StCaptureOverlay *) ev->raw;
  size_t room = ev->raw_len - sizeof *o;

  if ((size_t) o->src_len + 1 + o->dst_len + 1 > room
      || o->data[o->src_len] != '\0'
      || o->data[o->src_len + 1 + o->dst_len] != '\0')
    return;
  st_file_resolver_add_prefix (m->resolver, ev->pid,
                               o->data + o->src_len + 1, o->data, o->layer);
}

void
st_capture_mounts_feed (StCaptureMounts *m, const StEvent *ev)
{
  const StCaptureFileChunk *c = (const StCaptureFileChunk *) ev->raw;
  char path[sizeof c->path + 1];
  int32_t owner;

  if (ev->kind != ST_EVENT_OTHER || ev->source != ST_FORMAT_SYSPROF
      || ev->raw_len < sizeof (StCaptureFrame))
    return;
  if (c->frame.type == ST_CAPTURE_OVERLAY
      && ev->raw_len >= sizeof (StCaptureOverlay))
    {
      feed_overlay (m, ev);
      return;
    }
  if (ev->raw_len < sizeof *c || c->frame.type != ST_CAPTURE_FILE_CHUNK)
    return;
  memcpy (path, c->path, sizeof c->path);
  path[sizeof c->path] = '\0';
  FileKind kind = file_kind (path, &owner);
  if (kind == NOT_OURS)
    return;
  size_t len = MIN ((size_t) c->len, ev->raw_len - sizeof *c);
  Partial *part = g_hash_table_lookup (m->partial, path);
  if (part == NULL)
    {
      if (g_hash_table_size (m->partial) >= MAX_PARTIAL)
        drop_stalest (m);
      part = g_new0 (Partial, 1);
      part->text = g_string_new (NULL);
      g_hash_table_insert (m->partial, g_strdup (path), part);
    }
  part->last_chunk = ++m->chunks;
  /* A file too long is dropped whole: cut at the bound, its last line
     would be another mount, and the chunks after the cut could join
     it again.  */
  if (part->too_long || part->text->len + len > ST_CAPTURE_MOUNTS_MAX_FILE)
    {
      part->too_long = TRUE;
      g_string_truncate (part->text, 0);
    }
  else
    g_string_append_len (part->text, (const char *) c->data, (gssize) len);
  if (c->is_last)
    {
      const GString *text = part->text;
      if (part->too_long)
        ;
      else if (kind == MOUNTINFO)
        st_file_resolver_add_mountinfo (m->resolver, owner, text->str,
                                        text->len);
      else
        add_flatpak_info (m->resolver, owner, text->str, text->len);
      g_hash_table_remove (m->partial, path);
    }
}
