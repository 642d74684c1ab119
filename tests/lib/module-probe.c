#include "config.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "module-probe.h"

static char *
count_finder (StModuleFileKind kind, const char *path,
              const uint8_t *build_id, guint build_id_len, char **why,
              void *user_data)
{
  ProbeModules *m = user_data;

  /* The cache may ask from a worker: these tests use none.  */
  m->finder_calls++;
  m->finder_kind = kind;
  g_free (m->finder_path);
  m->finder_path = g_strdup (path);
  if (m->finder_build_id != NULL)
    g_bytes_unref (m->finder_build_id);
  m->finder_build_id = g_bytes_new (build_id, build_id_len);
  return g_strdup (m->finder_answer);
}

void
probe_modules_init (ProbeModules *m, const char *symfs)
{
  memset (m, 0, sizeof *m);
  elf_version (EV_CURRENT);
  m->cache = st_module_cache_new (symfs);
  m->as = st_address_space_new ();
  st_module_cache_set_finder (m->cache, count_finder, m);
}

void
probe_modules_clear (ProbeModules *m)
{
  st_module_cache_free (m->cache);
  st_address_space_free (m->as);
  if (m->finder_build_id != NULL)
    g_bytes_unref (m->finder_build_id);
  g_free (m->finder_path);
}

StModule *
probe_modules_get (ProbeModules *m, const char *name)
{
  StMap map = { 0 };

  map.start = 0x400000;
  map.end = 0x401000;
  map.inode = 1;
  map.filename = name;
  st_address_space_clear (m->as);
  st_address_space_add (m->as, &map);
  return st_module_cache_get (m->cache, st_address_space_get (m->as, 0));
}

static Elf *
open_elf (const char *path, int *fd)
{
  *fd = open (path, O_RDONLY | O_CLOEXEC);
  g_assert_cmpint (*fd, >=, 0);
  Elf *elf = elf_begin (*fd, ELF_C_READ, NULL);
  g_assert_nonnull (elf);
  return elf;
}

GBytes *
probe_build_id (const char *path)
{
  const void *id;
  int fd;
  Elf *elf = open_elf (path, &fd);
  ssize_t n = dwelf_elf_gnu_build_id (elf, &id);
  GBytes *b = n > 0 ? g_bytes_new (id, n) : NULL;

  elf_end (elf);
  close (fd);
  return b;
}

gboolean
probe_has_section (const char *path, const char *name)
{
  int fd;
  Elf *elf = open_elf (path, &fd);
  size_t shstrndx;
  gboolean found = FALSE;

  g_assert_cmpint (elf_getshdrstrndx (elf, &shstrndx), ==, 0);
  for (Elf_Scn *scn = NULL; (scn = elf_nextscn (elf, scn)) != NULL;)
    {
      GElf_Shdr sh;
      const char *n;
      if (gelf_getshdr (scn, &sh) != NULL
          && (n = elf_strptr (elf, shstrndx, sh.sh_name)) != NULL
          && strcmp (n, name) == 0)
        found = TRUE;
    }
  elf_end (elf);
  close (fd);
  return found;
}

gboolean
probe_file_cfi_covers (const char *path, uint64_t addr)
{
  int fd;
  Elf *elf = open_elf (path, &fd);
  Dwarf_Frame *frame;
  gboolean covered = FALSE;
  Dwarf_CFI *eh = dwarf_getcfi_elf (elf);
  Dwarf *dw = dwarf_begin_elf (elf, DWARF_C_READ, NULL);
  Dwarf_CFI *debug = dw != NULL ? dwarf_getcfi (dw) : NULL;
  Dwarf_CFI *cfis[] = { eh, debug };

  for (guint i = 0; i < G_N_ELEMENTS (cfis) && !covered; i++)
    if (cfis[i] != NULL && dwarf_cfi_addrframe (cfis[i], addr, &frame) == 0)
      {
        covered = TRUE;
        free (frame);
      }
  if (eh != NULL)
    dwarf_cfi_end (eh);
  if (dw != NULL)
    dwarf_end (dw);
  elf_end (elf);
  close (fd);
  return covered;
}

gboolean
probe_module_cfi_covers (Dwfl_Module *mod, uint64_t addr)
{
  Dwarf_Addr bias;
  Dwarf_Frame *frame;
  Dwarf_CFI *cfis[] = { dwfl_module_eh_cfi (mod, &bias),
                        dwfl_module_dwarf_cfi (mod, &bias) };

  for (guint i = 0; i < G_N_ELEMENTS (cfis); i++)
    if (cfis[i] != NULL
        && dwarf_cfi_addrframe (cfis[i], addr - bias, &frame) == 0)
      {
        free (frame);
        return TRUE;
      }
  return FALSE;
}

char *
probe_copy_alone (const char *from, char **dir)
{
  g_autofree char *data = NULL;
  g_autofree char *base = g_path_get_basename (from);
  gsize len;

  *dir = g_dir_make_tmp ("st-probe-XXXXXX", NULL);
  g_assert_nonnull (*dir);
  char *to = g_build_filename (*dir, base, NULL);
  g_assert_true (g_file_get_contents (from, &data, &len, NULL));
  g_assert_true (g_file_set_contents (to, data, len, NULL));
  return to;
}
