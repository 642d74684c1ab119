/* The candidate files of a mapping, in the order file-resolver.h gives,
   and the identity checks that come before reading one.  */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "model/file-resolver.h"

/* One line of a mountinfo: which part (ROOT) of which filesystem
   (SOURCE) is seen at MOUNT_POINT.  */
typedef struct
{
  char *root;
  char *mount_point;
  char *source;
} Mount;

/* A directory of the recorder seen elsewhere by a process.  */
typedef struct
{
  char *inside;
  char *host;
  guint order;
} Prefix;

struct StFileResolver
{
  char *symfs;                /* NULL: none */
  GPtrArray *buildid_dirs;    /* char*, those that exist */
  guint n_given_dirs;         /* the first ones: --buildid-dir, --symfs */
  GHashTable *mounts;         /* pid -> GArray of Mount; pid 0: the
                                 recorder's own table */
  GHashTable *prefixes;       /* pid -> GArray of Prefix, by order */
  pthread_mutex_t mounts_lock; /* tables come in while workers read */
  StProcessRoots *roots;      /* live stream: held roots, else NULL */
  gboolean roots_borrowed;    /* ROOTS another resolver's */
  gboolean given_only;        /* only --symfs and --buildid-dir */
};

const char *
st_file_source_name (StFileSource source)
{
  switch (source)
    {
    case ST_FILE_SOURCE_NONE: return "none";
    case ST_FILE_SOURCE_SYMFS: return "symfs";
    case ST_FILE_SOURCE_PROC_ROOT: return "process-root";
    case ST_FILE_SOURCE_MAP_FILES: return "map-files";
    case ST_FILE_SOURCE_MOUNTS: return "mount-table";
    case ST_FILE_SOURCE_BUILDID_DIR: return "build-id-cache";
    case ST_FILE_SOURCE_RECORDED: return "recorded-path";
    case ST_FILE_SOURCE_DEBUGINFOD: return "debuginfod";
    case ST_FILE_SOURCE_VDSO: return "vdso";
    case ST_FILE_SOURCE_OTHER_ROOT: return "other-root";
    case ST_FILE_SOURCE_N: break;
    }
  return "?";
}

const char *
st_file_verification_name (StFileVerification how)
{
  switch (how)
    {
    case ST_FILE_VERIFIED_BUILD_ID: return "build-id";
    case ST_FILE_VERIFIED_INODE: return "inode";
    case ST_FILE_UNVERIFIED: break;
    }
  return "unverified";
}

const char *
st_file_problem_name (StFileProblem problem)
{
  switch (problem)
    {
    case ST_FILE_OK: return "ok";
    case ST_FILE_MISSING: return "missing";
    case ST_FILE_NOT_REGULAR: return "not a regular file";
    case ST_FILE_NOT_ELF: return "not ELF";
    case ST_FILE_NO_UNWIND_DATA: return "no unwind data";
    case ST_FILE_DEBUG_WITHOUT_CFI: return "debug file without unwind data";
    case ST_FILE_REPLACED: return "replaced since recorded";
    case ST_FILE_BUILD_ID_MISMATCH: return "build-id mismatch";
    case ST_FILE_PROCESS_GONE: return "its process ended before it was found";
    case ST_FILE_PROBLEM_N: break;
    }
  return "?";
}

const char *
st_file_problem_advice (StFileProblem problem, gboolean has_build_id)
{
  switch (problem)
    {
    case ST_FILE_NO_UNWIND_DATA:
      return "install its debug info (or set DEBUGINFOD_URLS)";
    case ST_FILE_DEBUG_WITHOUT_CFI:
      return "build it with unwind tables (-fasynchronous-unwind-tables), "
             "or keep .debug_frame in its debug file";
    case ST_FILE_NOT_ELF:
    case ST_FILE_NOT_REGULAR:
      return "give the real file's root with --symfs DIR";
    case ST_FILE_PROCESS_GONE:
      return "the process ran in another root (container, chroot) and no "
             "process of it was seen alive: give that root with --symfs "
             "DIR";
    default:
      break;
    }
  if (has_build_id)
    return "give the files as recorded: --symfs DIR, --buildid-dir DIR "
           "(an unpacked perf archive) or DEBUGINFOD_URLS";
  return "give the files as recorded with --symfs DIR (record with "
         "--buildid-mmap to allow --buildid-dir and debuginfod)";
}

static void
mount_clear (gpointer data)
{
  Mount *m = data;

  g_free (m->root);
  g_free (m->mount_point);
  g_free (m->source);
}

static void
prefix_clear (gpointer data)
{
  Prefix *p = data;

  g_free (p->inside);
  g_free (p->host);
}

static void
mounts_free (gpointer data)
{
  g_array_unref (data);
}

/* DIR if it is a directory (a copy), else NULL.  */
static char *
existing_dir (const char *dir)
{
  return dir != NULL && dir[0] != '\0' && g_file_test (dir, G_FILE_TEST_IS_DIR)
         ? g_strdup (dir) : NULL;
}

StFileResolver *
st_file_resolver_new (const char *symfs, const char *buildid_dir)
{
  return st_file_resolver_new_full (symfs, buildid_dir, NULL);
}

StFileResolver *
st_file_resolver_new_full (const char *symfs, const char *buildid_dir,
                           const char *perf_cache_dir)
{
  StFileResolver *r = g_new0 (StFileResolver, 1);
  char *dir;

  r->symfs = g_strdup (symfs);
  r->buildid_dirs = g_ptr_array_new_with_free_func (g_free);
  if ((dir = existing_dir (buildid_dir)) != NULL)
    g_ptr_array_add (r->buildid_dirs, dir);
  /* A copy of the recorded files may carry perf's cache beside them
     (an unpacked perf archive, a fixture with its [vdso]).  */
  g_autofree char *symfs_cache = symfs != NULL
                                 ? g_build_filename (symfs, ".build-id", NULL)
                                 : NULL;
  if (symfs_cache != NULL && g_file_test (symfs_cache, G_FILE_TEST_IS_DIR))
    g_ptr_array_add (r->buildid_dirs, g_strdup (symfs));
  r->n_given_dirs = r->buildid_dirs->len;
  if ((dir = existing_dir (perf_cache_dir)) != NULL)
    g_ptr_array_add (r->buildid_dirs, dir);
  r->mounts = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                     mounts_free);
  r->prefixes = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                       mounts_free);
  pthread_mutex_init (&r->mounts_lock, NULL);
  return r;
}

void
st_file_resolver_free (StFileResolver *r)
{
  if (r == NULL)
    return;
  g_free (r->symfs);
  g_ptr_array_unref (r->buildid_dirs);
  g_hash_table_destroy (r->mounts);
  g_hash_table_destroy (r->prefixes);
  pthread_mutex_destroy (&r->mounts_lock);
  if (!r->roots_borrowed)
    st_process_roots_free (r->roots);
  g_free (r);
}

void
st_file_resolver_set_given_only (StFileResolver *r)
{
  r->given_only = TRUE;
  g_ptr_array_set_size (r->buildid_dirs, r->n_given_dirs);
}

gboolean
st_file_resolver_given_only (const StFileResolver *r)
{
  return r->given_only;
}

void
st_file_resolver_hold_roots (StFileResolver *r)
{
  if (r->roots == NULL)
    r->roots = st_process_roots_new (ST_PROCESS_ROOTS_MAX_ROOTS,
                                     ST_PROCESS_ROOTS_MAX_PIDS);
}

void
st_file_resolver_share_roots (StFileResolver *r, StProcessRoots *roots)
{
  g_return_if_fail (r->roots == NULL);
  r->roots = roots;
  r->roots_borrowed = TRUE;
}

StProcessRoots *
st_file_resolver_roots (const StFileResolver *r)
{
  return r->roots;
}

const char *
st_file_resolver_symfs (const StFileResolver *r)
{
  return r->symfs;
}

/* --- mount tables ------------------------------------------------------ */

/* mountinfo escapes blanks and backslashes as \ooo.  */
static char *
unescape (const char *s)
{
  GString *out = g_string_new (NULL);

  for (; *s != '\0'; s++)
    if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0'
        && s[2] <= '7' && s[3] >= '0' && s[3] <= '7')
      {
        g_string_append_c (out, (char) ((s[1] - '0') << 6 | (s[2] - '0') << 3
                                        | (s[3] - '0')));
        s += 3;
      }
    else
      g_string_append_c (out, *s);
  return g_string_free (out, FALSE);
}

/* One line of /proc/PID/mountinfo ("ID PARENT MAJ:MIN ROOT MOUNTPOINT
   OPTIONS [TAGS...] - FSTYPE SOURCE SUPEROPTIONS") or of /proc/mounts
   ("SOURCE MOUNTPOINT FSTYPE OPTIONS 0 0", whose root is taken as /).  */
static gboolean
parse_mount_line (const char *line, Mount *m)
{
  g_auto (GStrv) f = g_strsplit_set (line, " \t", -1);
  guint n = g_strv_length (f);

  if (n >= 10 && strchr (f[2], ':') != NULL)
    {
      guint dash = 6;
      while (dash < n && strcmp (f[dash], "-") != 0)
        dash++;
      if (dash + 2 >= n)
        return FALSE;
      m->root = unescape (f[3]);
      m->mount_point = unescape (f[4]);
      m->source = unescape (f[dash + 2]);
      return m->root[0] == '/' && m->mount_point[0] == '/';
    }
  if (n >= 4 && f[1][0] == '/')
    {
      m->root = g_strdup ("/");
      m->mount_point = unescape (f[1]);
      m->source = unescape (f[0]);
      return TRUE;
    }
  return FALSE;
}

void
st_file_resolver_add_mountinfo (StFileResolver *r, int32_t pid,
                                const char *text, size_t len)
{
  g_autofree char *copy = g_strndup (text, len);
  GArray *mounts = g_array_new (FALSE, TRUE, sizeof (Mount));

  g_array_set_clear_func (mounts, mount_clear);
  /* Line by line in place, each line's end found once: g_strsplit()
     calls strstr() on the rest of the text at every line, which is
     quadratic wherever strstr() first measures its haystack (clang's
     AddressSanitizer: minutes for a table of 1 MiB).  */
  for (char *line = copy, *end; line != NULL; line = end)
    {
      Mount m = { 0 };

      end = strchr (line, '\n');
      if (end != NULL)
        *end++ = '\0';
      if (parse_mount_line (line, &m))
        g_array_append_val (mounts, m);
      else
        mount_clear (&m);
    }
  pthread_mutex_lock (&r->mounts_lock);
  if (g_hash_table_size (r->mounts) >= ST_FILE_RESOLVER_MAX_TABLES
      && !g_hash_table_contains (r->mounts, GINT_TO_POINTER (pid)))
    g_array_unref (mounts);     /* bounded: later processes go without */
  else
    g_hash_table_replace (r->mounts, GINT_TO_POINTER (pid), mounts);
  pthread_mutex_unlock (&r->mounts_lock);
}

static gint
by_order (gconstpointer a, gconstpointer b)
{
  const Prefix *x = a, *y = b;

  return x->order < y->order ? -1 : x->order > y->order;
}

void
st_file_resolver_add_prefix (StFileResolver *r, int32_t pid,
                             const char *inside, const char *host,
                             guint order)
{
  if (inside[0] != '/' || host[0] != '/')
    return;
  pthread_mutex_lock (&r->mounts_lock);
  GArray *list = g_hash_table_lookup (r->prefixes, GINT_TO_POINTER (pid));
  if (list == NULL
      && g_hash_table_size (r->prefixes) < ST_FILE_RESOLVER_MAX_TABLES)
    {
      list = g_array_new (FALSE, TRUE, sizeof (Prefix));
      g_array_set_clear_func (list, prefix_clear);
      g_hash_table_insert (r->prefixes, GINT_TO_POINTER (pid), list);
    }
  if (list != NULL && list->len < ST_FILE_RESOLVER_MAX_PREFIXES)
    {
      Prefix p = { g_strdup (inside), g_strdup (host), order };
      g_array_append_val (list, p);
      g_array_sort (list, by_order);
    }
  pthread_mutex_unlock (&r->mounts_lock);
}

/* Whether PATH lies under directory DIR; *REST is what follows (starting
   with '/' or empty).  */
static gboolean
under (const char *path, const char *dir, const char **rest)
{
  size_t n = strlen (dir);

  if (n == 1 && dir[0] == '/')
    {
      *rest = path;
      return TRUE;
    }
  if (strncmp (path, dir, n) != 0 || (path[n] != '/' && path[n] != '\0'))
    return FALSE;
  *rest = path + n;
  return TRUE;
}

/* The mount of MOUNTS that holds PATH (the deepest, the last one mounted
   there), or NULL; *REST: PATH below its mount point.  */
static const Mount *
holding_mount (GArray *mounts, const char *path, const char **rest)
{
  const Mount *best = NULL;
  size_t best_len = 0;

  for (guint i = 0; i < mounts->len; i++)
    {
      const Mount *m = &g_array_index (mounts, Mount, i);
      const char *r;
      size_t len = strlen (m->mount_point);
      if (under (path, m->mount_point, &r) && (best == NULL || len >= best_len))
        {
          best = m;
          best_len = len;
          *rest = r;
        }
    }
  return best;
}

/* PATH as the recorder saw it: the process's mount that holds PATH
   shows ROOT of filesystem SOURCE; where the recorder's table mounts
   SOURCE with a root above it.  NULL when the tables do not tell.  */
static char *
translate_locked (const StFileResolver *r, int32_t pid, const char *path)
{
  GArray *own = g_hash_table_lookup (r->mounts, GINT_TO_POINTER (pid));
  GArray *host = g_hash_table_lookup (r->mounts, GINT_TO_POINTER (0));
  const char *rest;

  if (own == NULL || host == NULL || pid == 0)
    return NULL;
  const Mount *m = holding_mount (own, path, &rest);
  if (m == NULL)
    return NULL;
  g_autofree char *in_fs = g_build_filename (m->root, rest, NULL);
  for (guint i = host->len; i-- > 0;)
    {
      const Mount *h = &g_array_index (host, Mount, i);
      const char *below;
      if (strcmp (h->source, m->source) == 0
          && under (in_fs, h->root, &below))
        {
          char *host_path = g_build_filename (h->mount_point, below, NULL);
          if (strcmp (host_path, path) != 0)
            return host_path;
          g_free (host_path);
          return NULL;
        }
    }
  return NULL;
}

static StFileCandidate *
add (GArray *list, StFileSource source, char *path, int fd)
{
  StFileCandidate c = { source, path, fd, FALSE, FALSE };

  g_array_append_val (list, c);
  return &g_array_index (list, StFileCandidate, list->len - 1);
}

/* What st_process_roots_foreach_other gives the candidates.  */
typedef struct
{
  GArray *list;
  const StMap *map;
  const char *path;
  guint added;
} OtherRoots;

/* Candidates from other roots (process-roots.h) may be any file of that
   name: only the mapped one is taken, by device and inode now, or by
   build-id later (a few).  */
#define MAX_OTHER_ROOT_CANDIDATES 4

static gboolean
add_other_root (int fd, guint root_number, void *user)
{
  OtherRoots *o = user;
  struct stat st;
  gboolean same_file
    = o->map->inode != 0 && fstat (fd, &st) == 0 && S_ISREG (st.st_mode)
      && (o->map->dev_major != 0 || o->map->dev_minor != 0)
      && major (st.st_dev) == o->map->dev_major
      && minor (st.st_dev) == o->map->dev_minor
      && (uint64_t) st.st_ino == o->map->inode;

  if (!same_file && o->map->build_id_len == 0)
    {
      close (fd);
      return FALSE;
    }
  add (o->list, ST_FILE_SOURCE_OTHER_ROOT,
       g_strdup_printf ("%s (in held root %u)", o->path, root_number),
       fd)->owns_fd = TRUE;
  return same_file || ++o->added == MAX_OTHER_ROOT_CANDIDATES;
}

/* Adds the candidates of PATH in the mount namespace of process PID:
   through its mount table, then its prefixes (overlay layers, Flatpak).  */
static void
add_translated (const StFileResolver *r, GArray *list, int32_t pid,
                const char *path)
{
  pthread_mutex_t *lock = &((StFileResolver *) r)->mounts_lock;

  if (pid <= 0)
    return;
  pthread_mutex_lock (lock);
  char *host_path = translate_locked (r, pid, path);
  if (host_path != NULL)
    add (list, ST_FILE_SOURCE_MOUNTS, host_path, -1);
  GArray *prefixes = g_hash_table_lookup (r->prefixes, GINT_TO_POINTER (pid));
  for (guint i = 0; prefixes != NULL && i < prefixes->len; i++)
    {
      const Prefix *p = &g_array_index (prefixes, Prefix, i);
      const char *rest;
      if (under (path, p->inside, &rest))
        add (list, ST_FILE_SOURCE_MOUNTS,
             g_build_filename (p->host, rest, NULL), -1);
    }
  pthread_mutex_unlock (lock);
}

/* --- candidates -------------------------------------------------------- */

void
st_file_pins_open (StFilePins *pins, const StMap *map)
{
  char path[96];

  *pins = ST_FILE_PINS_NONE;
  if (map->pid <= 0 || map->filename[0] != '/')
    return;
  g_snprintf (path, sizeof path, "/proc/%d/map_files/%" G_GINT64_MODIFIER
              "x-%" G_GINT64_MODIFIER "x", (int) map->pid, map->start,
              map->end);
  /* O_NONBLOCK: a FIFO must not hang us.  */
  pins->map_fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (pins->map_fd < 0 && errno == ENOENT)
    {
      /* No such mapping: is there a process at all?  */
      g_snprintf (path, sizeof path, "/proc/%d", (int) map->pid);
      if (access (path, F_OK) != 0)
        return;
    }
  g_autofree char *in_root = g_strdup_printf ("/proc/%d/root%s",
                                              (int) map->pid, map->filename);
  if (g_str_has_suffix (in_root, " (deleted)"))
    in_root[strlen (in_root) - strlen (" (deleted)")] = '\0';
  pins->root_fd = open (in_root, O_RDONLY | O_CLOEXEC | O_NONBLOCK
                                 | O_NOCTTY);
}

void
st_file_pins_close (StFilePins *pins)
{
  if (pins->root_fd >= 0)
    close (pins->root_fd);
  if (pins->map_fd >= 0)
    close (pins->map_fd);
  *pins = ST_FILE_PINS_NONE;
}

/* perf's build-id cache under DIR: .build-id/NN/REST is a link to the
   file's directory (holding "elf", or "vdso" for a kernel's [vdso]) or,
   in older perf, to the file.  */
static char *
buildid_cache_path (const char *dir, const char *hex)
{
  char nn[3] = { hex[0], hex[1], '\0' };
  char *path = g_build_filename (dir, ".build-id", nn, hex + 2, NULL);

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      char *vdso = g_build_filename (path, "vdso", NULL);
      char *file = g_file_test (vdso, G_FILE_TEST_EXISTS)
                   ? g_strdup (vdso) : g_build_filename (path, "elf", NULL);
      g_free (vdso);
      g_free (path);
      path = file;
    }
  return path;
}

static void
add_buildid_candidates (const StFileResolver *r, GArray *list,
                        const StMap *map)
{
  if (map->build_id_len == 0)
    return;
  g_autofree char *hex = st_build_id_hex (map->build_id, map->build_id_len);
  for (guint i = 0; i < r->buildid_dirs->len; i++)
    add (list, ST_FILE_SOURCE_BUILDID_DIR,
         buildid_cache_path (r->buildid_dirs->pdata[i], hex), -1);
}

GArray *
st_file_resolver_buildid_candidates (const StFileResolver *r,
                                     const StMap *map)
{
  GArray *list = g_array_new (FALSE, FALSE, sizeof (StFileCandidate));

  add_buildid_candidates (r, list, map);
  return list;
}

GArray *
st_file_resolver_given_vdsos (const StFileResolver *r)
{
  GArray *list = g_array_new (FALSE, FALSE, sizeof (StFileCandidate));

  for (guint i = 0; i < r->n_given_dirs; i++)
    {
      g_autofree char *top = g_build_filename (r->buildid_dirs->pdata[i],
                                               "[vdso]", NULL);
      GDir *dir = g_dir_open (top, 0, NULL);
      const char *name;
      /* A few at most; bounded against a hostile directory.  */
      for (guint n = 0; dir != NULL && n < 64
                        && (name = g_dir_read_name (dir)) != NULL; n++)
        add (list, ST_FILE_SOURCE_BUILDID_DIR,
             g_build_filename (top, name, "vdso", NULL), -1);
      if (dir != NULL)
        g_dir_close (dir);
    }
  return list;
}

GArray *
st_file_resolver_candidates (const StFileResolver *r, const StMap *map,
                             const char *path, const StFilePins *pins)
{
  GArray *list = g_array_new (FALSE, FALSE, sizeof (StFileCandidate));

  if (r->symfs != NULL)
    {
      g_autofree char *base = g_path_get_basename (path);
      add (list, ST_FILE_SOURCE_SYMFS,
           g_build_filename (r->symfs, path, NULL), -1);
      add (list, ST_FILE_SOURCE_SYMFS,
           g_build_filename (r->symfs, base, NULL), -1);
    }
  if (r->given_only)
    {
      add_buildid_candidates (r, list, map);
      return list;
    }
  if (pins != NULL && pins->root_fd >= 0)
    add (list, ST_FILE_SOURCE_PROC_ROOT,
         g_strdup_printf ("/proc/%d/root%s", (int) map->pid, path),
         pins->root_fd);
  if (pins != NULL && pins->map_fd >= 0)
    add (list, ST_FILE_SOURCE_MAP_FILES,
         g_strdup_printf ("/proc/%d/map_files/%" G_GINT64_MODIFIER "x-%"
                          G_GINT64_MODIFIER "x", (int) map->pid, map->start,
                          map->end), pins->map_fd);
  gboolean own_files = pins != NULL && st_file_pins_any (pins);
  if (r->roots != NULL && (pins == NULL || pins->root_fd < 0))
    {
      /* Gone, but its root was held when it was seen alive.  */
      gboolean inherited = FALSE;
      int fd = st_process_roots_open (r->roots, map->pid, path, &inherited);
      if (fd >= 0)
        {
          StFileCandidate *c
            = add (list, ST_FILE_SOURCE_PROC_ROOT,
                   g_strdup_printf ("/proc/%d/root%s (held)", (int) map->pid,
                                    path), fd);
          c->owns_fd = TRUE;
          c->process_unseen = inherited;
        }
    }
  add_translated (r, list, map->pid, path);
  if (r->roots != NULL && map->pid > 0)
    {
      OtherRoots o = { list, map, path, 0 };
      st_process_roots_foreach_other (r->roots, map->pid, path,
                                      add_other_root, &o);
    }
  add_buildid_candidates (r, list, map);
  add (list, ST_FILE_SOURCE_RECORDED, g_strdup (path), -1)->process_unseen
    = r->roots != NULL && map->pid > 0 && !own_files
      && !st_process_roots_seen_alive (r->roots, map->pid);
  return list;
}

void
st_file_candidates_free (GArray *candidates)
{
  for (guint i = 0; i < candidates->len; i++)
    {
      StFileCandidate *c = &g_array_index (candidates, StFileCandidate, i);
      g_free (c->path);
      if (c->owns_fd && c->fd >= 0)
        close (c->fd);
    }
  g_array_unref (candidates);
}

/* --- verification ------------------------------------------------------ */

StFileProblem
st_file_check_inode (const StMap *map, StFileSource source,
                     const struct stat *st, StFileVerification *how)
{
  *how = ST_FILE_UNVERIFIED;
  /* Only files of this machine as the process saw them; under --symfs
     or in a cache, device numbers mean nothing.  */
  if (source != ST_FILE_SOURCE_PROC_ROOT && source != ST_FILE_SOURCE_MAP_FILES
      && source != ST_FILE_SOURCE_OTHER_ROOT
      && source != ST_FILE_SOURCE_RECORDED)
    return ST_FILE_OK;
  if (map->inode == 0 || (map->dev_major == 0 && map->dev_minor == 0)
      || major (st->st_dev) != map->dev_major
      || minor (st->st_dev) != map->dev_minor)
    return ST_FILE_OK;
  if ((uint64_t) st->st_ino != map->inode)
    return ST_FILE_REPLACED;
  *how = ST_FILE_VERIFIED_INODE;
  return ST_FILE_OK;
}

char *
st_build_id_hex (const uint8_t *id, guint len)
{
  GString *s = g_string_sized_new (2 * len);

  for (guint i = 0; i < len; i++)
    g_string_append_printf (s, "%02x", id[i]);
  return g_string_free (s, FALSE);
}
