/* A capture's mount data taken in (capture-mounts.c).

   Frames built byte by byte at the offsets of the Sysprof capture format
   (formats.md: the 24-byte frame header; FILE_CHUNK type 13 with
   {is_last:1, pad:15, len:16} @24, path[256] @28, data @284; OVERLAY
   type 15 with {layer:8} @24, {src_len:16, dst_len:16} @28, data @32 =
   src NUL dst NUL), not with the library's structs.  What they say is
   read back through the file resolver's candidates for a path
   (ST_FILE_SOURCE_MOUNTS): a mountinfo in chunks cut mid-line and
   interleaved with another file's, the recorder's /proc/mounts, a
   Flatpak's keyfile, overlay layers in order.  Bad frames are ignored:
   a file never finished, names that are not ours (/proc/self, pid 0,
   past int32), a LEN past the frame, a path of 256 bytes without NUL,
   overlay lengths past the frame or without their NULs, frames from
   perf.data; a file longer than ST_CAPTURE_MOUNTS_MAX_FILE is dropped
   as a whole.  */
#include "config.h"

#include <glib.h>
#include <string.h>

#include "capture-mounts.h"

#define FILE_CHUNK 13
#define OVERLAY 15

static void
put16 (uint8_t *p, uint16_t v)
{
  memcpy (p, &v, 2);
}

static void
put32 (uint8_t *p, uint32_t v)
{
  memcpy (p, &v, 4);
}

/* A frame of TYPE and LEN bytes (padded to 8) for PID, in a new buffer.  */
static uint8_t *
frame_new (uint8_t type, int32_t pid, size_t len, size_t *padded)
{
  *padded = (len + 7) & ~(size_t) 7;
  g_assert_cmpuint (*padded, <=, 65535);
  uint8_t *f = g_malloc0 (*padded);
  put16 (f, (uint16_t) *padded);
  put16 (f + 2, (uint16_t) -1);
  put32 (f + 4, (uint32_t) pid);
  f[16] = type;
  return f;
}

static void
feed (StCaptureMounts *m, int32_t pid, const uint8_t *frame, size_t len)
{
  StEvent ev = { .kind = ST_EVENT_OTHER, .source = ST_FORMAT_SYSPROF,
                 .pid = pid, .tid = pid, .raw = frame, .raw_len = len };

  st_capture_mounts_feed (m, &ev);
}

/* One FILE_CHUNK frame: DATA (N bytes) of the file NAME (copied into
   the 256 bytes of path as they are, NUL or not), LEN_FIELD saying how
   many.  */
static void
feed_chunk_raw (StCaptureMounts *m, int32_t pid, const char *name,
                size_t name_len, const char *data, size_t n,
                uint32_t len_field, gboolean last)
{
  size_t size;
  uint8_t *f = frame_new (FILE_CHUNK, pid, 284 + n, &size);

  put32 (f + 24, (last ? 1u : 0u) | (len_field << 16));
  memcpy (f + 28, name, MIN (name_len, 256));
  memcpy (f + 284, data, n);
  feed (m, pid, f, size);
  g_free (f);
}

/* The file NAME with TEXT, in chunks of CHUNK bytes.  */
static void
feed_file (StCaptureMounts *m, int32_t pid, const char *name,
           const char *text, size_t chunk, gboolean finish)
{
  size_t len = strlen (text), at = 0;

  do
    {
      size_t n = MIN (chunk, len - at);
      feed_chunk_raw (m, pid, name, strlen (name), text + at, n, n,
                      finish && at + n == len);
      at += n;
    }
  while (at < len);
}

static void
feed_overlay_raw (StCaptureMounts *m, int32_t pid, guint layer,
                  const char *data, size_t n, uint16_t src_len,
                  uint16_t dst_len)
{
  size_t size;
  uint8_t *f = frame_new (OVERLAY, pid, 32 + n, &size);

  put32 (f + 24, layer);
  put32 (f + 28, (uint32_t) src_len | ((uint32_t) dst_len << 16));
  memcpy (f + 32, data, n);
  /* Only N bytes of data are the frame's: what padding adds is not.  */
  feed (m, pid, f, 32 + n);
  g_free (f);
}

static void
feed_overlay (StCaptureMounts *m, int32_t pid, guint layer, const char *src,
              const char *dst)
{
  g_autofree char *data = g_strdup_printf ("%s%c%s", src, 0, dst);

  feed_overlay_raw (m, pid, layer, data, strlen (src) + strlen (dst) + 2,
                    strlen (src), strlen (dst));
}

/* The paths the mount data gives for PATH of process PID, space
   separated.  */
static char *
translated (StFileResolver *r, int32_t pid, const char *path)
{
  StMap map = { 0 };

  map.start = 0x400000;
  map.end = 0x401000;
  map.pid = pid;
  map.filename = path;
  GArray *list = st_file_resolver_candidates (r, &map, path, NULL);
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < list->len; i++)
    {
      const StFileCandidate *c = &g_array_index (list, StFileCandidate, i);
      if (c->source == ST_FILE_SOURCE_MOUNTS)
        g_string_append_printf (out, "%s%s", out->len ? " " : "", c->path);
    }
  st_file_candidates_free (list);
  return g_string_free (out, FALSE);
}

static void
check_path (StFileResolver *r, int32_t pid, const char *path,
            const char *expected)
{
  g_autofree char *got = translated (r, pid, path);

  g_assert_cmpstr (got, ==, expected);
}

#define MOUNTINFO_7 \
  "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n" \
  "36 22 254:16 /payload /opt rw,relatime shared:2 - ext4 /dev/vdb rw\n"
#define MOUNTINFO_8 \
  "22 1 254:0 / / rw - ext4 /dev/vda1 rw\n" \
  "40 22 254:16 /other /data rw - ext4 /dev/vdb rw\n"
#define RECORDER_MOUNTS "/dev/vda1 / ext4 rw 0 0\n/dev/vdb /srv ext4 rw 0 0\n"

/* Two processes' mountinfo cut in chunks of 7 bytes (mid-line), fed
   interleaved, the recorder's table last.  */
static void
test_chunks (void)
{
  StFileResolver *r = st_file_resolver_new (NULL, NULL);
  StCaptureMounts *m = st_capture_mounts_new (r);
  const char *a = MOUNTINFO_7, *b = MOUNTINFO_8;
  size_t la = strlen (a), lb = strlen (b), at = 0, bt = 0;

  while (at < la || bt < lb)
    {
      if (at < la)
        {
          size_t n = MIN (7, la - at);
          feed_chunk_raw (m, 7, "/proc/7/mountinfo", 18, a + at, n, n,
                          at + n == la);
          at += n;
        }
      if (bt < lb)
        {
          size_t n = MIN (7, lb - bt);
          feed_chunk_raw (m, 8, "/proc/8/mountinfo", 18, b + bt, n, n,
                          bt + n == lb);
          bt += n;
        }
    }
  feed_file (m, 1, "/proc/mounts", RECORDER_MOUNTS, 4096, TRUE);

  check_path (r, 7, "/opt/bin/app", "/srv/payload/bin/app");
  check_path (r, 8, "/data/lib/x.so", "/srv/other/lib/x.so");
  check_path (r, 8, "/opt/bin/app", "");
  st_capture_mounts_free (m);
  st_file_resolver_free (r);
}

/* A file whose last chunk never came is never used; one that is not
   ours is ignored even when finished.  */
static void
test_unfinished_and_foreign (void)
{
  StFileResolver *r = st_file_resolver_new (NULL, NULL);
  StCaptureMounts *m = st_capture_mounts_new (r);

  feed_file (m, 1, "/proc/mounts", RECORDER_MOUNTS, 4096, TRUE);
  feed_file (m, 7, "/proc/7/mountinfo", MOUNTINFO_7, 4096, FALSE);
  check_path (r, 7, "/opt/bin/app", "");

  static const char *const foreign[] = {
    "/proc/self/mountinfo", "/proc/0/mountinfo", "/proc/-9/mountinfo",
    "/proc/99999999999/mountinfo", "/proc/9/mountinfo/x", "/proc/9/mounts",
    "/proc/9/status", "/proc/9/root/flatpak-info", "proc/9/mountinfo",
  };
  for (guint i = 0; i < G_N_ELEMENTS (foreign); i++)
    feed_file (m, 9, foreign[i], MOUNTINFO_7, 4096, TRUE);
  check_path (r, 9, "/opt/bin/app", "");
  check_path (r, 0, "/opt/bin/app", "");

  /* The same frames from perf.data, or as another kind: not ours.  */
  size_t size;
  uint8_t *f = frame_new (FILE_CHUNK, 10, 284 + strlen (MOUNTINFO_7), &size);
  put32 (f + 24, 1u | ((uint32_t) strlen (MOUNTINFO_7) << 16));
  memcpy (f + 28, "/proc/10/mountinfo", 18);
  memcpy (f + 284, MOUNTINFO_7, strlen (MOUNTINFO_7));
  StEvent ev = { .kind = ST_EVENT_OTHER, .source = ST_FORMAT_PERF, .pid = 10,
                 .raw = f, .raw_len = size };
  st_capture_mounts_feed (m, &ev);
  ev.source = ST_FORMAT_SYSPROF;
  ev.kind = ST_EVENT_SAMPLE;
  st_capture_mounts_feed (m, &ev);
  check_path (r, 10, "/opt/bin/app", "");
  /* Cut short: not even a whole chunk header.  */
  ev.kind = ST_EVENT_OTHER;
  for (size_t cut = 0; cut < 284; cut += 13)
    {
      ev.raw_len = cut;
      st_capture_mounts_feed (m, &ev);
    }
  check_path (r, 10, "/opt/bin/app", "");
  /* Whole: taken.  */
  ev.raw_len = size;
  st_capture_mounts_feed (m, &ev);
  check_path (r, 10, "/opt/bin/app", "/srv/payload/bin/app");
  g_free (f);
  st_capture_mounts_free (m);
  st_file_resolver_free (r);
}

/* Files whose last chunk never comes do not lock out later ones: past
   64 unfinished files, the one fed longest ago makes room (a file still
   being fed stays).  */
static void
test_many_unfinished (void)
{
  StFileResolver *r = st_file_resolver_new (NULL, NULL);
  StCaptureMounts *m = st_capture_mounts_new (r);
  const char *a = MOUNTINFO_7;
  size_t half = strlen (a) / 2;

  feed_file (m, 1, "/proc/mounts", RECORDER_MOUNTS, 4096, TRUE);
  /* Process 7's file begins, then 200 stuck ones, each fed once.  */
  feed_chunk_raw (m, 7, "/proc/7/mountinfo", 18, a, half, half, FALSE);
  for (int32_t pid = 100; pid < 300; pid++)
    {
      g_autofree char *path = g_strdup_printf ("/proc/%d/mountinfo", pid);
      feed_file (m, pid, path, MOUNTINFO_8, 4096, FALSE);
      if (pid == 150)   /* process 7's file goes on meanwhile */
        feed_chunk_raw (m, 7, "/proc/7/mountinfo", 18, a + half, 1, 1, FALSE);
    }
  /* Fed longest ago (before the last 63 stuck ones): dropped.  */
  feed_chunk_raw (m, 7, "/proc/7/mountinfo", 18, a + half + 1,
                  strlen (a) - half - 1, strlen (a) - half - 1, TRUE);
  check_path (r, 7, "/opt/bin/app", "");
  /* A later file is still taken whole.  */
  feed_file (m, 8, "/proc/8/mountinfo", MOUNTINFO_8, 4096, TRUE);
  check_path (r, 8, "/data/lib/x.so", "/srv/other/lib/x.so");
  /* One still being fed survives: 40 stuck files after its start.  */
  feed_chunk_raw (m, 9, "/proc/9/mountinfo", 18, a, half, half, FALSE);
  for (int32_t pid = 400; pid < 440; pid++)
    {
      g_autofree char *path = g_strdup_printf ("/proc/%d/mountinfo", pid);
      feed_file (m, pid, path, MOUNTINFO_8, 4096, FALSE);
    }
  feed_chunk_raw (m, 9, "/proc/9/mountinfo", 18, a + half, strlen (a) - half,
                  strlen (a) - half, TRUE);
  check_path (r, 9, "/opt/bin/app", "/srv/payload/bin/app");
  st_capture_mounts_free (m);
  st_file_resolver_free (r);
}

/* LEN past the frame's end is cut to the frame; a path filling all 256
   bytes, without NUL, is read within them.  */
static void
test_bad_fields (void)
{
  StFileResolver *r = st_file_resolver_new (NULL, NULL);
  StCaptureMounts *m = st_capture_mounts_new (r);
  const char *text = MOUNTINFO_7;

  feed_file (m, 1, "/proc/mounts", RECORDER_MOUNTS, 4096, TRUE);
  feed_chunk_raw (m, 7, "/proc/7/mountinfo", 18, text, strlen (text),
                  0xffff, TRUE);
  check_path (r, 7, "/opt/bin/app", "/srv/payload/bin/app");

  char name[256];
  memset (name, 'a', sizeof name);
  memcpy (name, "/proc/7/", 8);
  feed_chunk_raw (m, 7, name, sizeof name, "x", 1, 1, TRUE);
  check_path (r, 7, "/opt/bin/app", "/srv/payload/bin/app");
  st_capture_mounts_free (m);
  st_file_resolver_free (r);
}

static void
test_flatpak (void)
{
  StFileResolver *r = st_file_resolver_new (NULL, NULL);
  StCaptureMounts *m = st_capture_mounts_new (r);

  feed_file (m, 11, "/proc/11/root/.flatpak-info",
             "[Application]\nname=org.example.App\n\n[Instance]\n"
             "app-path=/var/lib/flatpak/app/org.example.App/files\n"
             "runtime-path=/var/lib/flatpak/runtime/files\n", 16, TRUE);
  check_path (r, 11, "/app/bin/app",
              "/var/lib/flatpak/app/org.example.App/files/bin/app");
  check_path (r, 11, "/usr/lib/libz.so.1",
              "/var/lib/flatpak/runtime/files/lib/libz.so.1");
  check_path (r, 11, "/etc/x", "");

  /* No [Instance], or no keyfile at all: nothing.  */
  feed_file (m, 12, "/proc/12/root/.flatpak-info",
             "[Application]\nname=x\napp-path=/nowhere\n", 4096, TRUE);
  feed_file (m, 13, "/proc/13/root/.flatpak-info", "\x01\x02 not [a keyfile",
             4096, TRUE);
  check_path (r, 12, "/app/bin/app", "");
  check_path (r, 13, "/app/bin/app", "");
  st_capture_mounts_free (m);
  st_file_resolver_free (r);
}

static void
test_overlay (void)
{
  StFileResolver *r = st_file_resolver_new (NULL, NULL);
  StCaptureMounts *m = st_capture_mounts_new (r);

  /* Podman's layers, the upper (0) after the lower: tried upper first.  */
  feed_overlay (m, 20, 1, "/var/lib/containers/lower", "/");
  feed_overlay (m, 20, 0, "/var/lib/containers/upper", "/");
  check_path (r, 20, "/usr/bin/x",
              "/var/lib/containers/upper/usr/bin/x "
              "/var/lib/containers/lower/usr/bin/x");

  /* Lengths past the frame, a missing NUL after either: ignored.  */
  feed_overlay_raw (m, 21, 0, "/h\0/\0", 5, 2, 200);
  feed_overlay_raw (m, 21, 0, "/h\0/\0", 5, 200, 1);
  feed_overlay_raw (m, 21, 0, "/hx/\0", 5, 2, 1);
  feed_overlay_raw (m, 21, 0, "/h\0/x", 5, 2, 1);
  feed_overlay_raw (m, 21, 0, "", 0, 0, 0);
  check_path (r, 21, "/usr/bin/x", "");
  feed_overlay_raw (m, 21, 0, "/h\0/\0", 5, 2, 1);
  check_path (r, 21, "/usr/bin/x", "/h/usr/bin/x");
  st_capture_mounts_free (m);
  st_file_resolver_free (r);
}

/* A mountinfo of more than ST_CAPTURE_MOUNTS_MAX_FILE bytes in the
   chunks a recorder writes (all full but the last): dropped whole, not
   kept cut (a line cut in two would be another mount), and not spliced
   from its first chunks and its short last one.  */
static void
test_too_long (void)
{
  StFileResolver *r = st_file_resolver_new (NULL, NULL);
  StCaptureMounts *m = st_capture_mounts_new (r);
  GString *text = g_string_new (MOUNTINFO_7);
  /* Filler mounts, then the one asked about at the very end.  */
  for (guint i = 0; text->len < ST_CAPTURE_MOUNTS_MAX_FILE + 40000; i++)
    g_string_append_printf (text, "%u 22 254:16 /filler%u /mnt/f%u rw - "
                            "ext4 /dev/vdb rw\n", 100 + i, i, i);
  g_string_append (text, "99 22 254:16 /late /late rw - ext4 /dev/vdb rw\n");

  feed_file (m, 1, "/proc/mounts", RECORDER_MOUNTS, 4096, TRUE);
  feed_file (m, 7, "/proc/7/mountinfo", text->str, 65000, TRUE);
  check_path (r, 7, "/late/x", "");
  check_path (r, 7, "/opt/bin/app", "");
  check_path (r, 7, "/mnt/f0/x", "");

  /* Exactly the bound (empty lines after the mounts): taken.  */
  g_string_assign (text, MOUNTINFO_7);
  while (text->len < ST_CAPTURE_MOUNTS_MAX_FILE)
    g_string_append_c (text, '\n');
  feed_file (m, 8, "/proc/8/mountinfo", text->str, 65000, TRUE);
  check_path (r, 8, "/opt/bin/app", "/srv/payload/bin/app");
  g_string_free (text, TRUE);
  st_capture_mounts_free (m);
  st_file_resolver_free (r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/capture-mounts/chunks", test_chunks);
  g_test_add_func ("/capture-mounts/unfinished-and-foreign",
                   test_unfinished_and_foreign);
  g_test_add_func ("/capture-mounts/many-unfinished", test_many_unfinished);
  g_test_add_func ("/capture-mounts/bad-fields", test_bad_fields);
  g_test_add_func ("/capture-mounts/flatpak", test_flatpak);
  g_test_add_func ("/capture-mounts/overlay", test_overlay);
  g_test_add_func ("/capture-mounts/too-long", test_too_long);
  return g_test_run ();
}
