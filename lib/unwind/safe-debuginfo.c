#include "config.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "unwind/safe-debuginfo.h"

#define DEBUG_ROOT "/usr/lib/debug"

int
st_open_regular_file (const char *path, off_t min_size)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  struct stat st;

  if (fd < 0)
    return -1;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size < min_size)
    {
      close (fd);
      return -1;
    }
  return fd;
}

/* The CRC-32 (IEEE, as zlib) of a .gnu_debuglink, over FD's contents.  */
static gboolean
crc_matches (int fd, GElf_Word want)
{
  uint32_t table[256];     /* per call: no state shared by threads, and
                              2,048 steps are nothing beside the file */
  uint8_t buf[65536];
  uint32_t crc = 0xffffffffu;
  ssize_t n;

  for (uint32_t i = 0; i < 256; i++)
      {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
          c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
        table[i] = c;
      }
  off_t off = 0;
  while ((n = pread (fd, buf, sizeof buf, off)) > 0)
    {
      for (ssize_t i = 0; i < n; i++)
        crc = table[(crc ^ buf[i]) & 0xff] ^ (crc >> 8);
      off += n;
    }
  return n == 0 && (crc ^ 0xffffffffu) == want;
}

static gboolean
build_id_matches (int fd, const unsigned char *bits, int len)
{
  Elf *elf = elf_begin (fd, ELF_C_READ_MMAP, NULL);
  const void *id = NULL;
  gboolean same = FALSE;

  if (elf != NULL)
    {
      ssize_t n = dwelf_elf_gnu_build_id (elf, &id);
      same = n == len && memcmp (id, bits, len) == 0;
      elf_end (elf);
    }
  return same;
}

/* FD on PATH when it is a regular ELF-sized file that fits: the build
   ID BITS (LEN > 0), else the CRC (when not 0).  */
static int
try_candidate (const char *path, const unsigned char *bits, int len,
               GElf_Word crc, char **found)
{
  int fd = st_open_regular_file (path, 64);

  if (fd < 0)
    return -1;
  if ((len > 0 && !build_id_matches (fd, bits, len))
      || (len <= 0 && crc != 0 && !crc_matches (fd, crc)))
    {
      close (fd);
      return -1;
    }
  *found = strdup (path);
  return fd;
}

int
st_find_debuginfo_safely (Dwfl_Module *mod, void **userdata,
                          const char *modname, Dwarf_Addr base,
                          const char *file_name, const char *debuglink_file,
                          GElf_Word debuglink_crc, char **debuginfo_file_name)
{
  const unsigned char *bits = NULL;
  GElf_Addr vaddr;
  int len = dwfl_module_build_id (mod, &bits, &vaddr);
  int fd = -1;

  /* An alternate debug file (dwz) comes with a CRC of 0 and a build ID
     of its own: only the build-ID tree and the link itself apply.  */
  if (len > 1)
    {
      GString *path = g_string_new (DEBUG_ROOT "/.build-id/");
      g_string_append_printf (path, "%02x/", bits[0]);
      for (int i = 1; i < len; i++)
        g_string_append_printf (path, "%02x", bits[i]);
      g_string_append (path, ".debug");
      fd = try_candidate (path->str, bits, len, 0, debuginfo_file_name);
      g_string_free (path, TRUE);
      if (fd >= 0)
        return fd;
    }
  if (debuglink_file == NULL || debuglink_file[0] == '\0')
    return -1;
  if (debuglink_crc == 0)
    len = 0;   /* an alternate file: its build ID is not the module's */

  if (debuglink_file[0] == '/')
    return try_candidate (debuglink_file, bits, len, debuglink_crc,
                          debuginfo_file_name);
  if (file_name == NULL)
    return -1;
  g_autofree char *dir = g_path_get_dirname (file_name);
  char *candidates[] = {
    g_build_filename (dir, debuglink_file, NULL),
    g_build_filename (dir, ".debug", debuglink_file, NULL),
    g_build_filename (DEBUG_ROOT, dir, debuglink_file, NULL),
  };
  for (guint i = 0; i < G_N_ELEMENTS (candidates); i++)
    {
      /* A debuglink naming the file itself is no separate debug file.  */
      if (fd < 0 && strcmp (candidates[i], file_name) != 0)
        fd = try_candidate (candidates[i], bits, len, debuglink_crc,
                            debuginfo_file_name);
      g_free (candidates[i]);
    }
  return fd;
}
