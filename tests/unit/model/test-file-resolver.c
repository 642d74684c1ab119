/* File resolver: the candidates of a mapping in their order, a
   capture's mount tables, the process's own files pinned, the inode
   check.  (The file report: model/test-file-report.c.)  */
#include "config.h"

#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "capture-bytes.h"
#include "capture-mounts.h"
#include "model/file-report.h"
#include "model/file-resolver.h"
#include "model/module-cache.h"

static StMap
map_of (const char *path, int32_t pid)
{
  StMap map = { 0 };

  map.start = 0x400000;
  map.end = 0x500000;
  map.pid = pid;
  map.filename = path;
  return map;
}

static const StFileCandidate *
candidate (GArray *list, guint i)
{
  g_assert_cmpuint (i, <, list->len);
  return &g_array_index (list, StFileCandidate, i);
}

/* Feeds the frame in B (from the capture-bytes builder) of PID, and
   empties B.  */
static void
feed_frame (StCaptureMounts *m, int32_t pid, GByteArray *b)
{
  StEvent ev = { .kind = ST_EVENT_OTHER, .source = ST_FORMAT_SYSPROF,
                 .pid = pid, .raw = b->data, .raw_len = b->len };

  st_capture_mounts_feed (m, &ev);
  g_byte_array_set_size (b, 0);
}

static void
test_order (void)
{
  g_autofree char *dir = g_dir_make_tmp ("st-resolver-XXXXXX", NULL);
  g_autofree char *cache = g_build_filename (dir, "cache", NULL);
  g_autofree char *link_dir = g_build_filename (cache, ".build-id", "ab",
                                                "cdef", NULL);
  g_assert_cmpint (g_mkdir_with_parents (link_dir, 0700), ==, 0);
  StFileResolver *r = st_file_resolver_new ("/sym", cache);
  StMap map = map_of ("/usr/lib/libx.so", 0);
  map.build_id_len = 3;
  map.build_id[0] = 0xab;
  map.build_id[1] = 0xcd;
  map.build_id[2] = 0xef;

  GArray *list = st_file_resolver_candidates (r, &map, map.filename, NULL);
  g_assert_cmpint (candidate (list, 0)->source, ==, ST_FILE_SOURCE_SYMFS);
  g_assert_cmpstr (candidate (list, 0)->path, ==, "/sym/usr/lib/libx.so");
  g_assert_cmpstr (candidate (list, 1)->path, ==, "/sym/libx.so");
  g_assert_cmpint (candidate (list, 2)->source, ==,
                   ST_FILE_SOURCE_BUILDID_DIR);
  /* perf's cache: the link names a directory holding "elf".  */
  g_autofree char *elf = g_build_filename (link_dir, "elf", NULL);
  g_assert_cmpstr (candidate (list, 2)->path, ==, elf);
  const StFileCandidate *last = candidate (list, list->len - 1);
  g_assert_cmpint (last->source, ==, ST_FILE_SOURCE_RECORDED);
  g_assert_cmpstr (last->path, ==, "/usr/lib/libx.so");
  st_file_candidates_free (list);

  /* No build-id: no cache lookup.  */
  map.build_id_len = 0;
  list = st_file_resolver_candidates (r, &map, map.filename, NULL);
  for (guint i = 0; i < list->len; i++)
    g_assert_cmpint (candidate (list, i)->source, !=,
                     ST_FILE_SOURCE_BUILDID_DIR);
  st_file_candidates_free (list);
  st_file_resolver_free (r);

  g_assert_cmpint (g_rmdir (link_dir), ==, 0);
  g_autofree char *ab = g_path_get_dirname (link_dir);
  g_autofree char *bid = g_path_get_dirname (ab);
  g_assert_cmpint (g_rmdir (ab), ==, 0);
  g_assert_cmpint (g_rmdir (bid), ==, 0);
  g_assert_cmpint (g_rmdir (cache), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

static void
test_mounts (void)
{
  StFileResolver *r = st_file_resolver_new (NULL, NULL);
  const char *own =
    "22 1 254:0 / / rw - ext4 /dev/vda rw\n"
    "36 22 254:16 /payload /app rw - ext4 /dev/data rw\n"
    "37 36 254:16 /deeper/with\\040blank /app/lib rw shared:1 - ext4 "
    "/dev/data rw\n"
    "garbage line\n";
  const char *host = "/dev/vda / ext4 rw 0 0\n/dev/data /srv/data ext4 rw 0 0\n";

  st_file_resolver_add_mountinfo (r, 42, own, strlen (own));
  st_file_resolver_add_mountinfo (r, 0, host, strlen (host));

  struct
  {
    const char *path;
    const char *host;     /* NULL: no mount-table candidate */
  } cases[] = {
    { "/app/bin/prog", "/srv/data/payload/bin/prog" },
    { "/app/lib/libz.so", "/srv/data/deeper/with blank/libz.so" },
    { "/usr/bin/true", NULL },      /* the same path on the host */
    { "/application", NULL },       /* not under /app */
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      StMap map = map_of (cases[i].path, 42);
      GArray *list = st_file_resolver_candidates (r, &map, map.filename,
                                                  NULL);
      const char *found = NULL;
      for (guint j = 0; j < list->len; j++)
        if (candidate (list, j)->source == ST_FILE_SOURCE_MOUNTS)
          found = candidate (list, j)->path;
      g_assert_cmpstr (found, ==, cases[i].host);
      st_file_candidates_free (list);
    }

  /* Another process has no table: no translation.  */
  StMap other = map_of ("/app/bin/prog", 43);
  GArray *list = st_file_resolver_candidates (r, &other, other.filename,
                                              NULL);
  for (guint j = 0; j < list->len; j++)
    g_assert_cmpint (candidate (list, j)->source, !=, ST_FILE_SOURCE_MOUNTS);
  st_file_candidates_free (list);
  st_file_resolver_free (r);
}

/* Our own mapping of some file: its range and path.  */
static gboolean
own_file_mapping (StMap *map)
{
  g_autofree char *maps = NULL;

  if (!g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL))
    return FALSE;
  g_auto (GStrv) lines = g_strsplit (maps, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      unsigned long long start, end;
      int name_at = 0;
      if (sscanf (lines[i], "%llx-%llx %*s %*s %*s %*s %n", &start, &end,
                  &name_at) >= 2 && name_at > 0 && lines[i][name_at] == '/')
        {
          *map = map_of (g_intern_string (lines[i] + name_at), getpid ());
          map->start = start;
          map->end = end;
          return TRUE;
        }
    }
  return FALSE;
}

static void
test_pins (void)
{
  StMap map;
  StFilePins pins;

  g_assert_true (own_file_mapping (&map));
  st_file_pins_open (&pins, &map);
  g_assert_cmpint (pins.root_fd, >=, 0);
  /* map_files needs privileges: without, only the root is pinned.  */
  if (geteuid () == 0)
    g_assert_cmpint (pins.map_fd, >=, 0);
  StFileResolver *r = st_file_resolver_new (NULL, NULL);
  GArray *list = st_file_resolver_candidates (r, &map, map.filename, &pins);
  g_assert_cmpint (candidate (list, 0)->source, ==, ST_FILE_SOURCE_PROC_ROOT);
  g_assert_cmpint (candidate (list, 0)->fd, ==, pins.root_fd);
  st_file_candidates_free (list);
  st_file_resolver_free (r);
  st_file_pins_close (&pins);
  g_assert_cmpint (pins.root_fd, ==, -1);

  /* No such process: nothing pinned.  */
  map.pid = G_MAXINT32;
  st_file_pins_open (&pins, &map);
  g_assert_false (st_file_pins_any (&pins));
}

static void
test_inode (void)
{
  struct stat st;
  StFileVerification how;

  g_assert_cmpint (stat ("/usr/bin/true", &st), ==, 0);
  StMap map = map_of ("/usr/bin/true", 0);
  map.inode = st.st_ino;
  map.dev_major = major (st.st_dev);
  map.dev_minor = minor (st.st_dev);

  g_assert_cmpint (st_file_check_inode (&map, ST_FILE_SOURCE_RECORDED, &st,
                                        &how), ==, ST_FILE_OK);
  g_assert_cmpint (how, ==, ST_FILE_VERIFIED_INODE);
  map.inode++;
  g_assert_cmpint (st_file_check_inode (&map, ST_FILE_SOURCE_RECORDED, &st,
                                        &how), ==, ST_FILE_REPLACED);
  /* Under --symfs device numbers mean nothing.  */
  g_assert_cmpint (st_file_check_inode (&map, ST_FILE_SOURCE_SYMFS, &st,
                                        &how), ==, ST_FILE_OK);
  g_assert_cmpint (how, ==, ST_FILE_UNVERIFIED);
  /* Another device: cannot tell.  */
  map.dev_minor++;
  g_assert_cmpint (st_file_check_inode (&map, ST_FILE_SOURCE_RECORDED, &st,
                                        &how), ==, ST_FILE_OK);
  g_assert_cmpint (how, ==, ST_FILE_UNVERIFIED);
  /* Unknown device (a capture, MMAP): cannot tell.  */
  map.dev_major = map.dev_minor = 0;
  g_assert_cmpint (st_file_check_inode (&map, ST_FILE_SOURCE_RECORDED, &st,
                                        &how), ==, ST_FILE_OK);
}

/* A file replaced since it was recorded is never used (module cache).  */
static void
test_replaced (void)
{
  g_autofree char *dir = g_dir_make_tmp ("st-resolver-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "prog", NULL);
  g_autofree char *contents = NULL;
  gsize len;
  struct stat st;

  g_assert_true (g_file_get_contents ("/usr/bin/true", &contents, &len,
                                      NULL));
  g_assert_true (g_file_set_contents (path, contents, len, NULL));
  g_assert_cmpint (stat (path, &st), ==, 0);
  StMap map = map_of (g_intern_string (path), 0);
  map.inode = st.st_ino + 1;     /* as if recorded before a rebuild */
  map.dev_major = major (st.st_dev);
  map.dev_minor = minor (st.st_dev);
  map.filename = g_ref_string_new_intern (path);

  StModuleCache *c = st_module_cache_new (NULL);
  StModule *m = st_module_cache_get (c, &map);
  g_assert_null (m->elf);
  g_assert_cmpint (m->problem, ==, ST_FILE_REPLACED);
  g_assert_nonnull (strstr (m->error, "replaced"));

  map.inode = st.st_ino;
  m = st_module_cache_get (c, &map);
  g_assert_nonnull (m->elf);
  g_assert_cmpint (m->verification, ==, ST_FILE_VERIFIED_INODE);
  g_assert_cmpint (m->source, ==, ST_FILE_SOURCE_RECORDED);

  StFileReportTotals t;
  st_file_report_totals (st_module_cache_file_report (c), &t);
  g_assert_cmpuint (t.modules, ==, 2);
  g_assert_cmpuint (t.unusable, ==, 1);
  g_assert_cmpuint (t.verified_inode, ==, 1);
  st_module_cache_free (c);
  g_ref_string_release ((char *) map.filename);
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* Live: a process never seen alive whose path names another inode on
   the same device: "its process ended before it was found", not
   replaced; once another process's root holding the very file (same
   inode) is held, that file is used, verified.  */
static void
test_process_gone (void)
{
  g_autofree char *dir = g_dir_make_tmp ("st-resolver-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "prog", NULL);
  g_autofree char *other = g_build_filename (dir, "other", NULL);
  g_autofree char *in_other = g_build_filename (other, path, NULL);
  g_autofree char *in_other_dir = g_path_get_dirname (in_other);
  g_autofree char *contents = NULL;
  gsize len;
  struct stat st;

  g_assert_true (g_file_get_contents ("/usr/bin/true", &contents, &len,
                                      NULL));
  g_assert_true (g_file_set_contents (path, contents, len, NULL));
  g_assert_cmpint (g_mkdir_with_parents (in_other_dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (in_other, contents, len, NULL));
  g_assert_cmpint (stat (in_other, &st), ==, 0);
  /* Recorded: the file of the other root, by a process that is gone.  */
  StMap map = map_of (NULL, 0x7ffffff0);
  map.inode = st.st_ino;
  map.dev_major = major (st.st_dev);
  map.dev_minor = minor (st.st_dev);
  map.filename = g_ref_string_new_intern (path);

  StFileResolver *r = st_file_resolver_new (NULL, NULL);
  st_file_resolver_hold_roots (r);
  StModuleCache *c = st_module_cache_new_with_resolver (r);
  StModule *m = st_module_cache_get (c, &map);
  g_assert_null (m->elf);
  g_assert_cmpint (m->problem, ==, ST_FILE_PROCESS_GONE);
  g_assert_nonnull (strstr (m->error, "ended before"));
  g_assert_cmpstr (st_file_problem_name (m->problem), ==,
                   "its process ended before it was found");
  st_module_cache_free (c);

  /* Another process of that root was seen alive.  */
  r = st_file_resolver_new (NULL, NULL);
  st_file_resolver_hold_roots (r);
  st_process_roots_set (st_file_resolver_roots (r), 0x7ffffff1,
                        open (other, O_PATH | O_DIRECTORY | O_CLOEXEC));
  c = st_module_cache_new_with_resolver (r);
  m = st_module_cache_get (c, &map);
  g_assert_nonnull (m->elf);
  g_assert_cmpint (m->source, ==, ST_FILE_SOURCE_OTHER_ROOT);
  g_assert_cmpint (m->verification, ==, ST_FILE_VERIFIED_INODE);
  /* Not the recorded inode: never taken from another root.  */
  map.inode = st.st_ino + 1;
  m = st_module_cache_get (c, &map);
  g_assert_null (m->elf);
  st_module_cache_free (c);

  g_ref_string_release ((char *) map.filename);
  g_assert_cmpint (g_unlink (in_other), ==, 0);
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", dir);
  g_assert_cmpint (system (cmd), ==, 0);
}

/* Feeds FILE_CHUNK frames of TEXT named NAME, CHUNK bytes each.  */
static void
feed_file (StCaptureMounts *m, int32_t pid, const char *name,
           const char *text, size_t chunk)
{
  g_autoptr (GByteArray) b = g_byte_array_new ();
  size_t len = strlen (text), at = 0;

  do
    {
      size_t n = MIN (len - at, chunk);

      capture_put_file_chunk (b, 0, pid, 0, at + n == len, name, text + at,
                              n);
      feed_frame (m, pid, b);
      at += n;
    }
  while (at < len);
}

static void
feed_overlay (StCaptureMounts *m, int32_t pid, guint layer, const char *src,
              const char *dst)
{
  g_autoptr (GByteArray) b = g_byte_array_new ();

  capture_put_overlay (b, 0, pid, 0, (uint8_t) layer, src, dst);
  feed_frame (m, pid, b);
}

/* The paths the capture's frames give for PATH of process PID.  */
static char *
translated (StFileResolver *r, int32_t pid, const char *path)
{
  StMap map = map_of (path, pid);
  GArray *list = st_file_resolver_candidates (r, &map, path, NULL);
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < list->len; i++)
    if (candidate (list, i)->source == ST_FILE_SOURCE_MOUNTS)
      g_string_append_printf (out, "%s%s", out->len ? " " : "",
                              candidate (list, i)->path);
  st_file_candidates_free (list);
  return g_string_free (out, FALSE);
}

/* A capture's frames: a mountinfo in several chunks, the recorder's
   /proc/mounts, overlay layers in their order, a Flatpak's keyfile.  */
static void
test_capture_frames (void)
{
  StFileResolver *r = st_file_resolver_new (NULL, NULL);
  StCaptureMounts *m = st_capture_mounts_new (r);

  feed_file (m, 7, "/proc/7/mountinfo",
             "22 1 254:0 / / rw - ext4 /dev/vda rw\n"
             "36 22 254:16 /payload /opt rw - ext4 /dev/data rw\n", 10);
  feed_file (m, 7, "/proc/mounts", "/dev/data /srv ext4 rw 0 0\n", 4096);
  g_autofree char *a = translated (r, 7, "/opt/x");
  g_assert_cmpstr (a, ==, "/srv/payload/x");

  feed_overlay (m, 8, 1, "/layers/lower", "/");
  feed_overlay (m, 8, 0, "/layers/upper", "/");
  g_autofree char *b = translated (r, 8, "/usr/bin/x");
  g_assert_cmpstr (b, ==, "/layers/upper/usr/bin/x /layers/lower/usr/bin/x");

  feed_file (m, 9, "/proc/9/root/.flatpak-info",
             "[Application]\nname=org.example.App\n\n[Instance]\n"
             "app-path=/var/lib/flatpak/app/files\n"
             "runtime-path=/var/lib/flatpak/runtime/files\n", 4096);
  g_autofree char *c = translated (r, 9, "/app/bin/x");
  g_assert_cmpstr (c, ==, "/var/lib/flatpak/app/files/bin/x");
  g_autofree char *d = translated (r, 9, "/usr/lib/libz.so");
  g_assert_cmpstr (d, ==, "/var/lib/flatpak/runtime/files/lib/libz.so");

  /* Other files, and truncated frames, are ignored.  */
  feed_file (m, 10, "/proc/10/status", "Name: x\n", 4096);
  StEvent short_frame = { .kind = ST_EVENT_OTHER,
                          .source = ST_FORMAT_SYSPROF,
                          .raw = (const uint8_t *) "x", .raw_len = 1 };
  st_capture_mounts_feed (m, &short_frame);
  g_autofree char *e = translated (r, 10, "/opt/x");
  g_assert_cmpstr (e, ==, "");

  st_capture_mounts_free (m);
  st_file_resolver_free (r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/file-resolver/order", test_order);
  g_test_add_func ("/file-resolver/mounts", test_mounts);
  g_test_add_func ("/file-resolver/pins", test_pins);
  g_test_add_func ("/file-resolver/inode", test_inode);
  g_test_add_func ("/file-resolver/replaced", test_replaced);
  g_test_add_func ("/file-resolver/process-gone", test_process_gone);
  g_test_add_func ("/file-resolver/capture-frames", test_capture_frames);
  return g_test_run ();
}
