/* Separate debug files: local search, then debuginfod for stripped call
   frame information.  */
#include "config.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <glib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/module-cache.h"
#include "unwind/find-debuginfo.h"
#include "unwind/safe-debuginfo.h"
#include "util/mapping-guard.h"

/* Addresses of .text probed for call frame information.  */
#define TEXT_PROBES 64

/* Whether ELF has a section NAME (with contents unless ANY; its header
   in *OUT): 1 yes, 0 no.  A section header or name that cannot be read
   is passed over, except with ANY: then -1 (unsure).  */
static int
section_named (Elf *elf, const char *name, gboolean any, GElf_Shdr *out)
{
  size_t shstrndx;
  Elf_Scn *scn = NULL;

  if (elf == NULL || elf_getshdrstrndx (elf, &shstrndx) != 0)
    return -1;
  while ((scn = elf_nextscn (elf, scn)) != NULL)
    {
      const char *n;

      if (gelf_getshdr (scn, out) == NULL)
        {
          if (any)
            return -1;
          continue;
        }
      if (!any && (out->sh_type == SHT_NOBITS || out->sh_size == 0))
        continue;
      n = elf_strptr (elf, shstrndx, out->sh_name);
      if (n == NULL && any)
        return -1;
      if (n != NULL && strcmp (n, name) == 0)
        return 1;
    }
  return 0;
}

/* The header of ELF's section NAME with contents, or FALSE.  */
static gboolean
find_section (Elf *elf, const char *name, GElf_Shdr *out)
{
  return section_named (elf, name, FALSE, out) == 1;
}

/* Whether ELF's .eh_frame covers at least half of TEXT_PROBES addresses
   spread evenly over .text.  Code compiled without unwind tables still
   has an .eh_frame (for _start and the PLT, from crt1.o and the linker),
   so only coverage tells whether its own functions have CFI there.  */
static gboolean
eh_frame_covers_text (Elf *elf)
{
  GElf_Shdr text;
  Dwarf_CFI *cfi;
  guint covered = 0;

  if (!find_section (elf, ".text", &text))
    return TRUE;
  cfi = dwarf_getcfi_elf (elf);
  if (cfi == NULL)
    return FALSE;
  for (guint i = 0; i < TEXT_PROBES; i++)
    {
      Dwarf_Frame *frame;
      Dwarf_Addr addr = text.sh_addr
                        + text.sh_size * (2 * i + 1) / (2 * TEXT_PROBES);

      if (dwarf_cfi_addrframe (cfi, addr, &frame) == 0)
        {
          covered++;
          free (frame);
        }
    }
  dwarf_cfi_end (cfi);
  return 2 * covered >= TEXT_PROBES;
}

/* libelf maps the debug file FD (of module M, or NULL) where we never
   see it: guard it by identity, so that one truncated under us reads as
   zeros and marks M's samples (mapping-guard.h), not a SIGBUS.  */
static void
guard_debug_file (int fd, StModule *m)
{
  struct stat st;

  if (fstat (fd, &st) != 0)
    return;
  StMappingGuard *g = st_mapping_guard_add_file ((uint64_t) st.st_dev,
                                                 (uint64_t) st.st_ino);
  if (m == NULL)
    return;
  if (g != NULL)
    __atomic_store_n (&m->debug_guard, g, __ATOMIC_RELEASE);
  __atomic_store_n (&m->debug_file_found, TRUE, __ATOMIC_RELEASE);
}

gboolean
st_find_debuginfo_code_without_cfi (const StModule *m)
{
  GElf_Shdr debug_frame;

  return m->elf != NULL
         && !find_section (m->elf, ".debug_frame", &debug_frame)
         && !eh_frame_covers_text (m->elf);
}

gboolean
st_find_debuginfo_wanted (const StModule *m)
{
  return m->build_id_len > 0 && st_find_debuginfo_code_without_cfi (m);
}

gboolean
st_find_debuginfo_prepare (StModule *m)
{
  m->code_without_cfi = st_find_debuginfo_code_without_cfi (m);
  return m->build_id_len > 0 && m->code_without_cfi;
}

int
st_find_debuginfo (Dwfl_Module *mod, void **userdata, const char *modname,
                   Dwarf_Addr base, const char *file_name,
                   const char *debuglink_file, GElf_Word debuglink_crc,
                   char **debuginfo_file_name)
{
  StModule *m = userdata != NULL ? *userdata : NULL;
  int fd = st_find_debuginfo_safely (mod, userdata, modname, base, file_name,
                                     debuglink_file, debuglink_crc,
                                     debuginfo_file_name);

  if (fd >= 0)
    {
      /* A dwz file is asked for under its own name: not M's file.  */
      gboolean own = m != NULL && m->path != NULL && file_name != NULL
                     && strcmp (file_name, m->path) == 0;
      guard_debug_file (fd, own ? m : NULL);
      return fd;
    }
  /* libdwfl also asks for a dwz alternate file, under that file's name:
     only the local search can answer that.  */
  if (m == NULL || m->elf == NULL || m->path == NULL || file_name == NULL
      || strcmp (file_name, m->path) != 0)
    return -1;

  if (!st_find_debuginfo_wanted (m))
    return -1;
  g_autofree char *path = st_module_find_file (m, ST_MODULE_FILE_DEBUGINFO);
  if (path == NULL || (fd = st_open_regular_file (path, 64)) < 0)
    return -1;
  /* Fetched by the module's build-id: it is that module's debug file.  */
  *debuginfo_file_name = strdup (path);
  guard_debug_file (fd, m);
  return fd;
}

/* Whether ELF has a section that libdw could read as .debug_frame,
   whatever its type or size; TRUE when unsure (a conservative
   answer).  */
static gboolean
names_debug_frame (Elf *elf)
{
  GElf_Shdr shdr;

  return section_named (elf, ".debug_frame", TRUE, &shdr) != 0
         || section_named (elf, ".zdebug_frame", TRUE, &shdr) != 0;
}

gboolean
st_find_debuginfo_may_have_debug_frame (Dwfl_Module *mod)
{
  Dwarf_Addr bias;
  const char *modname, *file_name = NULL;
  Elf *elf = dwfl_module_getelf (mod, &bias);

  if (elf == NULL || names_debug_frame (elf))
    return TRUE;
  modname = dwfl_module_info (mod, NULL, NULL, NULL, NULL, NULL, &file_name,
                              NULL);

  /* The debug file libdwfl would load: the local search's answer, with
     the arguments libdwfl gives it.  (Only the local search: a module
     whose CFI may be in a downloaded debug file is loaded up front.)  */
  GElf_Word crc = 0;
  const char *link = dwelf_elf_gnu_debuglink (elf, &crc);
  char *found = NULL;
  int fd = st_find_debuginfo_safely (mod, NULL, modname, 0, file_name, link,
                                     crc, &found);
  free (found);
  if (fd < 0)
    return FALSE;
  guard_debug_file (fd, NULL);
  Elf *debug = elf_begin (fd, ELF_C_READ_MMAP, NULL);
  gboolean may = debug == NULL || names_debug_frame (debug);
  elf_end (debug);
  close (fd);
  return may;
}
