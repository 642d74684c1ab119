/* One entry per process asked about, with its table and what was read
   of each file (bytes and lines consumed), so that reading again takes
   only what the JIT appended.  */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/address-space.h"
#include "report/jit-names.h"
#include "report/jitdump.h"

/* A file read in one go, at most (a perf map past it is read no further:
   a broken writer must not make us read forever).  */
#define FILE_MAX ((size_t) 1 << 30)

typedef struct
{
  char *path;               /* as recorded */
  char *found;              /* the file read, NULL until found */
  size_t offset;            /* bytes consumed */
  gboolean failed;          /* damaged: read no more */
} Dump;

typedef struct
{
  int32_t pid;
  StJitTable *table;
  char *perf_map;           /* the perf map read, NULL until found */
  size_t perf_map_offset;
  uint64_t perf_map_lines;
  StPerfMapCounts perf_map_counts;
  gboolean perf_map_stopped;  /* past FILE_MAX */
  Dump dumps[ST_JIT_NAMES_DUMPS];
  guint n_dumps;
  guint misses;             /* addresses not named since the last read */
  gboolean loaded;          /* the files were read once */
  GList *link;              /* in StJitNames.order */
} Process;

struct StJitNames
{
  char *symfs;
  char *tmp_dir;
  gboolean symfs_only;        /* never the host's own maps */
  StPerfMapReport report;
  void *report_data;
  GHashTable *by_pid;       /* pid -> Process* (owned) */
  GQueue order;             /* Process*, oldest first */
  StJitNamesCounts counts;
};

static void
process_free (gpointer data)
{
  Process *p = data;

  st_jit_table_free (p->table);
  g_free (p->perf_map);
  for (guint i = 0; i < p->n_dumps; i++)
    {
      g_free (p->dumps[i].path);
      g_free (p->dumps[i].found);
    }
  g_free (p);
}

StJitNames *
st_jit_names_new (const char *symfs, const char *tmp_dir,
                  StPerfMapReport report, void *report_data)
{
  StJitNames *j = g_new0 (StJitNames, 1);

  j->symfs = g_strdup (symfs);
  j->tmp_dir = g_strdup (tmp_dir != NULL ? tmp_dir : "/tmp");
  j->report = report;
  j->report_data = report_data;
  j->by_pid = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                     process_free);
  g_queue_init (&j->order);
  return j;
}

void
st_jit_names_set_symfs_only (StJitNames *j)
{
  j->symfs_only = TRUE;
}

void
st_jit_names_free (StJitNames *j)
{
  if (j == NULL)
    return;
  g_queue_clear (&j->order);
  g_hash_table_destroy (j->by_pid);
  g_free (j->symfs);
  g_free (j->tmp_dir);
  g_free (j);
}

void
st_jit_names_counts (const StJitNames *j, StJitNamesCounts *c)
{
  *c = j->counts;
}

static Process *
process_get (StJitNames *j, int32_t pid)
{
  Process *p = g_hash_table_lookup (j->by_pid, GINT_TO_POINTER (pid));

  if (p != NULL)
    return p;
  if (g_hash_table_size (j->by_pid) >= ST_JIT_NAMES_PROCESSES)
    {
      Process *old = g_queue_pop_head (&j->order);
      g_hash_table_remove (j->by_pid, GINT_TO_POINTER (old->pid));
    }
  p = g_new0 (Process, 1);
  p->pid = pid;
  p->table = st_jit_table_new ();
  g_queue_push_tail (&j->order, p);
  g_hash_table_insert (j->by_pid, GINT_TO_POINTER (pid), p);
  return p;
}

void
st_jit_names_map (StJitNames *j, int32_t pid, const char *filename)
{
  StMap map = { .filename = filename != NULL ? filename : "" };

  if (!st_map_is_jitdump (&map))
    return;
  Process *p = process_get (j, pid);
  for (guint i = 0; i < p->n_dumps; i++)
    if (strcmp (p->dumps[i].path, map.filename) == 0)
      return;
  if (p->n_dumps == ST_JIT_NAMES_DUMPS)
    return;
  p->dumps[p->n_dumps++].path = g_strdup (map.filename);
  /* Read with the others when next asked.  */
  p->misses = ST_JIT_NAMES_RECHECK;
}

static void
report (StJitNames *j, const char *message)
{
  if (j->report != NULL)
    j->report (message, j->report_data);
}

/* The first of SYMFS/PATH and PATH that is a regular file, or NULL.  */
static char *
find_file (StJitNames *j, const char *path)
{
  struct stat st;

  if (j->symfs != NULL)
    {
      char *under = g_build_filename (j->symfs, path, NULL);
      if (stat (under, &st) == 0 && S_ISREG (st.st_mode))
        return under;
      g_free (under);
    }
  if (j->symfs_only)
    return NULL;
  if (stat (path, &st) == 0 && S_ISREG (st.st_mode))
    return g_strdup (path);
  return NULL;
}

/* The bytes of PATH from OFFSET on (at most FILE_MAX), in *DATA (free
   with g_free), or FALSE.  */
static gboolean
read_from (const char *path, size_t offset, char **data, size_t *len)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  struct stat st;

  *data = NULL;
  *len = 0;
  if (fd < 0)
    return FALSE;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      return FALSE;
    }
  if ((uint64_t) st.st_size <= offset)
    {
      close (fd);
      return TRUE;
    }
  size_t want = MIN ((uint64_t) st.st_size - offset, FILE_MAX);
  char *buf = g_malloc (want);
  size_t got = 0;
  while (got < want)
    {
      ssize_t n = pread (fd, buf + got, want - got, (off_t) (offset + got));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      got += (size_t) n;
    }
  close (fd);
  *data = buf;
  *len = got;
  return TRUE;
}

static void
on_bad_line (const char *message, void *user)
{
  report (user, message);
}

static void
read_perf_map (StJitNames *j, Process *p)
{
  if (p->perf_map_stopped)
    return;
  if (p->perf_map == NULL)
    {
      char name[64];
      g_snprintf (name, sizeof name, "perf-%d.map", (int) p->pid);
      g_autofree char *path = g_build_filename (j->tmp_dir, name, NULL);
      p->perf_map = find_file (j, path);
      if (p->perf_map == NULL)
        return;
      j->counts.perf_maps++;
    }
  char *data;
  size_t len;
  if (!read_from (p->perf_map, p->perf_map_offset, &data, &len) || len == 0)
    {
      g_free (data);
      return;
    }
  /* A line cut by the end is left for the next read: the JIT may be
     writing it.  */
  size_t used = st_perf_map_parse (data, len, FALSE, p->perf_map,
                                   p->perf_map_lines + 1, p->table,
                                   &p->perf_map_counts, on_bad_line, j);
  p->perf_map_lines = p->perf_map_counts.lines;
  p->perf_map_offset += used;
  if (len == FILE_MAX && used == 0)
    {
      p->perf_map_stopped = TRUE;
      g_autofree char *m = g_strdup_printf ("%s: a line longer than %zu "
                                            "bytes; not read further",
                                            p->perf_map, FILE_MAX);
      report (j, m);
    }
  g_free (data);
}

static void
read_dump (StJitNames *j, Process *p, Dump *d)
{
  if (d->failed)
    return;
  if (d->found == NULL)
    {
      d->found = find_file (j, d->path);
      if (d->found == NULL)
        return;
      j->counts.jitdumps++;
    }
  /* What was appended since the last read.  */
  char *data;
  size_t len;
  if (!read_from (d->found, d->offset, &data, &len) || len == 0)
    {
      g_free (data);
      return;
    }
  StJitdumpCounts counts = { 0 };
  GError *error = NULL;
  if (!st_jitdump_read ((const uint8_t *) data, len, d->offset, d->found,
                        TRUE, &d->offset, p->table, &counts, &error))
    {
      d->failed = TRUE;
      report (j, error->message);
      g_error_free (error);
    }
  g_free (data);
}

const char *
st_jit_names_lookup (StJitNames *j, int32_t pid, uint64_t addr)
{
  Process *p = process_get (j, pid);

  if (!p->loaded || p->misses >= ST_JIT_NAMES_RECHECK)
    {
      p->loaded = TRUE;
      p->misses = 0;
      read_perf_map (j, p);
      for (guint i = 0; i < p->n_dumps; i++)
        read_dump (j, p, &p->dumps[i]);
    }
  const char *name = st_jit_table_lookup (p->table, addr);
  if (name != NULL)
    j->counts.named++;
  else
    p->misses++;
  return name;
}
