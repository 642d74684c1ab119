/* The file of a module: where it is found, what identifies it, opening
   and inspecting it.  Everything here touches only the module it is
   given (and reads the sources, which do not change once modules are
   opened), so it runs on worker threads as well as on the main thread.  */
#include "config.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mapping-guard.h"
#include "model/module-file.h"

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
  st_mapping_guard_remove (m->guard);
  m->guard = NULL;
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
  /* Truncated in place while we read it: a SIGBUS the guard turns into
     zeros and a mark (the module's samples then stop at it).  */
  st_mapping_guard_install ();
  st_mapping_guard_remove (m->guard);
  m->guard = st_mapping_guard_add (data, size);
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
open_vdso (const StModuleSources *s, StModule *m, const StMap *map)
{
  if (s->vdso == NULL)
    {
      m->error = g_strdup ("[vdso]: no vDSO of our own to compare with");
      return;
    }
  m->data = s->vdso;
  m->size = s->vdso_size;
  m->path = g_strdup ("[vdso]");
  m->elf = elf_memory ((char *) s->vdso, s->vdso_size);
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
candidates (const StModuleSources *s, const char *path)
{
  GPtrArray *list = g_ptr_array_new ();

  if (s->symfs != NULL)
    {
      g_autofree char *base = g_path_get_basename (path);
      g_ptr_array_add (list, g_build_filename (s->symfs, path, NULL));
      g_ptr_array_add (list, g_build_filename (s->symfs, base, NULL));
    }
  g_ptr_array_add (list, g_strdup (path));
  g_ptr_array_add (list, NULL);
  return (char **) g_ptr_array_free (list, FALSE);
}

void
st_module_file_open (const StModuleSources *s, StModule *m, const StMap *map)
{
  const char *name = map->filename;

  if (strcmp (name, "[vdso]") == 0)
    {
      open_vdso (s, m, map);
      return;
    }
  if (name[0] != '/')
    {
      m->error = g_strdup_printf ("%s: not a file", name);
      return;
    }

  g_autofree char *path = local_path (name);
  g_auto (GStrv) where = candidates (s, path);
  for (guint i = 0; where[i] != NULL; i++)
    if (try_open (m, map, where[i]))
      return;
  int open_errno = errno;
  g_autofree char *local_error =
    m->error != NULL ? g_strdup (m->error)
                     : g_strdup_printf ("%s: cannot open: %s", path,
                                        g_strerror (open_errno));

  if (s->finder != NULL)
    {
      g_autofree char *why = NULL;
      /* Maybe a download: the main thread may look (st_module_fetching).  */
      g_atomic_int_inc (&m->fetching);
      g_autofree char *found = s->finder (ST_MODULE_FILE_EXECUTABLE, path,
                                          map->build_id, map->build_id_len,
                                          &why, s->finder_data);
      g_atomic_int_dec_and_test (&m->fetching);
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

char *
st_module_file_key (const StModuleSources *s, const StMap *map)
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
  g_auto (GStrv) where = candidates (s, path);
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

void
st_module_sources_init (StModuleSources *s, const char *symfs)
{
  const uint8_t *ours = (const uint8_t *) getauxval (AT_SYSINFO_EHDR);

  memset (s, 0, sizeof *s);
  s->symfs = g_strdup (symfs);
  /* Copied now, once: workers opening [vdso] modules only read it.  */
  if (ours != NULL && memcmp (ours, ELFMAG, SELFMAG) == 0
      && ours[EI_CLASS] == ELFCLASS64)
    {
      s->vdso_size = elf_image_size (ours);
      s->vdso = g_memdup2 (ours, s->vdso_size);
    }
}

void
st_module_sources_clear (StModuleSources *s)
{
  g_free (s->symfs);
  g_free (s->vdso);
  memset (s, 0, sizeof *s);
}
