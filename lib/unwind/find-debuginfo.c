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

/* Addresses of .text probed for call frame information.  */
#define TEXT_PROBES 64

/* The header of ELF's section NAME with contents, or FALSE.  */
static gboolean
find_section (Elf *elf, const char *name, GElf_Shdr *out)
{
  size_t shstrndx;
  Elf_Scn *scn = NULL;

  if (elf_getshdrstrndx (elf, &shstrndx) != 0)
    return FALSE;
  while ((scn = elf_nextscn (elf, scn)) != NULL)
    {
      const char *n;

      if (gelf_getshdr (scn, out) == NULL || out->sh_type == SHT_NOBITS
          || out->sh_size == 0)
        continue;
      n = elf_strptr (elf, shstrndx, out->sh_name);
      if (n != NULL && strcmp (n, name) == 0)
        return TRUE;
    }
  return FALSE;
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

/* Opens PATH if it is a regular file with MOD's build-id (any file when
   MOD has none; libdwfl checks what it can itself).  */
static int
open_matching (Dwfl_Module *mod, const char *path)
{
  const unsigned char *bits;
  GElf_Addr vaddr;
  int len = dwfl_module_build_id (mod, &bits, &vaddr);
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  struct stat st;

  if (fd < 0)
    return -1;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      return -1;
    }
  if (len > 0)
    {
      Elf *elf = elf_begin (fd, ELF_C_READ_MMAP, NULL);
      const void *id = NULL;
      ssize_t n = elf != NULL ? dwelf_elf_gnu_build_id (elf, &id) : -1;
      gboolean same = n == len && memcmp (id, bits, (size_t) len) == 0;

      if (elf != NULL)
        elf_end (elf);
      if (!same)
        {
          close (fd);
          return -1;
        }
    }
  return fd;
}

static int
found (int fd, const char *path, char **debuginfo_file_name)
{
  *debuginfo_file_name = strdup (path);
  return fd;
}

/* The .gnu_debuglink name next to FILE_NAME, in its .debug/ and under
   /usr/lib/debug (libdwfl's default search path).  */
static int
find_by_debuglink (Dwfl_Module *mod, const char *file_name,
                   const char *debuglink, char **debuginfo_file_name)
{
  g_autofree char *dir = g_path_get_dirname (file_name);
  g_autofree char *base = g_path_get_basename (debuglink);
  char *candidates[] = {
    g_build_filename (dir, base, NULL),
    g_build_filename (dir, ".debug", base, NULL),
    g_build_filename ("/usr/lib/debug", dir, base, NULL),
  };
  int fd = -1;

  for (guint i = 0; i < G_N_ELEMENTS (candidates); i++)
    {
      if (fd < 0 && strcmp (candidates[i], file_name) != 0
          && (fd = open_matching (mod, candidates[i])) >= 0)
        found (fd, candidates[i], debuginfo_file_name);
      g_free (candidates[i]);
    }
  return fd;
}

int
st_find_debuginfo (Dwfl_Module *mod, void **userdata, const char *modname,
                   Dwarf_Addr base, const char *file_name,
                   const char *debuglink_file, GElf_Word debuglink_crc,
                   char **debuginfo_file_name)
{
  StModule *m = userdata != NULL ? *userdata : NULL;
  int fd = dwfl_build_id_find_debuginfo (mod, userdata, modname, base,
                                         file_name, debuglink_file,
                                         debuglink_crc, debuginfo_file_name);

  if (fd >= 0)
    return fd;
  /* libdwfl also asks for a dwz alternate file, under that file's name:
     only the build-id directories can answer that.  */
  if (m == NULL || m->elf == NULL || m->path == NULL || file_name == NULL
      || strcmp (file_name, m->path) != 0)
    return -1;
  if (debuglink_file != NULL
      && (fd = find_by_debuglink (mod, file_name, debuglink_file,
                                  debuginfo_file_name)) >= 0)
    return fd;

  GElf_Shdr debug_frame;
  if (m->build_id_len == 0
      || find_section (m->elf, ".debug_frame", &debug_frame)
      || eh_frame_covers_text (m->elf))
    return -1;
  g_autofree char *path = st_module_find_file (m, ST_MODULE_FILE_DEBUGINFO);
  if (path != NULL && (fd = open_matching (mod, path)) >= 0)
    return found (fd, path, debuginfo_file_name);
  return -1;
}
