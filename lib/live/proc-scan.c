/* The processes that exist at the start of a live recording, from one
   walk of /proc; see proc-scan.h.  */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "format/capture-types.h"
#include "format/perf-types.h"
#include "live/proc-scan.h"

/* Data bytes per FILE_CHUNK frame (Sysprof's writer uses pages too).  */
#define CHUNK_DATA 4096
#define TRAILER_SIZE 24

static void
put_trailer (GByteArray *b, uint32_t pid, int64_t now, uint64_t id)
{
  uint32_t ids[2] = { pid, pid };
  uint64_t time = (uint64_t) now;

  g_byte_array_append (b, (const guint8 *) ids, sizeof ids);
  g_byte_array_append (b, (const guint8 *) &time, 8);
  g_byte_array_append (b, (const guint8 *) &id, 8);
}

/* A name padded with NULs to 8 bytes (at least one NUL).  */
static void
put_name (GByteArray *b, const char *name)
{
  static const uint8_t zeros[8];
  size_t len = strlen (name) + 1;

  g_byte_array_append (b, (const guint8 *) name, (guint) len);
  g_byte_array_append (b, zeros, (guint) ((8 - len % 8) % 8));
}

/* Where the records go.  */
typedef struct
{
  StProcScanRecordFunc func;
  void *data;
} Sink;

static void
finish_record (const Sink *out, GByteArray *b)
{
  StPerfEventHeader *h = (StPerfEventHeader *) b->data;

  h->size = (uint16_t) b->len;
  out->func (b->data, b->len, out->data);
}

static void
to_perf_writer (const uint8_t *record, size_t len, void *data)
{
  st_perf_writer_record (data, record, len);
}

static void
synth_comm (const Sink *out, GByteArray *b, uint32_t pid,
            const char *comm, int64_t now, uint64_t id)
{
  StPerfComm c = { .header = { ST_PERF_RECORD_COMM, ST_PERF_MISC_USER, 0 },
                   .pid = pid, .tid = pid };

  g_byte_array_set_size (b, 0);
  g_byte_array_append (b, (const guint8 *) &c, sizeof c);
  put_name (b, comm);
  put_trailer (b, pid, now, id);
  finish_record (out, b);
}

/* One line of /proc/PID/maps as MMAP2; FALSE when it is not worth one
   (an anonymous mapping that is not executable).  */
static gboolean
synth_mmap2 (const Sink *out, GByteArray *b, uint32_t pid,
             const char *line, int64_t now, uint64_t id)
{
  unsigned long long start, end, pgoff, inode;
  unsigned maj, min;
  char perms[8];
  int name_at = 0;
  StPerfMmap2 m;

  if (sscanf (line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms,
              &pgoff, &maj, &min, &inode, &name_at) < 7 || end <= start)
    return FALSE;
  const char *name = line + name_at;
  gboolean exec = strchr (perms, 'x') != NULL;
  if (!exec && name[0] != '/')
    return FALSE;

  memset (&m, 0, sizeof m);
  m.header.type = ST_PERF_RECORD_MMAP2;
  m.header.misc = ST_PERF_MISC_USER;
  m.pid = pid;
  m.tid = pid;
  m.addr = start;
  m.len = end - start;
  m.pgoff = pgoff;
  m.maj = maj;
  m.min = min;
  m.ino = inode;
  m.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0)
           | (exec ? PROT_EXEC : 0);
  m.flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
  g_byte_array_set_size (b, 0);
  g_byte_array_append (b, (const guint8 *) &m, sizeof m);
  put_name (b, name[0] != '\0' ? name : "//anon");
  put_trailer (b, pid, now, id);
  finish_record (out, b);
  return TRUE;
}

/* Appends FILE_CHUNK frames of the file PATH, whose contents are TEXT
   (LEN bytes), to CHUNKS.  */
static void
append_chunks (GByteArray *chunks, const char *path, const char *text,
               gsize len, int32_t pid, int64_t now)
{
  gsize at = 0;

  do
    {
      size_t n = MIN (len - at, (gsize) CHUNK_DATA);
      size_t frame_len = (sizeof (StCaptureFileChunk) + n + 7) & ~(size_t) 7;
      guint old = chunks->len;
      StCaptureFileChunk c;

      memset (&c, 0, sizeof c);
      c.frame.len = (uint16_t) frame_len;
      c.frame.cpu = -1;
      c.frame.pid = pid;
      c.frame.time = now;
      c.frame.type = ST_CAPTURE_FILE_CHUNK;
      c.is_last = at + n == len;
      c.len = (uint32_t) n;
      g_strlcpy (c.path, path, sizeof c.path);
      g_byte_array_set_size (chunks, old + (guint) frame_len);
      memset (chunks->data + old, 0, frame_len);
      memcpy (chunks->data + old, &c, sizeof c);
      memcpy (chunks->data + old + sizeof c, text + at, n);
      at += n;
    }
  while (at < len);
}

gboolean
st_proc_scan_file_chunks (GByteArray *chunks, const char *path,
                          const char *file, int32_t pid, int64_t now)
{
  g_autofree char *text = NULL;
  gsize len = 0;

  if (!g_file_get_contents (file, &text, &len, NULL))
    return FALSE;
  append_chunks (chunks, path, text, len, pid, now);
  return TRUE;
}

/* What /proc/PID/mountinfo shows depends only on the process's mount
   namespace and its root directory (mount points are given relative to
   it): their identity, or NULL when it cannot be read.  */
static char *
mount_view (const char *proc_root, uint32_t pid)
{
  g_autofree char *ns_path = g_strdup_printf ("%s/%u/ns/mnt", proc_root, pid);
  g_autofree char *root_path = g_strdup_printf ("%s/%u/root", proc_root, pid);
  g_autofree char *ns = g_file_read_link (ns_path, NULL);
  struct stat st;

  if (ns == NULL || stat (root_path, &st) != 0)
    return NULL;
  return g_strdup_printf ("%s %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT, ns,
                          (guint64) st.st_dev, (guint64) st.st_ino);
}

/* Process PID's mount table as FILE_CHUNK frames into CHUNKS.  VIEWS
   (may be NULL): the tables read so far by mount_view; one whose view
   was read already is not generated by the kernel again (the walk of a
   desktop reads hundreds of processes, most in one view).  */
static gboolean
mount_table_chunks (const char *proc_root, uint32_t pid, GByteArray *chunks,
                    GHashTable *views, int64_t now)
{
  g_autofree char *file = g_strdup_printf ("%s/%u/mountinfo", proc_root, pid);
  g_autofree char *path = g_strdup_printf ("/proc/%u/mountinfo", pid);
  g_autofree char *view = views != NULL ? mount_view (proc_root, pid) : NULL;
  GBytes *seen = view != NULL ? g_hash_table_lookup (views, view) : NULL;
  g_autoptr (GBytes) text = seen != NULL ? g_bytes_ref (seen) : NULL;
  gsize len;

  if (text == NULL)
    {
      char *contents;

      if (!g_file_get_contents (file, &contents, &len, NULL))
        return FALSE;
      text = g_bytes_new_take (contents, len);
      if (view != NULL)
        g_hash_table_insert (views, g_steal_pointer (&view),
                             g_bytes_ref (text));
    }
  const char *data = g_bytes_get_data (text, &len);
  append_chunks (chunks, path, data != NULL ? data : "", len, (int32_t) pid,
                 now);
  return TRUE;
}

/* The COMM and MMAP2 records of process PID, and its mountinfo when
   CHUNKS is given; FALSE when it is gone.  */
static gboolean
scan_process (const char *proc_root, uint32_t pid, const Sink *out,
              GByteArray *b, uint64_t id, int64_t now, GByteArray *chunks,
              GHashTable *views, StProcScanCounts *counts)
{
  g_autofree char *comm_path = g_strdup_printf ("%s/%u/comm", proc_root, pid);
  g_autofree char *maps_path = g_strdup_printf ("%s/%u/maps", proc_root, pid);
  g_autofree char *comm = NULL;
  g_autofree char *maps = NULL;

  if (!g_file_get_contents (comm_path, &comm, NULL, NULL))
    return FALSE;
  g_strchomp (comm);
  /* The kernel's name, as the real live unwinder and perf give it: a
     command line can be long and hold secrets (a whole environment
     passed as an argument), and one program would appear under two
     names, its processes started later being named by their comm.  */
  synth_comm (out, b, pid, comm, now, id);
  counts->processes++;
  if (g_file_get_contents (maps_path, &maps, NULL, NULL))
    {
      char *save = NULL;
      for (char *line = strtok_r (maps, "\n", &save); line != NULL;
           line = strtok_r (NULL, "\n", &save))
        if (synth_mmap2 (out, b, pid, line, now, id))
          counts->maps++;
    }
  if (chunks != NULL && mount_table_chunks (proc_root, pid, chunks, views, now))
    counts->mount_files++;
  return TRUE;
}

void
st_proc_scan (const char *proc_root, StPerfWriter *perf, uint64_t id,
              int64_t now, GByteArray *chunks, GHashTable *pids,
              StProcScanCounts *counts)
{
  g_autofree char *mounts = g_strdup_printf ("%s/mounts", proc_root);
  g_autoptr (GByteArray) b = g_byte_array_new ();
  GDir *dir = g_dir_open (proc_root, 0, NULL);
  const Sink out = { to_perf_writer, perf };
  const char *name;

  g_autoptr (GHashTable) views = g_hash_table_new_full (
    g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_bytes_unref);

  memset (counts, 0, sizeof *counts);
  if (st_proc_scan_file_chunks (chunks, "/proc/mounts", mounts, -1, now))
    counts->mount_files++;
  if (dir == NULL)
    return;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      char *end;
      unsigned long pid = strtoul (name, &end, 10);

      if (*end != '\0' || pid == 0 || pid > G_MAXINT32)
        continue;
      if (scan_process (proc_root, (uint32_t) pid, &out, b, id, now, chunks,
                        views, counts)
          && pids != NULL)
        {
          StProcIdentity ident;
          StProcIdentity *value = NULL;

          if (st_proc_scan_identity (proc_root, (uint32_t) pid, &ident))
            value = g_memdup2 (&ident, sizeof ident);
          g_hash_table_insert (pids, GUINT_TO_POINTER ((guint) pid), value);
        }
    }
  g_dir_close (dir);
}

gboolean
st_proc_scan_identity (const char *proc_root, uint32_t pid,
                       StProcIdentity *ident)
{
  g_autofree char *exe = g_strdup_printf ("%s/%u/exe", proc_root, pid);
  struct stat st;

  memset (ident, 0, sizeof *ident);
  if (!st_proc_scan_start_time (proc_root, pid, &ident->start))
    return FALSE;
  /* A kernel thread has no executable: 0.  */
  if (stat (exe, &st) == 0)
    {
      ident->exe_dev = (uint64_t) st.st_dev;
      ident->exe_ino = (uint64_t) st.st_ino;
    }
  return TRUE;
}

gboolean
st_proc_scan_identity_equal (const StProcIdentity *a, const StProcIdentity *b)
{
  return a->start == b->start && a->exe_dev == b->exe_dev
         && a->exe_ino == b->exe_ino;
}

gboolean
st_proc_scan_start_time (const char *proc_root, uint32_t pid,
                         uint64_t *start)
{
  g_autofree char *path = g_strdup_printf ("%s/%u/stat", proc_root, pid);
  g_autofree char *text = NULL;
  char *p, *save = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL)
      || (p = strrchr (text, ')')) == NULL)
    return FALSE;
  /* After "pid (comm)": state is field 3, starttime field 22.  */
  p = strtok_r (p + 1, " ", &save);
  for (int field = 3; p != NULL; field++, p = strtok_r (NULL, " ", &save))
    if (field == 22)
      {
        char *end;
        *start = g_ascii_strtoull (p, &end, 10);
        return end != p;
      }
  return FALSE;
}

void
st_proc_scan_exit (uint32_t pid, StProcScanRecordFunc func, void *data,
                   uint64_t id, int64_t time)
{
  g_autoptr (GByteArray) b = g_byte_array_new ();
  const Sink out = { func, data };
  StPerfForkExit e = { .header = { ST_PERF_RECORD_EXIT, 0, 0 },
                       .pid = pid, .ppid = 0, .tid = pid, .ptid = 0,
                       .time = (uint64_t) time };

  g_byte_array_append (b, (const guint8 *) &e, sizeof e);
  put_trailer (b, pid, time, id);
  finish_record (&out, b);
}

gboolean
st_proc_scan_one (const char *proc_root, uint32_t pid,
                  StProcScanRecordFunc func, void *data, uint64_t id,
                  int64_t time, StProcScanCounts *counts)
{
  g_autoptr (GByteArray) b = g_byte_array_new ();
  const Sink out = { func, data };

  return scan_process (proc_root, pid, &out, b, id, time, NULL, NULL, counts);
}
