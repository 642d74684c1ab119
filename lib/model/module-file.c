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
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/mapping-guard.h"
#include "model/code-pages.h"
#include "model/module-cache-private.h"
#include "model/module-file.h"

/* Whether ELF has a section holding call frame information (.eh_frame,
   .debug_frame, compressed or not), by name.  */
static gboolean
has_unwind_sections (Elf *elf)
{
  size_t shstrndx;
  Elf_Scn *scn = NULL;

  if (elf_getshdrstrndx (elf, &shstrndx) != 0)
    return TRUE;          /* cannot tell: do not blame the file */
  while ((scn = elf_nextscn (elf, scn)) != NULL)
    {
      GElf_Shdr shdr;
      const char *name;
      if (gelf_getshdr (scn, &shdr) != NULL && shdr.sh_type != SHT_NOBITS
          && shdr.sh_size > 0
          && (name = elf_strptr (elf, shstrndx, shdr.sh_name)) != NULL
          && (strcmp (name, ".eh_frame") == 0
              || strcmp (name, ".debug_frame") == 0
              || strcmp (name, ".zdebug_frame") == 0))
        return TRUE;
    }
  return FALSE;
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
  m->entry = ehdr.e_entry;
  m->fixed_address = ehdr.e_type == ET_EXEC;
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
                                                 ph.p_filesz, ph.p_memsz,
                                                 ph.p_flags };
    }
  if (m->n_loads == 0)
    {
      m->error = g_strdup_printf ("%s: no loadable segment", m->path);
      return FALSE;
    }

  m->no_unwind_sections = !has_unwind_sections (m->elf);
  const void *id = NULL;
  ssize_t len = dwelf_elf_gnu_build_id (m->elf, &id);
  if (len > 0)
    {
      m->build_id_len = MIN ((size_t) len, (size_t) ST_BUILD_ID_MAX);
      memcpy (m->build_id, id, m->build_id_len);
    }
  return TRUE;
}

/* Keeps FD open as M's for st_module_pread when M has much code (the
   return-address check reads a few bytes here and there all over it:
   through the mapping, most of it would become resident) and the budget
   allows; else closes it.  */
static void
keep_for_code (const StModuleSources *s, StModule *m, int fd)
{
  uint64_t code = 0;

  for (guint i = 0; i < m->n_loads; i++)
    if (m->loads[i].flags & PF_X)
      code = MAX (code, m->loads[i].filesz);
  if (code >= ST_MODULE_KEPT_FD_MIN_CODE
      && st_code_pages_take_fd (s->code_pages))
    {
      m->fd = fd;
      m->fd_kept = TRUE;
      m->code_pages = s->code_pages;
      m->code_file_id = st_code_pages_file_id (s->code_pages);
      return;
    }
  close (fd);
}

void
st_module_file_close_fd (StModule *m)
{
  if (!m->fd_kept)
    return;
  close (m->fd);
  m->fd_kept = FALSE;
  st_code_pages_drop_fd (m->code_pages);
  m->code_pages = NULL;
}

static void
forget_elf (StModule *m)
{
  st_module_file_close_fd (m);
  st_mapping_guard_remove (m->guard);
  m->guard = NULL;
  /* What the old file's debug file told is not the next file's.  */
  __atomic_store_n (&m->debug_guard, NULL, __ATOMIC_RELEASE);
  __atomic_store_n (&m->debug_file_found, FALSE, __ATOMIC_RELEASE);
  if (m->elf != NULL)
    elf_end (m->elf);
  m->elf = NULL;
  m->data = NULL;
  m->size = 0;
}

static void
forget_file (StModule *m)
{
  forget_elf (m);
  g_clear_pointer (&m->path, g_free);
  g_clear_pointer (&m->loads, g_free);
  m->n_loads = 0;
  m->build_id_len = 0;
}

/* Opens candidate C if it is a regular file holding ELF whose identity
   matches MAP's (build-id, else inode: file-resolver.h).  Returns
   ST_FILE_OK, or why not with the reason in *WHY (newly allocated).  The
   descriptor is closed before returning (libelf keeps the whole file
   mapped, or read, if it cannot map it), unless it is kept for
   st_module_pread.  */
static StFileProblem
try_open (const StModuleSources *s, StModule *m, const StMap *map,
          const StFileCandidate *c, char **why)
{
  /* O_NONBLOCK: a FIFO named by a hostile map must not hang us.  */
  int fd = c->fd >= 0 ? fcntl (c->fd, F_DUPFD_CLOEXEC, 0)
                      : open (c->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK
                                       | O_NOCTTY);
  struct stat st;
  StFileVerification how = ST_FILE_UNVERIFIED;

  if (fd < 0)
    {
      int open_errno = errno;
      *why = g_strdup_printf ("%s: cannot open: %s", c->path,
                              g_strerror (open_errno));
      return open_errno == ENOENT || open_errno == ENOTDIR
             ? ST_FILE_MISSING : ST_FILE_NOT_REGULAR;
    }
  /* Only a regular file can hold ELF, and not one smaller than an ELF
     header (/proc and /sys files claim a size of 0 or 4096).  */
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      *why = g_strdup_printf ("%s: not a regular file", c->path);
      return ST_FILE_NOT_REGULAR;
    }
  /* The build-id, when recorded, is checked instead (below).  */
  if (map->build_id_len == 0
      && st_file_check_inode (map, c->source, &st, &how) != ST_FILE_OK)
    {
      close (fd);
      if (c->process_unseen)
        {
          /* Live: nothing of its own was found, so most likely it ran
             in another root and ended before it was read.  */
          *why = g_strdup_printf ("%s: not the mapped file (recorded inode "
                                  "%" G_GUINT64_FORMAT ", found %ju on the "
                                  "same device); process %d ended before "
                                  "its files were found", c->path,
                                  map->inode, (uintmax_t) st.st_ino,
                                  (int) map->pid);
          return ST_FILE_PROCESS_GONE;
        }
      *why = g_strdup_printf ("%s: replaced since recorded (recorded inode "
                              "%" G_GUINT64_FORMAT ", found %ju on the same "
                              "device)", c->path, map->inode,
                              (uintmax_t) st.st_ino);
      return ST_FILE_REPLACED;
    }
  Elf *elf = st.st_size < (off_t) sizeof (Elf32_Ehdr) ? NULL
             : elf_begin (fd, ELF_C_READ_MMAP, NULL);
  size_t size = 0;
  const char *data = NULL;
  if (elf != NULL)
    {
      if (elf_cntl (elf, ELF_C_FDREAD) == 0)
        data = elf_rawfile (elf, &size);
      elf_cntl (elf, ELF_C_FDDONE);
    }
  if (data == NULL)
    {
      close (fd);
      if (elf != NULL)
        elf_end (elf);
      *why = g_strdup_printf ("%s: not an ELF file", c->path);
      return ST_FILE_NOT_ELF;
    }

  forget_file (m);
  g_clear_pointer (&m->error, g_free);
  m->path = g_strdup (c->path);
  m->elf = elf;
  m->data = (const uint8_t *) data;
  m->size = size;
  /* Truncated in place while we read it: a SIGBUS the guard (once the
     caller installed it) turns into zeros and a mark (the module's
     samples then stop at it).  */
  m->guard = st_mapping_guard_add (data, size);
  if (!inspect_elf (m))
    {
      close (fd);
      *why = g_steal_pointer (&m->error);
      forget_file (m);
      return ST_FILE_NOT_ELF;
    }
  keep_for_code (s, m, fd);
  if (map->build_id_len == 0)
    {
      m->verification = how;
      m->source = c->source;
      return ST_FILE_OK;
    }
  if (m->build_id_len == map->build_id_len
      && memcmp (m->build_id, map->build_id, m->build_id_len) == 0)
    {
      m->verification = ST_FILE_VERIFIED_BUILD_ID;
      m->source = c->source;
      return ST_FILE_OK;
    }
  g_autofree char *recorded = st_build_id_hex (map->build_id,
                                               map->build_id_len);
  g_autofree char *found = m->build_id_len > 0
                           ? st_build_id_hex (m->build_id, m->build_id_len)
                           : g_strdup ("none");
  *why = g_strdup_printf ("%s: build-id mismatch: recorded %s, found %s",
                          c->path, recorded, found);
  forget_file (m);
  return ST_FILE_BUILD_ID_MISMATCH;
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

/* Whether module M's image spans MAP, as a [vdso] mapping does.  */
static gboolean
vdso_spans (const StModule *m, const StMap *map)
{
  return map->end - map->start
         == ((m->high_vaddr - m->low_vaddr + 4095) & ~4095ull);
}

/* Opens into M the one copy among CANDIDATES that fits MAP: by MAP's
   build-id when it has one (the first that opens), else by size, and
   then only when the copies of that size are all one image (several
   kernels' vDSOs often have the same size).  *WHY: the last reason a
   candidate was refused.  */
static gboolean
open_vdso_copy (const StModuleSources *s, StModule *m, const StMap *map,
                GArray *candidates, char **why)
{
  const StFileCandidate *pick = NULL;
  uint8_t pick_id[ST_BUILD_ID_MAX];
  guint pick_id_len = 0;

  for (guint i = 0; i < candidates->len; i++)
    {
      const StFileCandidate *c = &g_array_index (candidates,
                                                 StFileCandidate, i);
      char *reason = NULL;
      if (try_open (s, m, map, c, &reason) != ST_FILE_OK)
        {
          g_free (*why);
          *why = reason;
          continue;
        }
      if (map->build_id_len > 0)
        return TRUE;
      gboolean fits = vdso_spans (m, map);
      if (fits && pick == NULL)
        {
          pick = c;
          pick_id_len = m->build_id_len;
          memcpy (pick_id, m->build_id, pick_id_len);
        }
      else if (fits && (m->build_id_len != pick_id_len
                        || memcmp (m->build_id, pick_id, pick_id_len) != 0))
        {
          g_free (*why);
          *why = g_strdup ("[vdso]: several copies of its size given, and "
                           "no build-id recorded to choose by");
          forget_file (m);
          return FALSE;
        }
      forget_file (m);
    }
  return pick != NULL && try_open (s, m, map, pick, why) == ST_FILE_OK;
}

/* The [vdso] of a recorded process.  Recorded with its build-id: its
   copy in perf's build-id caches (perf record keeps it there as
   [vdso]/BUILD-ID/vdso, perf archive packs it), so that a recording of
   another kernel unwinds through its vDSO.  Without one: the one copy of
   its size in the build-id caches the user gave (--buildid-dir, --symfs:
   a directory of the recording's files means that recording's).  Else
   the running kernel's own, when the recording was made here: used if
   it matches (by build-id when known, else by size), as perf does.  */
static void
open_vdso (const StModuleSources *s, StModule *m, const StMap *map)
{
  GArray *copies = map->build_id_len > 0
                   ? st_file_resolver_buildid_candidates (s->resolver, map)
                   : st_file_resolver_given_vdsos (s->resolver);
  g_autofree char *copy_why = NULL;
  gboolean found = open_vdso_copy (s, m, map, copies, &copy_why);

  st_file_candidates_free (copies);
  if (found)
    return;
  if (s->vdso == NULL)
    {
      m->error = g_strdup (st_file_resolver_given_only (s->resolver)
                           ? "[vdso]: no copy among the given files "
                             "(--no-host-files)"
                           : "[vdso]: no vDSO of our own to compare with");
      goto unusable;
    }
  m->data = s->vdso;
  m->size = s->vdso_size;
  m->path = g_strdup ("[vdso]");
  m->source = ST_FILE_SOURCE_VDSO;
  m->verification = map->build_id_len > 0 ? ST_FILE_VERIFIED_BUILD_ID
                                          : ST_FILE_UNVERIFIED;
  m->elf = elf_memory ((char *) s->vdso, s->vdso_size);
  if (m->elf == NULL || !inspect_elf (m))
    goto unusable;
  if (map->build_id_len > 0
      ? (m->build_id_len != map->build_id_len
         || memcmp (m->build_id, map->build_id, m->build_id_len) != 0)
      : !vdso_spans (m, map))
    {
      g_free (m->error);
      m->error = g_strdup (map->build_id_len > 0
                           ? "[vdso]: recorded on another kernel, and not "
                             "in a build-id cache (--buildid-dir)"
                           : "[vdso]: recorded on another kernel (no "
                             "build-id recorded to find its copy by)");
      goto unusable;
    }
  return;

unusable:
  if (m->error == NULL)
    m->error = g_strdup ("[vdso]: not a usable ELF image");
  if (copy_why != NULL)
    {
      char *both = g_strdup_printf ("%s; %s", m->error, copy_why);
      g_free (m->error);
      m->error = both;
    }
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

/* Where a file recorded as PATH was looked for, for the message.  */
static char *
looked_in (GArray *candidates)
{
  GString *s = g_string_new (NULL);
  StFileSource last = ST_FILE_SOURCE_NONE;

  for (guint i = 0; i < candidates->len; i++)
    {
      StFileSource src = g_array_index (candidates, StFileCandidate,
                                        i).source;
      if (src == last)
        continue;
      g_string_append_printf (s, "%s%s", s->len > 0 ? ", " : "",
                              st_file_source_name (src));
      last = src;
    }
  return g_string_free (s, FALSE);
}

/* Keeps the most telling problem of the candidates and its reason.  */
static void
note_problem (StModule *m, StFileProblem problem, char **why)
{
  if (m->problem == ST_FILE_OK || problem > m->problem)
    {
      m->problem = problem;
      g_free (m->error);
      m->error = g_steal_pointer (why);
    }
  g_clear_pointer (why, g_free);
}

void
st_module_file_open (const StModuleSources *s, StModule *m, const StMap *map,
                     gboolean ask_finder)
{
  const char *name = map->filename;

  m->problem = ST_FILE_OK;
  if (strcmp (name, "[vdso]") == 0)
    {
      open_vdso (s, m, map);
      if (m->elf == NULL)
        m->problem = ST_FILE_MISSING;
      return;
    }
  if (name[0] != '/')
    {
      m->error = g_strdup_printf ("%s: not a file", name);
      m->problem = ST_FILE_NOT_REGULAR;
      return;
    }

  g_autofree char *path = local_path (name);
  GArray *where = st_file_resolver_candidates (s->resolver, map, path,
                                               &m->cached->pins);
  for (guint i = 0; i < where->len; i++)
    {
      char *why = NULL;
      StFileProblem problem = try_open (s, m, map, &g_array_index
                                          (where, StFileCandidate, i), &why);
      if (problem == ST_FILE_OK)
        {
          g_free (why);
          g_clear_pointer (&m->error, g_free);
          m->problem = ST_FILE_OK;
          st_file_candidates_free (where);
          return;
        }
      note_problem (m, problem, &why);
    }
  if (m->problem == ST_FILE_MISSING)
    {
      /* Name the recorded path, not the last candidate's.  */
      g_autofree char *tried = looked_in (where);
      g_free (m->error);
      m->error = g_strdup_printf ("%s: missing (looked in: %s)", path, tried);
    }
  st_file_candidates_free (where);

  if (s->finder == NULL)
    return;
  if (!ask_finder && map->build_id_len > 0)
    {
      /* A download, maybe: only once a sample needs the file.  */
      m->fetch_deferred = TRUE;
      return;
    }
  st_module_file_fetch (s, m, map);
}

void
st_module_file_fetch (const StModuleSources *s, StModule *m, const StMap *map)
{
  g_autofree char *path = local_path (map->filename);
  g_autofree char *why = NULL;

  m->fetch_deferred = FALSE;
  /* Maybe a download: the main thread may look (st_module_fetching).  */
  g_atomic_int_inc (&m->fetching);
  g_autofree char *found = s->finder (ST_MODULE_FILE_EXECUTABLE, path,
                                      map->build_id, map->build_id_len,
                                      &why, s->finder_data);
  g_atomic_int_dec_and_test (&m->fetching);
  if (found != NULL)
    {
      StFileCandidate c = { ST_FILE_SOURCE_DEBUGINFOD, found, -1 };
      char *bad = NULL;
      StFileProblem problem = try_open (s, m, map, &c, &bad);
      if (problem == ST_FILE_OK)
        {
          g_free (bad);
          g_clear_pointer (&m->error, g_free);
          m->problem = ST_FILE_OK;
          return;
        }
      note_problem (m, problem, &bad);
    }
  else if (why != NULL)
    {
      /* Say why the fallback did not help either.  */
      char *both = g_strdup_printf ("%s; %s", m->error != NULL ? m->error
                                                  : path, why);
      g_free (m->error);
      m->error = both;
    }
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
  const char *symfs = st_file_resolver_symfs (s->resolver);
  g_autofree char *in_symfs = symfs != NULL
                              ? g_build_filename (symfs, path, NULL) : NULL;
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *base_in_symfs = symfs != NULL
                                   ? g_build_filename (symfs, base, NULL)
                                   : NULL;
  const char *where[] = { in_symfs, base_in_symfs, path };
  for (guint i = 0; i < G_N_ELEMENTS (where); i++)
    {
      struct stat st;
      if (where[i] != NULL && stat (where[i], &st) == 0
          && S_ISREG (st.st_mode))
        return g_strdup_printf ("f:%s#%" G_GUINT64_FORMAT ":%u:%u:%s:%ju:%ju:"
                                "%jd.%09ld", map->filename, map->inode,
                                map->dev_major, map->dev_minor, where[i],
                                (uintmax_t) st.st_dev, (uintmax_t) st.st_ino,
                                (intmax_t) st.st_mtim.tv_sec,
                                st.st_mtim.tv_nsec);
    }
  return g_strdup_printf ("f:%s#%" G_GUINT64_FORMAT ":%u:%u:missing",
                          map->filename, map->inode, map->dev_major,
                          map->dev_minor);
}

void
st_module_sources_init (StModuleSources *s, StFileResolver *resolver)
{
  const uint8_t *ours = (const uint8_t *) getauxval (AT_SYSINFO_EHDR);

  memset (s, 0, sizeof *s);
  s->resolver = resolver;
  s->code_pages = st_code_pages_new ();
  /* Copied now, once: workers opening [vdso] modules only read it.  */
  if (ours != NULL && !st_file_resolver_given_only (resolver)
      && memcmp (ours, ELFMAG, SELFMAG) == 0
      && ours[EI_CLASS] == ELFCLASS64)
    {
      s->vdso_size = elf_image_size (ours);
      s->vdso = g_memdup2 (ours, s->vdso_size);
    }
}

void
st_module_sources_clear (StModuleSources *s)
{
  st_file_resolver_free (s->resolver);
  st_code_pages_free (s->code_pages);
  g_free (s->vdso);
  memset (s, 0, sizeof *s);
}
