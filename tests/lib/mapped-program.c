/* A program mapped into a made-up process: see mapped-program.h.  */
#include "config.h"

#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "mapped-program.h"

gboolean
mapped_program_open (MappedProgram *mp, const char *path, int32_t pid)
{
  int fd = open (path, O_RDONLY);
  GElf_Ehdr ehdr;
  size_t n = 0;

  memset (mp, 0, sizeof *mp);
  if (fd < 0)
    return FALSE;
  elf_version (EV_CURRENT);
  Elf *elf = elf_begin (fd, ELF_C_READ, NULL);
  gboolean ok = elf != NULL && gelf_getehdr (elf, &ehdr) != NULL
                && elf_getphdrnum (elf, &n) == 0;
  mp->modules = st_module_cache_new (NULL);
  mp->unwinder = st_unwinder_new (ST_ENGINE_DWFL, mp->modules);
  mp->processes = st_process_table_new ();
  mp->base = ok && ehdr.e_type == ET_DYN ? 0x7f1234500000ull : 0;
  for (size_t i = 0; ok && i < n; i++)
    {
      GElf_Phdr ph;
      if (gelf_getphdr (elf, i, &ph) == NULL || ph.p_type != PT_LOAD)
        continue;
      StEvent ev = { 0 };
      ev.kind = ST_EVENT_MAP;
      ev.pid = ev.tid = pid;
      ev.map.start = mp->base + (ph.p_vaddr & ~4095ull);
      ev.map.end = (mp->base + ph.p_vaddr + ph.p_memsz + 4095) & ~4095ull;
      ev.map.pgoff = ph.p_offset & ~4095ull;
      ev.map.prot = (ph.p_flags & PF_X) ? 4 /* PROT_EXEC */ : 1;
      ev.map.exec_known = TRUE;
      ev.map.filename = path;
      st_process_table_apply (mp->processes, &ev);
    }
  if (elf != NULL)
    elf_end (elf);
  close (fd);
  mp->process = st_process_table_get (mp->processes, pid);
  return ok;
}

Dwfl *
mapped_program_dwfl (MappedProgram *mp)
{
  return st_unwinder_dwfl (mp->unwinder, mp->process);
}

void
mapped_program_close (MappedProgram *mp)
{
  st_process_table_free (mp->processes);
  st_unwinder_free (mp->unwinder);
  st_module_cache_free (mp->modules);
  memset (mp, 0, sizeof *mp);
}

uint64_t
nm_symbol (const char *path, const char *name)
{
  g_autofree char *nm = g_find_program_in_path ("nm");
  g_autofree char *out = NULL;
  uint64_t value = 0;
  int status;

  if (nm == NULL)
    return 0;
  char *argv[] = { nm, (char *) "--defined-only", (char *) path, NULL };
  if (!g_spawn_sync (NULL, argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                     &out, NULL, &status, NULL))
    return 0;
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL && value == 0; i++)
    {
      g_auto (GStrv) f = g_strsplit (lines[i], " ", 3);
      if (g_strv_length (f) == 3 && strcmp (f[2], name) == 0)
        value = g_ascii_strtoull (f[0], NULL, 16);
    }
  return value;
}
