/* Module cache: one Elf per file, found under --symfs or at its path,
   checked against the recorded build-id.  */
#include "config.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/module-cache.h"

struct StModuleCache
{
  char *symfs;
  uint8_t *vdso;          /* a copy of our own vDSO image, or NULL */
  size_t vdso_size;
  GHashTable *modules;    /* key string -> StModule* */
};

static void
module_free (gpointer data)
{
  StModule *m = data;

  if (m->elf != NULL)
    elf_end (m->elf);
  if (m->fd >= 0)
    close (m->fd);
  g_ref_string_release ((char *) m->name);
  g_free (m->path);
  g_free (m->loads);
  g_free (m->error);
  g_free (m);
}

StModuleCache *
st_module_cache_new (const char *symfs)
{
  StModuleCache *c = g_new0 (StModuleCache, 1);

  elf_version (EV_CURRENT);
  c->symfs = g_strdup (symfs);
  c->modules = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                      module_free);
  return c;
}

void
st_module_cache_free (StModuleCache *c)
{
  if (c == NULL)
    return;
  g_hash_table_destroy (c->modules);
  g_free (c->vdso);
  g_free (c->symfs);
  g_free (c);
}

static char *
cache_key (const StMap *map)
{
  if (map->build_id_len > 0)
    {
      g_autofree char *hex = g_malloc (2 * map->build_id_len + 1);
      for (guint i = 0; i < map->build_id_len; i++)
        g_snprintf (hex + 2 * i, 3, "%02x", map->build_id[i]);
      return g_strdup_printf ("%s@%s", map->filename, hex);
    }
  return g_strdup_printf ("%s#%" G_GUINT64_FORMAT, map->filename, map->inode);
}

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

/* Opens PATH if it is a regular file holding ELF whose build-id matches
   MAP's (when MAP has one).  */
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
  g_free (m->path);
  g_free (m->loads);
  g_clear_pointer (&m->error, g_free);
  m->path = g_strdup (path);
  m->fd = fd;
  m->elf = elf;
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
  elf_end (m->elf);
  close (m->fd);
  m->elf = NULL;
  m->fd = -1;
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
  m->image = c->vdso;
  m->image_size = c->vdso_size;
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
  if (m->elf != NULL)
    elf_end (m->elf);
  m->elf = NULL;
  m->image = NULL;
}

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

  /* A file replaced since it was mapped: the kernel names it so.  */
  g_autofree char *path = g_strdup (name);
  if (g_str_has_suffix (path, " (deleted)"))
    path[strlen (path) - strlen (" (deleted)")] = '\0';

  if (c->symfs != NULL)
    {
      g_autofree char *under = g_build_filename (c->symfs, path, NULL);
      g_autofree char *base = g_path_get_basename (path);
      g_autofree char *flat = g_build_filename (c->symfs, base, NULL);
      if (try_open (m, map, under) || try_open (m, map, flat))
        return;
    }
  if (try_open (m, map, path))
    return;
  if (m->error == NULL)
    m->error = g_strdup_printf ("%s: cannot open: %s", path,
                                g_strerror (errno));
}

StModule *
st_module_cache_get (StModuleCache *c, const StMap *map)
{
  char *key = cache_key (map);
  StModule *m = g_hash_table_lookup (c->modules, key);

  if (m != NULL)
    {
      g_free (key);
      return m;
    }
  m = g_new0 (StModule, 1);
  m->fd = -1;
  m->name = g_ref_string_new_intern (map->filename);
  open_module (c, m, map);
  g_hash_table_insert (c->modules, key, m);
  return m;
}

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
  if (m->image != NULL)
    return elf_memory ((char *) m->image, m->image_size);
  return elf_begin (-1, ELF_C_READ_MMAP, m->elf);
}

gboolean
st_module_read (const StModule *m, uint64_t offset, void *buf, size_t len)
{
  if (m->image != NULL)
    {
      if (offset > m->image_size || m->image_size - offset < len)
        return FALSE;
      memcpy (buf, m->image + offset, len);
      return TRUE;
    }
  if (m->fd < 0)
    return FALSE;
  return pread (m->fd, buf, len, (off_t) offset) == (ssize_t) len;
}

guint
st_module_cache_size (StModuleCache *c)
{
  return g_hash_table_size (c->modules);
}
