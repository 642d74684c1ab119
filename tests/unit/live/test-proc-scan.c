/* Unit tests: the walk of /proc at the start of a live recording, over a
   fake /proc in a temporary directory (two processes, one a kernel
   thread without maps or command line, and an entry that is not a
   process).  The records are read back with the perf reader, the
   FILE_CHUNK frames by their layout.  Then what the ring reader uses
   for processes the walk missed: one process's records, its start time,
   an EXIT.  */
#include "config.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/capture-types.h"
#include "format/perf-types.h"
#include "format/output.h"
#include "format/reader.h"
#include "live/proc-scan.h"
#include "live/sysprof-layout.h"

static void
put_file (const char *dir, const char *name, const char *text, gsize len)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *parent = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, text, (gssize) len, NULL));
}

static void
test_scan (void)
{
  g_autofree char *root = g_dir_make_tmp ("st-proc-XXXXXX", NULL);
  static const char cmdline[] = "/usr/bin/prog\0-x\0arg\0";
  static const char maps[] =
    "55d0c0000000-55d0c0001000 r--p 00000000 08:01 1234 /usr/bin/prog\n"
    "55d0c0001000-55d0c0003000 r-xp 00001000 08:01 1234 /usr/bin/prog\n"
    "55d0c0100000-55d0c0200000 rw-p 00000000 00:00 0 [heap]\n"
    "7f0000000000-7f0000001000 rwxp 00000000 00:00 0 \n"
    "7ffc00000000-7ffc00002000 r-xp 00000000 00:00 0 [vdso]\n"
    "garbage\n";
  g_autofree char *mountinfo = g_strnfill (5000, 'm');

  put_file (root, "mounts", "proc /proc proc rw 0 0\n", -1);
  put_file (root, "42/comm", "prog\n", -1);
  put_file (root, "42/cmdline", cmdline, sizeof cmdline - 1);
  put_file (root, "42/maps", maps, -1);
  put_file (root, "42/mountinfo", mountinfo, 5000);
  put_file (root, "7/comm", "kthreadd\n", -1);
  put_file (root, "7/cmdline", "", 0);
  put_file (root, "7/maps", "", 0);
  put_file (root, "7/mountinfo", "", 0);
  put_file (root, "self/comm", "not a pid\n", -1);

  /* The stream: a pipe-mode header, the attribute, the scan.  */
  g_autofree char *stream = g_build_filename (root, "stream", NULL);
  int fd = g_open (stream, O_RDWR | O_CREAT | O_TRUNC, 0644);
  StOutput *out = st_output_new (fd);
  StPerfWriter *w = st_perf_writer_new (out, FALSE);
  StPerfEventAttr attr;
  uint64_t id = 99;
  GByteArray *chunks = g_byte_array_new ();
  StProcScanCounts counts;

  st_sysprof_layout_attr (&attr, 8192);
  st_perf_writer_attr (w, (const uint8_t *) &attr, sizeof attr, &id, 1);
  st_proc_scan (root, w, id, 5000, chunks, NULL, &counts);
  g_assert_cmpuint (counts.processes, ==, 2);
  g_assert_cmpuint (counts.maps, ==, 4);
  g_assert_cmpuint (counts.mount_files, ==, 3);   /* mounts, 42, 7 */
  g_assert_true (st_perf_writer_finish (w, NULL));
  st_perf_writer_free (w);
  st_output_free (out);

  /* The records, as the reader sees them (the kernel thread and the
     process may come in either order).  */
  lseek (fd, 0, SEEK_SET);
  StReader *r = st_reader_new (fd, ST_FORMAT_PERF, NULL);
  StEvent ev;
  guint n_maps = 0, n_comms = 0;
  g_assert_nonnull (r);
  while (st_reader_next (r, &ev, NULL) > 0)
    {
      if (ev.kind == ST_EVENT_PROCESS)
        {
          n_comms++;
          g_assert_cmpint (ev.time, ==, 5000);
          if (ev.pid == 42)
            /* The comm, not the command line.  */
            g_assert_cmpstr (ev.process.comm, ==, "prog");
          else
            g_assert_cmpstr (ev.process.comm, ==, "kthreadd");
        }
      else if (ev.kind == ST_EVENT_MAP)
        {
          g_assert_cmpint (ev.pid, ==, 42);
          g_assert_cmpint (ev.tid, ==, 42);
          g_assert_cmpint (ev.time, ==, 5000);
          g_assert_true (ev.map.exec_known);
          switch (n_maps++)
            {
            case 0:
              g_assert_cmphex (ev.map.start, ==, 0x55d0c0000000);
              g_assert_cmphex (ev.map.end, ==, 0x55d0c0001000);
              g_assert_cmpuint (ev.map.prot, ==, PROT_READ);
              g_assert_cmpuint (ev.map.dev_major, ==, 8);
              g_assert_cmpuint (ev.map.dev_minor, ==, 1);
              g_assert_cmpuint (ev.map.inode, ==, 1234);
              g_assert_cmpstr (ev.map.filename, ==, "/usr/bin/prog");
              break;
            case 1:
              g_assert_cmphex (ev.map.pgoff, ==, 0x1000);
              g_assert_cmpuint (ev.map.prot, ==, PROT_READ | PROT_EXEC);
              break;
            case 2:
              /* Anonymous and executable (a JIT): kept, named as perf
                 names it.  */
              g_assert_cmpstr (ev.map.filename, ==, "//anon");
              g_assert_cmpuint (ev.map.prot, ==,
                                PROT_READ | PROT_WRITE | PROT_EXEC);
              break;
            case 3:
              g_assert_cmpstr (ev.map.filename, ==, "[vdso]");
              break;
            }
        }
    }
  g_assert_cmpuint (n_comms, ==, 2);
  g_assert_cmpuint (n_maps, ==, 4);
  st_reader_free (r);
  close (fd);

  /* FILE_CHUNK frames: /proc/mounts first, the 5000-byte mountinfo in
     two, the empty one in one flagged last.  */
  gsize at = 0;
  guint n_frames = 0;
  gsize mountinfo_42 = 0;
  while (at < chunks->len)
    {
      StCaptureFileChunk c;
      memcpy (&c, chunks->data + at, sizeof c);
      g_assert_cmpuint (c.frame.type, ==, ST_CAPTURE_FILE_CHUNK);
      g_assert_cmpuint (c.frame.len % 8, ==, 0);
      g_assert_cmpuint (c.frame.len, >=, sizeof c + c.len);
      g_assert_cmpint (c.frame.time, ==, 5000);
      if (n_frames == 0)
        {
          g_assert_cmpstr (c.path, ==, "/proc/mounts");
          g_assert_cmpint (c.frame.pid, ==, -1);
          g_assert_true (c.is_last);
          g_assert_cmpmem (chunks->data + at + sizeof c, c.len,
                           "proc /proc proc rw 0 0\n", 23);
        }
      if (strcmp (c.path, "/proc/42/mountinfo") == 0)
        {
          g_assert_cmpint (c.frame.pid, ==, 42);
          mountinfo_42 += c.len;
          g_assert_true (c.is_last == (mountinfo_42 == 5000));
        }
      if (strcmp (c.path, "/proc/7/mountinfo") == 0)
        {
          g_assert_cmpuint (c.len, ==, 0);
          g_assert_true (c.is_last);
        }
      at += c.frame.len;
      n_frames++;
    }
  g_assert_cmpuint (at, ==, chunks->len);
  g_assert_cmpuint (mountinfo_42, ==, 5000);
  g_assert_cmpuint (n_frames, ==, 4);
  g_byte_array_free (chunks, TRUE);

  g_autofree char *rm = g_strdup_printf ("rm -rf '%s'", root);
  g_assert_cmpint (system (rm), ==, 0);
}

/* The mount table of process PID in CHUNKS (one frame each here).  */
static char *
mount_table_of (GByteArray *chunks, uint32_t pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%u/mountinfo", pid);

  for (gsize at = 0; at < chunks->len;)
    {
      StCaptureFileChunk c;
      memcpy (&c, chunks->data + at, sizeof c);
      if (strcmp (c.path, path) == 0)
        return g_strndup ((const char *) chunks->data + at + sizeof c, c.len);
      at += c.frame.len;
    }
  return NULL;
}

/* Mount tables are read once per view (mount namespace and root
   directory: all that /proc/PID/mountinfo depends on), and a process
   whose view cannot be read has its own read.  Shown by giving the
   processes of one view different files: the second gets the first's
   table.  */
static void
test_mount_views (void)
{
  g_autofree char *root = g_dir_make_tmp ("st-proc-XXXXXX", NULL);
  g_autofree char *dir1 = g_build_filename (root, "root1", NULL);
  g_autofree char *dir2 = g_build_filename (root, "root2", NULL);
  struct { uint32_t pid; const char *ns, *rootdir, *table, *expect; } procs[] = {
    { 50, "mnt:[4026531840]", dir1, "table 50\n", "table 50\n" },
    { 51, "mnt:[4026531840]", dir1, "table 51\n", "table 50\n" },
    { 52, "mnt:[4026531840]", dir2, "table 52\n", "table 52\n" },
    { 53, "mnt:[4026532000]", dir1, "table 53\n", "table 53\n" },
    { 54, NULL, NULL, "table 54\n", "table 54\n" },
  };

  g_assert_cmpint (g_mkdir (dir1, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (dir2, 0755), ==, 0);
  put_file (root, "mounts", "", 0);
  for (guint i = 0; i < G_N_ELEMENTS (procs); i++)
    {
      g_autofree char *pid = g_strdup_printf ("%u", procs[i].pid);
      g_autofree char *comm = g_build_filename (pid, "comm", NULL);
      g_autofree char *mountinfo = g_build_filename (pid, "mountinfo", NULL);
      put_file (root, comm, "prog\n", -1);
      put_file (root, mountinfo, procs[i].table, -1);
      if (procs[i].ns == NULL)
        continue;
      g_autofree char *ns = g_build_filename (root, pid, "ns", "mnt", NULL);
      g_autofree char *ns_dir = g_path_get_dirname (ns);
      g_autofree char *link = g_build_filename (root, pid, "root", NULL);
      g_assert_cmpint (g_mkdir_with_parents (ns_dir, 0755), ==, 0);
      g_assert_cmpint (symlink (procs[i].ns, ns), ==, 0);
      g_assert_cmpint (symlink (procs[i].rootdir, link), ==, 0);
    }

  g_autofree char *stream = g_build_filename (root, "stream", NULL);
  int fd = g_open (stream, O_RDWR | O_CREAT | O_TRUNC, 0644);
  StOutput *out = st_output_new (fd);
  StPerfWriter *w = st_perf_writer_new (out, FALSE);
  GByteArray *chunks = g_byte_array_new ();
  StProcScanCounts counts;

  /* (The walk's order is the directory's: 50 before 51 is not given.)  */
  st_proc_scan (root, w, 1, 5000, chunks, NULL, &counts);
  g_assert_cmpuint (counts.processes, ==, G_N_ELEMENTS (procs));
  g_assert_cmpuint (counts.mount_files, ==, 1 + G_N_ELEMENTS (procs));
  g_autofree char *t50 = mount_table_of (chunks, 50);
  g_autofree char *t51 = mount_table_of (chunks, 51);
  g_assert_cmpstr (t50, ==, t51);
  g_assert_true (g_str_equal (t50, "table 50\n")
                 || g_str_equal (t50, "table 51\n"));
  for (guint i = 2; i < G_N_ELEMENTS (procs); i++)
    {
      g_autofree char *t = mount_table_of (chunks, procs[i].pid);
      g_assert_cmpstr (t, ==, procs[i].expect);
    }
  st_perf_writer_free (w);
  st_output_free (out);
  close (fd);
  g_byte_array_free (chunks, TRUE);
  g_autofree char *rm = g_strdup_printf ("rm -rf '%s'", root);
  g_assert_cmpint (system (rm), ==, 0);
}

static void
collect (const uint8_t *record, size_t len, void *data)
{
  g_ptr_array_add (data, g_bytes_new (record, len));
}

/* What the ring reader uses for processes the walk missed or saw with
   a pid now taken by another: the start time that tells two processes
   of one pid apart (the command name may hold ") " and spaces), the
   records of one process, and an EXIT.  */
static void
test_one_process (void)
{
  g_autofree char *root = g_dir_make_tmp ("st-proc-XXXXXX", NULL);
  static const char stat42[] =
    "42 (a) b c) S 1 42 42 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 "
    "123456 1000 10 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1\n";
  static const char maps[] =
    "55d0c0001000-55d0c0003000 r-xp 00001000 08:01 1234 /usr/bin/prog\n"
    "55d0c0100000-55d0c0200000 rw-p 00000000 00:00 0 [heap]\n";
  g_autoptr (GHashTable) pids = g_hash_table_new_full (NULL, NULL, NULL,
                                                       g_free);
  g_autoptr (GPtrArray) recs = g_ptr_array_new_with_free_func (
    (GDestroyNotify) g_bytes_unref);
  StProcScanCounts counts = { 0 };
  uint64_t start = 0;
  uint64_t exe_ino = 0;
  gpointer value = NULL;
  const uint8_t *r;
  gsize len;

  put_file (root, "mounts", "", 0);
  put_file (root, "42/comm", "a) b c\n", -1);
  put_file (root, "42/stat", stat42, -1);
  put_file (root, "42/maps", maps, -1);
  put_file (root, "7/comm", "kthreadd\n", -1);
  put_file (root, "7/stat", "7 (kthreadd) S 0\n", -1);

  g_assert_true (st_proc_scan_start_time (root, 42, &start));
  g_assert_cmpuint (start, ==, 123456);

  /* The identity: start time and the executable's file; an exec (other
     file) or another process (other start) differs.  */
  {
    g_autofree char *exe = g_build_filename (root, "42", "exe", NULL);
    g_autofree char *bin = g_build_filename (root, "prog", NULL);
    g_autofree char *bin2 = g_build_filename (root, "prog2", NULL);
    StProcIdentity a, b;
    struct stat st;

    put_file (root, "prog", "x", 1);
    put_file (root, "prog2", "y", 1);
    g_assert_cmpint (symlink (bin, exe), ==, 0);
    g_assert_cmpint (stat (bin, &st), ==, 0);
    exe_ino = st.st_ino;
    g_assert_true (st_proc_scan_identity (root, 42, &a));
    g_assert_cmpuint (a.start, ==, 123456);
    g_assert_cmpuint (a.exe_ino, ==, exe_ino);
    g_assert_cmpuint (a.exe_dev, ==, st.st_dev);
    b = a;
    g_assert_true (st_proc_scan_identity_equal (&a, &b));
    b.start++;
    g_assert_false (st_proc_scan_identity_equal (&a, &b));
    g_assert_cmpint (unlink (exe), ==, 0);
    g_assert_cmpint (symlink (bin2, exe), ==, 0);
    g_assert_true (st_proc_scan_identity (root, 42, &b));
    g_assert_false (st_proc_scan_identity_equal (&a, &b));
    g_assert_cmpint (unlink (exe), ==, 0);
    g_assert_cmpint (symlink (bin, exe), ==, 0);
    /* A kernel thread: no executable.  */
    put_file (root, "7/stat", stat42, -1);
    g_assert_true (st_proc_scan_identity (root, 7, &b));
    g_assert_cmpuint (b.exe_ino, ==, 0);
    put_file (root, "7/stat", "7 (kthreadd) S 0\n", -1);
  }
  g_assert_false (st_proc_scan_start_time (root, 7, &start));
  g_assert_false (st_proc_scan_start_time (root, 8, &start));

  /* The walk notes each process's start time (none for 7: too short).  */
  {
    g_autoptr (GByteArray) chunks = g_byte_array_new ();
    int fd = g_open ("/dev/null", O_WRONLY, 0);
    StOutput *out = st_output_new (fd);
    StPerfWriter *w = st_perf_writer_new (out, FALSE);

    st_proc_scan (root, w, 1, 5000, chunks, pids, &counts);
    g_assert_true (g_hash_table_lookup_extended (pids, GUINT_TO_POINTER (42),
                                                 NULL, &value));
    g_assert_nonnull (value);
    g_assert_cmpuint (((StProcIdentity *) value)->start, ==, 123456);
    g_assert_cmpuint (((StProcIdentity *) value)->exe_ino, ==, exe_ino);
    g_assert_true (g_hash_table_lookup_extended (pids, GUINT_TO_POINTER (7),
                                                 NULL, &value));
    g_assert_null (value);
    st_perf_writer_free (w);
    st_output_free (out);
    close (fd);
  }

  memset (&counts, 0, sizeof counts);
  g_assert_true (st_proc_scan_one (root, 42, collect, recs, 99, 7000,
                                   &counts));
  g_assert_false (st_proc_scan_one (root, 43, collect, recs, 99, 7000,
                                    &counts));
  g_assert_cmpuint (counts.processes, ==, 1);
  g_assert_cmpuint (counts.maps, ==, 1);
  g_assert_cmpuint (recs->len, ==, 2);
  r = g_bytes_get_data (g_ptr_array_index (recs, 0), &len);
  g_assert_cmpuint (((const StPerfEventHeader *) r)->type, ==,
                    ST_PERF_RECORD_COMM);
  g_assert_cmpuint (((const StPerfEventHeader *) r)->size, ==, len);
  r = g_bytes_get_data (g_ptr_array_index (recs, 1), &len);
  g_assert_cmpuint (((const StPerfEventHeader *) r)->type, ==,
                    ST_PERF_RECORD_MMAP2);
  /* The trailer: pid, tid, time, id.  */
  g_assert_cmpuint (st_perf_get_u32 (r + len - 24), ==, 42);
  g_assert_cmpuint (st_perf_get_u64 (r + len - 16), ==, 7000);
  g_assert_cmpuint (st_perf_get_u64 (r + len - 8), ==, 99);

  st_proc_scan_exit (42, collect, recs, 99, 6999);
  r = g_bytes_get_data (g_ptr_array_index (recs, 2), &len);
  g_assert_cmpuint (len, ==, 32 + 24);
  g_assert_cmpuint (((const StPerfEventHeader *) r)->type, ==,
                    ST_PERF_RECORD_EXIT);
  g_assert_cmpuint (((const StPerfEventHeader *) r)->size, ==, len);
  g_assert_cmpuint (st_perf_get_u32 (r + 8), ==, 42);    /* pid */
  g_assert_cmpuint (st_perf_get_u32 (r + 16), ==, 42);   /* tid */
  g_assert_cmpuint (st_perf_get_u64 (r + 24), ==, 6999);
  g_assert_cmpuint (st_perf_get_u64 (r + len - 16), ==, 6999);

  g_autofree char *rm = g_strdup_printf ("rm -rf '%s'", root);
  g_assert_cmpint (system (rm), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/proc-scan/scan", test_scan);
  g_test_add_func ("/proc-scan/one-process", test_one_process);
  g_test_add_func ("/proc-scan/mount-views", test_mount_views);
  return g_test_run ();
}
