/* Module cache: one StModule per file, found under --symfs, at its path
   or through the fallback finder, checked against the recorded build-id,
   bounded with LRU eviction of the modules no process state uses.  */
#include "config.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/module-cache.h"

/* What the stream recorded for a mapping: the cheap first lookup.  */
typedef struct
{
  const char *filename;     /* interned ref string (held): compared by
                               pointer */
  uint64_t inode;
  uint8_t build_id_len;
  uint8_t build_id[ST_BUILD_ID_MAX];
} Recorded;

struct StModuleCache
{
  char *symfs;
  uint8_t *vdso;            /* a copy of our own vDSO image, or NULL */
  size_t vdso_size;
  GHashTable *by_key;       /* key string -> StModule* (owns them) */
  GHashTable *by_recorded;  /* Recorded* -> StModule* */
  GQueue lru;               /* unused modules, most recently used first */
  guint max_modules;
  size_t max_bytes;
  size_t bytes;
  guint64 evictions;
  StModulePrepare prepare;
  void *prepare_data;
  StModuleFinder finder;
  void *finder_data;
};

static guint
recorded_hash (gconstpointer key)
{
  const Recorded *r = key;
  guint h = g_direct_hash (r->filename) ^ (guint) (r->inode * 0x9e3779b1u);

  for (guint i = 0; i < r->build_id_len; i++)
    h = h * 31 + r->build_id[i];
  return h;
}

static gboolean
recorded_equal (gconstpointer a, gconstpointer b)
{
  const Recorded *x = a, *y = b;

  return x->filename == y->filename && x->inode == y->inode
         && x->build_id_len == y->build_id_len
         && memcmp (x->build_id, y->build_id, x->build_id_len) == 0;
}

static void
recorded_free (gpointer data)
{
  Recorded *r = data;

  g_ref_string_release ((char *) r->filename);
  g_free (r);
}

static void
module_free (gpointer data)
{
  StModule *m = data;

  if (m->tables_free != NULL)
    m->tables_free (m->tables);
  if (m->elf != NULL)
    elf_end (m->elf);
  g_ref_string_release ((char *) m->name);
  g_free (m->path);
  g_free (m->loads);
  g_free (m->error);
  g_free (m->key);
  g_free (m);
}

StModuleCache *
st_module_cache_new (const char *symfs)
{
  StModuleCache *c = g_new0 (StModuleCache, 1);

  elf_version (EV_CURRENT);
  c->symfs = g_strdup (symfs);
  c->by_key = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                     module_free);
  c->by_recorded = g_hash_table_new_full (recorded_hash, recorded_equal,
                                          recorded_free, NULL);
  g_queue_init (&c->lru);
  c->max_modules = ST_MODULE_CACHE_MAX_MODULES;
  c->max_bytes = ST_MODULE_CACHE_MAX_BYTES;
  return c;
}

void
st_module_cache_free (StModuleCache *c)
{
  if (c == NULL)
    return;
  g_hash_table_destroy (c->by_recorded);
  g_hash_table_destroy (c->by_key);
  g_free (c->vdso);
  g_free (c->symfs);
  g_free (c);
}

void
st_module_cache_set_limits (StModuleCache *c, guint max_modules,
                            size_t max_bytes)
{
  if (max_modules > 0)
    c->max_modules = max_modules;
  if (max_bytes > 0)
    c->max_bytes = max_bytes;
}

void
st_module_cache_set_prepare (StModuleCache *c, StModulePrepare prepare,
                             void *user_data)
{
  c->prepare = prepare;
  c->prepare_data = user_data;
}

void
st_module_cache_set_finder (StModuleCache *c, StModuleFinder finder,
                            void *user_data)
{
  c->finder = finder;
  c->finder_data = user_data;
}

const char *
st_module_identity (const StModule *m)
{
  return m->key;
}

char *
st_module_find_file (const StModule *m, StModuleFileKind kind)
{
  StModuleCache *c = m->cache;

  if (c == NULL || c->finder == NULL)
    return NULL;
  return c->finder (kind, m->path != NULL ? m->path : m->name, m->build_id,
                    m->build_id_len, NULL, c->finder_data);
}

/* --- opening ------------------------------------------------------------ */

/* Reads the program headers and build-id of M->elf.  */
static gboolean
inspect_elf (StModule *m)
{
  GElf_Ehdr ehdr;
  size_t phnum;

  if (elf_kind (m->elf) != ELF_K_ELF || gelf_getehdr (m->elf, &ehdr) == NULL
      || elf_getphdrnum (m->elf, &phnum) != 0)
    {
      m->error = g_strdup_printf ("%s: not an ELF file", m->path);
      return FALSE;
    }
  m->machine = ehdr.e_machine;
  m->elf_class = gelf_getclass (m->elf);
  m->entry = ehdr.e_entry;
  m->loads = g_new0 (StLoadSegment, MAX (phnum, 1));
  for (size_t i = 0; i < phnum; i++)
    {
      GElf_Phdr ph;
      if (gelf_getphdr (m->elf, i, &ph) == NULL || ph.p_type != PT_LOAD)
        continue;
      if (m->n_loads == 0)
        m->low_vaddr = ph.p_vaddr & -(ph.p_align ? ph.p_align : 1);
      m->high_vaddr = MAX (m->high_vaddr, ph.p_vaddr + ph.p_memsz);
      m->loads[m->n_loads++] = (StLoadSegment) { ph.p_vaddr, ph.p_offset,
                                                 ph.p_filesz, ph.p_memsz };
    }
  if (m->n_loads == 0)
    {
      m->error = g_strdup_printf ("%s: no loadable segment", m->path);
      return FALSE;
    }

  const void *id = NULL;
  ssize_t len = dwelf_elf_gnu_build_id (m->elf, &id);
  if (len > 0)
    {
      m->build_id_len = MIN ((size_t) len, (size_t) ST_BUILD_ID_MAX);
      memcpy (m->build_id, id, m->build_id_len);
    }
  return TRUE;
}

static void
forget_elf (StModule *m)
{
  if (m->elf != NULL)
    elf_end (m->elf);
  m->elf = NULL;
  m->data = NULL;
  m->size = 0;
}

/* Opens PATH if it is a regular file holding ELF whose build-id matches
   MAP's (when MAP has one).  The descriptor is closed before returning:
   libelf keeps the whole file mapped (or read, if it cannot map it).  */
static gboolean
try_open (StModule *m, const StMap *map, const char *path)
{
  /* O_NONBLOCK: a FIFO named by a hostile map must not hang us.  */
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  struct stat st;

  if (fd < 0)
    return FALSE;
  /* Only a regular file can hold ELF, and not one smaller than an ELF
     header (/proc and /sys files claim a size of 0 or 4096).  */
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode)
      || st.st_size < (off_t) sizeof (Elf32_Ehdr))
    {
      close (fd);
      return FALSE;
    }
  Elf *elf = elf_begin (fd, ELF_C_READ_MMAP, NULL);
  if (elf == NULL)
    {
      close (fd);
      return FALSE;
    }
  size_t size = 0;
  const char *data = NULL;
  if (elf_cntl (elf, ELF_C_FDREAD) == 0)
    data = elf_rawfile (elf, &size);
  elf_cntl (elf, ELF_C_FDDONE);
  close (fd);
  if (data == NULL)
    {
      elf_end (elf);
      return FALSE;
    }

  g_free (m->path);
  g_free (m->loads);
  g_clear_pointer (&m->error, g_free);
  m->path = g_strdup (path);
  m->elf = elf;
  m->data = (const uint8_t *) data;
  m->size = size;
  m->n_loads = 0;
  m->loads = NULL;
  m->build_id_len = 0;
  if (inspect_elf (m)
      && (map->build_id_len == 0
          || (m->build_id_len == map->build_id_len
              && memcmp (m->build_id, map->build_id, m->build_id_len) == 0)))
    return TRUE;
  if (m->error == NULL)
    m->error = g_strdup_printf ("%s: build-id differs from the recorded one",
                                path);
  forget_elf (m);
  return FALSE;
}

/* Size of the ELF image at IMAGE: up to the end of its section headers
   or of its loaded segments, whichever is last.  */
static size_t
elf_image_size (const uint8_t *image)
{
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *) image;
  size_t size = eh->e_shoff + (size_t) eh->e_shnum * eh->e_shentsize;

  for (int i = 0; i < eh->e_phnum; i++)
    {
      const Elf64_Phdr *ph = (const Elf64_Phdr *)
        (image + eh->e_phoff + (size_t) i * eh->e_phentsize);
      if (ph->p_type == PT_LOAD)
        size = MAX (size, ph->p_offset + ph->p_filesz);
    }
  return size;
}

/* The [vdso] of a recorded process is the running kernel's when the
   recording was made here: use our own copy if it matches (by build-id
   when known, else by size), as perf does.  */
static void
open_vdso (StModuleCache *c, StModule *m, const StMap *map)
{
  const uint8_t *ours = (const uint8_t *) getauxval (AT_SYSINFO_EHDR);

  if (ours == NULL || memcmp (ours, ELFMAG, SELFMAG) != 0
      || ours[EI_CLASS] != ELFCLASS64)
    {
      m->error = g_strdup ("[vdso]: no vDSO of our own to compare with");
      return;
    }
  if (c->vdso == NULL)
    {
      c->vdso_size = elf_image_size (ours);
      c->vdso = g_memdup2 (ours, c->vdso_size);
    }
  m->data = c->vdso;
  m->size = c->vdso_size;
  m->path = g_strdup ("[vdso]");
  m->elf = elf_memory ((char *) c->vdso, c->vdso_size);
  if (m->elf == NULL || !inspect_elf (m))
    goto unusable;
  if (map->build_id_len > 0
      ? (m->build_id_len != map->build_id_len
         || memcmp (m->build_id, map->build_id, m->build_id_len) != 0)
      : map->end - map->start != ((m->high_vaddr - m->low_vaddr + 4095) & ~4095ull))
    {
      g_free (m->error);
      m->error = g_strdup ("[vdso]: recorded on another kernel");
      goto unusable;
    }
  return;

unusable:
  if (m->error == NULL)
    m->error = g_strdup ("[vdso]: not a usable ELF image");
  forget_elf (m);
}

/* The recorded path without the " (deleted)" the kernel adds to a file
   replaced since it was mapped.  */
static char *
local_path (const char *name)
{
  char *path = g_strdup (name);

  if (g_str_has_suffix (path, " (deleted)"))
    path[strlen (path) - strlen (" (deleted)")] = '\0';
  return path;
}

/* Where a file recorded as PATH is looked for, in order: under --symfs
   (SYMFS/PATH, SYMFS/BASENAME), then PATH itself.  NULL-terminated.  */
static char **
candidates (StModuleCache *c, const char *path)
{
  GPtrArray *list = g_ptr_array_new ();

  if (c->symfs != NULL)
    {
      g_autofree char *base = g_path_get_basename (path);
      g_ptr_array_add (list, g_build_filename (c->symfs, path, NULL));
      g_ptr_array_add (list, g_build_filename (c->symfs, base, NULL));
    }
  g_ptr_array_add (list, g_strdup (path));
  g_ptr_array_add (list, NULL);
  return (char **) g_ptr_array_free (list, FALSE);
}

/* Finds and opens the file of MAP: --symfs, the recorded path, then the
   fallback finder.  Touches only M (and the vDSO copy).  */
static void
open_module (StModuleCache *c, StModule *m, const StMap *map)
{
  const char *name = map->filename;

  if (strcmp (name, "[vdso]") == 0)
    {
      open_vdso (c, m, map);
      return;
    }
  if (name[0] != '/')
    {
      m->error = g_strdup_printf ("%s: not a file", name);
      return;
    }

  g_autofree char *path = local_path (name);
  g_auto (GStrv) where = candidates (c, path);
  for (guint i = 0; where[i] != NULL; i++)
    if (try_open (m, map, where[i]))
      return;
  int open_errno = errno;
  g_autofree char *local_error =
    m->error != NULL ? g_strdup (m->error)
                     : g_strdup_printf ("%s: cannot open: %s", path,
                                        g_strerror (open_errno));

  if (c->finder != NULL)
    {
      g_autofree char *why = NULL;
      g_autofree char *found = c->finder (ST_MODULE_FILE_EXECUTABLE, path,
                                          map->build_id, map->build_id_len,
                                          &why, c->finder_data);
      if (found != NULL && try_open (m, map, found))
        return;
      if (found != NULL || why != NULL)
        {
          /* Say why the fallback did not help either.  */
          g_free (m->error);
          m->error = g_strdup_printf ("%s; %s", local_error,
                                      why != NULL ? why
                                      : "the file found is unusable");
          return;
        }
    }
  if (m->error == NULL)
    m->error = g_steal_pointer (&local_error);
}

/* The identity of MAP's file: its build-id when recorded, else the
   recorded path and inode plus the local file's device, inode and
   modification time (so a replaced file is another module).  */
static char *
module_key (StModuleCache *c, const StMap *map)
{
  if (map->build_id_len > 0)
    {
      GString *key = g_string_new (strcmp (map->filename, "[vdso]") == 0
                                   ? "vdso:" : "b:");
      for (guint i = 0; i < map->build_id_len; i++)
        g_string_append_printf (key, "%02x", map->build_id[i]);
      return g_string_free (key, FALSE);
    }
  if (map->filename[0] != '/')
    return g_strdup_printf ("%s#%" G_GUINT64_FORMAT, map->filename,
                            map->end - map->start);

  g_autofree char *path = local_path (map->filename);
  g_auto (GStrv) where = candidates (c, path);
  for (guint i = 0; where[i] != NULL; i++)
    {
      struct stat st;
      if (stat (where[i], &st) == 0 && S_ISREG (st.st_mode))
        return g_strdup_printf ("f:%s#%" G_GUINT64_FORMAT ":%s:%ju:%ju:%jd.%09ld",
                                map->filename, map->inode, where[i],
                                (uintmax_t) st.st_dev, (uintmax_t) st.st_ino,
                                (intmax_t) st.st_mtim.tv_sec,
                                st.st_mtim.tv_nsec);
    }
  return g_strdup_printf ("f:%s#%" G_GUINT64_FORMAT ":missing", map->filename,
                          map->inode);
}

/* --- bounds ---------------------------------------------------------------- */

static gboolean
points_to (gpointer key, gpointer value, gpointer module)
{
  return value == module;
}

static void
evict (StModuleCache *c, StModule *m)
{
  g_queue_unlink (&c->lru, &m->lru);
  g_hash_table_foreach_remove (c->by_recorded, points_to, m);
  c->bytes -= m->bytes;
  c->evictions++;
  g_hash_table_remove (c->by_key, m->key);
}

/* Evicts unused modules, least recently used first, until one more
   module of EXTRA bytes fits.  */
static void
make_room (StModuleCache *c, size_t extra)
{
  while (c->lru.tail != NULL
         && (g_hash_table_size (c->by_key) + 1 > c->max_modules
             || c->bytes + extra > c->max_bytes))
    evict (c, c->lru.tail->data);
}

void
st_module_account (StModule *m, gssize delta)
{
  m->bytes += delta;
  if (m->cache != NULL)
    m->cache->bytes += delta;
}

static StModule *
lookup (StModuleCache *c, const StMap *map)
{
  Recorded rec = { map->filename, map->inode, map->build_id_len };
  memcpy (rec.build_id, map->build_id, map->build_id_len);

  StModule *m = g_hash_table_lookup (c->by_recorded, &rec);
  if (m != NULL)
    return m;

  char *key = module_key (c, map);
  m = g_hash_table_lookup (c->by_key, key);
  if (m != NULL)
    g_free (key);
  else
    {
      make_room (c, 0);
      m = g_new0 (StModule, 1);
      m->name = g_ref_string_acquire ((char *) map->filename);
      m->key = key;
      m->lru.data = m;
      m->cache = c;
      open_module (c, m, map);
      /* The [vdso] copy is shared and not counted.  */
      st_module_account (m, m->data != c->vdso ? m->size : 0);
      if (m->elf != NULL && c->prepare != NULL)
        c->prepare (m, c->prepare_data);
      g_hash_table_insert (c->by_key, m->key, m);
      g_queue_push_head_link (&c->lru, &m->lru);
      /* A big file may push others out.  */
      while (c->bytes > c->max_bytes && c->lru.tail != &m->lru)
        evict (c, c->lru.tail->data);
    }
  /* The key holds a reference: the name's address cannot be reused for
     another name while the entry exists.  */
  g_ref_string_acquire ((char *) rec.filename);
  g_hash_table_insert (c->by_recorded, g_memdup2 (&rec, sizeof rec), m);
  return m;
}

StModule *
st_module_cache_get (StModuleCache *c, const StMap *map)
{
  StModule *m = lookup (c, map);

  if (m->users == 0 && c->lru.head != &m->lru)
    {
      g_queue_unlink (&c->lru, &m->lru);
      g_queue_push_head_link (&c->lru, &m->lru);
    }
  return m;
}

StModule *
st_module_cache_acquire (StModuleCache *c, const StMap *map)
{
  StModule *m = lookup (c, map);

  if (m->users++ == 0)
    g_queue_unlink (&c->lru, &m->lru);
  return m;
}

void
st_module_cache_release (StModuleCache *c, StModule *m)
{
  g_assert (m->users > 0);
  if (--m->users == 0)
    g_queue_push_head_link (&c->lru, &m->lru);
}

/* --- reading ---------------------------------------------------------------- */

gboolean
st_module_bias (const StModule *m, const StMap *map, uint64_t *bias)
{
  const uint64_t page = 4096;

  for (guint i = 0; i < m->n_loads; i++)
    {
      const StLoadSegment *s = &m->loads[i];
      uint64_t seg_start = s->offset & ~(page - 1);
      if (map->pgoff >= seg_start && map->pgoff < s->offset + MAX (s->filesz, 1))
        {
          /* vaddr - offset is the same for every byte of the segment.  */
          *bias = map->start - map->pgoff - (s->vaddr - s->offset);
          return TRUE;
        }
    }
  return FALSE;
}

Elf *
st_module_elf_ref (const StModule *m)
{
  if (m->elf == NULL)
    return NULL;
  if (m->cache != NULL && m->data == m->cache->vdso)
    return elf_memory ((char *) m->data, m->size);
  return elf_begin (-1, ELF_C_READ_MMAP, m->elf);
}

gboolean
st_module_read (const StModule *m, uint64_t offset, void *buf, size_t len)
{
  if (m->data == NULL || offset > m->size || m->size - offset < len)
    return FALSE;
  memcpy (buf, m->data + offset, len);
  return TRUE;
}

guint
st_module_cache_size (StModuleCache *c)
{
  return g_hash_table_size (c->by_key);
}

size_t
st_module_cache_bytes (StModuleCache *c)
{
  return c->bytes;
}

guint64
st_module_cache_evictions (StModuleCache *c)
{
  return c->evictions;
}
