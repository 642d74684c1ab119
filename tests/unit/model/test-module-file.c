/* A module's file found, checked and opened (model/module-file.c).

   Against binutils' readelf on the test programs built at check time
   (ST_PROGS_DIR: PIE, ET_EXEC, a shared library, one without any call
   frame information): e_machine, class, type, entry, every PT_LOAD
   (vaddr, offset, sizes, flags) and the GNU build-id must be what
   readelf prints.  Then the verdicts: a recorded build-id that matches
   (verified) or not (mismatch, nothing kept open), the recorded inode
   on the recorded device (verified) or another (replaced), a file
   missing, a directory, a device, a file that is not ELF or too short
   for an ELF header, an ELF file without a loadable segment (a .o), a
   name that is no path, " (deleted)"; the finder asked (or deferred)
   when nothing local matches; our own [vdso] (matched by build-id, or
   refused); the identity keys.  And the guard: a module truncated
   under its mapping reads zeros and is marked, no SIGBUS.  */
#include "config.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "model/module-cache-private.h"
#include "model/module-file.h"
#include "util/mapping-guard.h"

#ifndef ST_PROGS_DIR
#define ST_PROGS_DIR "progs"
#endif

/* --- what readelf says ------------------------------------------------- */

typedef struct
{
  char type[8];                 /* DYN, EXEC, REL */
  uint64_t entry;
  StLoadSegment loads[16];
  guint n_loads;
  char build_id[41];            /* hex, "" when none */
} Readelf;

static uint64_t
hex (const char *s)
{
  return g_ascii_strtoull (s, NULL, 16);
}

static gboolean
readelf (const char *path, Readelf *out)
{
  g_autofree char *tool = g_find_program_in_path ("readelf");
  g_autofree char *text = NULL;
  int status;

  memset (out, 0, sizeof *out);
  if (tool == NULL)
    return FALSE;
  char *argv[] = { tool, (char *) "-lnhW", (char *) path, NULL };
  char *env[] = { (char *) "LC_ALL=C", NULL };
  g_assert_true (g_spawn_sync (NULL, argv, env, G_SPAWN_STDERR_TO_DEV_NULL,
                               NULL, NULL, &text, NULL, &status, NULL));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *l = g_strstrip (lines[i]);
      const char *at;
      if (g_str_has_prefix (l, "Type:"))
        g_strlcpy (out->type, g_strstrip ((char *) l + 5), 5);
      else if (g_str_has_prefix (l, "Entry point address:"))
        out->entry = hex (strstr (l, "0x"));
      else if ((at = strstr (l, "Build ID: ")) != NULL)
        g_strlcpy (out->build_id, at + 10, sizeof out->build_id);
      else if (g_str_has_prefix (l, "LOAD "))
        {
          /* LOAD off vaddr paddr filesz memsz FLAGS... align */
          g_auto (GStrv) f = g_strsplit_set (l, " ", -1);
          GPtrArray *words = g_ptr_array_new ();
          for (guint k = 0; f[k] != NULL; k++)
            if (f[k][0] != '\0')
              g_ptr_array_add (words, f[k]);
          g_assert_cmpuint (words->len, >=, 8);
          StLoadSegment *s = &out->loads[out->n_loads++];
          s->offset = hex (words->pdata[1]);
          s->vaddr = hex (words->pdata[2]);
          s->filesz = hex (words->pdata[4]);
          s->memsz = hex (words->pdata[5]);
          for (guint k = 6; k + 1 < words->len; k++)
            for (const char *c = words->pdata[k]; *c; c++)
              s->flags |= *c == 'R' ? PF_R : *c == 'W' ? PF_W
                          : *c == 'E' ? PF_X : 0;
          g_ptr_array_unref (words);
        }
    }
  return TRUE;
}

/* --- opening ---------------------------------------------------------------- */

typedef struct
{
  StModuleSources sources;
  struct StModuleCacheEntry entry;
  StModule m;
} Opened;

static void
sources_init (StModuleSources *s)
{
  st_module_sources_init (s, st_file_resolver_new (NULL, NULL));
}

static StMap
map_of (const char *path)
{
  StMap map = { 0 };

  map.start = 0x7f0000000000;
  map.end = 0x7f0000010000;
  map.filename = path;
  map.prot = 5;
  map.exec_known = TRUE;
  return map;
}

static void
open_module (Opened *o, const StMap *map, gboolean ask_finder)
{
  memset (&o->entry, 0, sizeof o->entry);
  memset (&o->m, 0, sizeof o->m);
  o->entry.pins = ST_FILE_PINS_NONE;
  o->m.cached = &o->entry;
  o->m.name = map->filename;
  st_module_file_open (&o->sources, &o->m, map, ask_finder);
}

static void
close_module (Opened *o)
{
  st_mapping_guard_remove (o->m.guard);
  if (o->m.elf != NULL)
    elf_end (o->m.elf);
  g_free (o->m.path);
  g_free (o->m.loads);
  g_free (o->m.error);
  st_file_pins_close (&o->entry.pins);
  memset (&o->m, 0, sizeof o->m);
}

static char *
prog (const char *name)
{
  return g_build_filename (ST_PROGS_DIR, name, NULL);
}

/* Opens PATH and checks it against readelf.  */
static void
check_against_readelf (gconstpointer data)
{
  g_autofree char *path = prog (data);
  Readelf ref;
  Opened o;

  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("test program not built");
      return;
    }
  if (!readelf (path, &ref))
    {
      g_test_skip ("no readelf");
      return;
    }
  sources_init (&o.sources);
  StMap map = map_of (path);
  open_module (&o, &map, TRUE);
  g_assert_null (o.m.error);
  g_assert_cmpuint (o.m.problem, ==, ST_FILE_OK);
  g_assert_nonnull (o.m.elf);
  g_assert_cmpstr (o.m.path, ==, path);
  g_assert_cmpuint (o.m.source, ==, ST_FILE_SOURCE_RECORDED);
  g_assert_cmpuint (o.m.verification, ==, ST_FILE_UNVERIFIED);
  g_assert_cmpint (o.m.machine, ==, EM_X86_64);
  g_assert_cmpint (o.m.elf_class, ==, ELFCLASS64);

  struct stat st;
  g_assert_cmpint (stat (path, &st), ==, 0);
  g_assert_cmpuint (o.m.size, ==, (size_t) st.st_size);
  g_assert_cmpmem (o.m.data, 4, ELFMAG, 4);

  g_assert_cmpint (o.m.fixed_address, ==, strcmp (ref.type, "EXEC") == 0);
  g_assert_cmphex (o.m.entry, ==, ref.entry);
  g_assert_cmpuint (o.m.n_loads, ==, ref.n_loads);
  for (guint i = 0; i < ref.n_loads; i++)
    {
      g_assert_cmphex (o.m.loads[i].vaddr, ==, ref.loads[i].vaddr);
      g_assert_cmphex (o.m.loads[i].offset, ==, ref.loads[i].offset);
      g_assert_cmphex (o.m.loads[i].filesz, ==, ref.loads[i].filesz);
      g_assert_cmphex (o.m.loads[i].memsz, ==, ref.loads[i].memsz);
      g_assert_cmphex (o.m.loads[i].flags, ==, ref.loads[i].flags);
    }
  /* Aligned down by the first segment's alignment (0x1000 for all of
     these), up to the end of the last.  */
  g_assert_cmphex (o.m.low_vaddr, ==, ref.loads[0].vaddr & ~0xfffull);
  StLoadSegment *last = &ref.loads[ref.n_loads - 1];
  g_assert_cmphex (o.m.high_vaddr, ==, last->vaddr + last->memsz);

  g_autofree char *id = st_build_id_hex (o.m.build_id, o.m.build_id_len);
  g_assert_cmpstr (id, ==, ref.build_id);
  g_assert_cmpuint (o.m.build_id_len, ==, strlen (ref.build_id) / 2);
  g_assert_false (o.m.no_unwind_sections);

  /* Recorded with its build-id: verified by it.  */
  map.build_id_len = o.m.build_id_len;
  close_module (&o);
  for (guint i = 0; i < strlen (ref.build_id) / 2; i++)
    {
      char byte[3] = { ref.build_id[2 * i], ref.build_id[2 * i + 1], 0 };
      map.build_id[i] = (uint8_t) hex (byte);
    }
  open_module (&o, &map, TRUE);
  g_assert_cmpuint (o.m.problem, ==, ST_FILE_OK);
  g_assert_cmpuint (o.m.verification, ==, ST_FILE_VERIFIED_BUILD_ID);

  /* And with another: refused, nothing kept.  */
  close_module (&o);
  map.build_id[0] ^= 0xff;
  open_module (&o, &map, TRUE);
  g_assert_cmpuint (o.m.problem, ==, ST_FILE_BUILD_ID_MISMATCH);
  g_assert_null (o.m.elf);
  g_assert_null (o.m.guard);
  g_assert_nonnull (strstr (o.m.error, "build-id mismatch: recorded "));
  g_assert_nonnull (strstr (o.m.error, ref.build_id + 2));
  close_module (&o);
  st_module_sources_clear (&o.sources);
}

/* The recorded inode, on the recorded device.  */
static void
test_inode (void)
{
  g_autofree char *path = prog ("deep-recursion");
  Opened o;
  struct stat st;

  if (stat (path, &st) != 0)
    {
      g_test_skip ("test program not built");
      return;
    }
  sources_init (&o.sources);
  StMap map = map_of (path);
  map.inode = st.st_ino;
  map.dev_major = major (st.st_dev);
  map.dev_minor = minor (st.st_dev);
  open_module (&o, &map, TRUE);
  g_assert_cmpuint (o.m.problem, ==, ST_FILE_OK);
  g_assert_cmpuint (o.m.verification, ==, ST_FILE_VERIFIED_INODE);
  close_module (&o);

  map.inode = st.st_ino + 1;
  open_module (&o, &map, TRUE);
  g_assert_cmpuint (o.m.problem, ==, ST_FILE_REPLACED);
  g_assert_null (o.m.elf);
  g_assert_nonnull (strstr (o.m.error, "replaced since recorded"));
  close_module (&o);

  /* " (deleted)": the kernel's mark on a file replaced since mapped;
     the path without it is tried.  */
  g_autofree char *deleted = g_strconcat (path, " (deleted)", NULL);
  map = map_of (deleted);
  open_module (&o, &map, TRUE);
  g_assert_cmpuint (o.m.problem, ==, ST_FILE_OK);
  g_assert_cmpstr (o.m.path, ==, path);
  close_module (&o);
  st_module_sources_clear (&o.sources);
}

static void
test_not_usable (void)
{
  Opened o;
  g_autofree char *dir = g_dir_make_tmp ("st-module-file-XXXXXX", NULL);
  g_autofree char *text = g_build_filename (dir, "text", NULL);
  g_autofree char *tiny = g_build_filename (dir, "tiny", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing", NULL);
  g_autofree char *object = prog ("deep_recursion-deep-recursion.o");

  g_assert_true (g_file_set_contents (text, "#!/bin/sh\necho not ELF\n"
                                      "padding padding padding padding\n",
                                      -1, NULL));
  /* The ELF magic, and less than an ELF header.  */
  g_assert_true (g_file_set_contents (tiny, "\177ELF\2\1\1", 7, NULL));
  sources_init (&o.sources);
  struct
  {
    const char *name;
    StFileProblem problem;
    const char *error;
  } cases[] = {
    { missing, ST_FILE_MISSING, ": missing (looked in: recorded-path)" },
    { dir, ST_FILE_NOT_REGULAR, ": not a regular file" },
    { "/dev/null", ST_FILE_NOT_REGULAR, ": not a regular file" },
    { text, ST_FILE_NOT_ELF, ": not an ELF file" },
    { tiny, ST_FILE_NOT_ELF, ": not an ELF file" },
    { object, ST_FILE_NOT_ELF, ": no loadable segment" },
    { "[heap]", ST_FILE_NOT_REGULAR, "[heap]: not a file" },
    /* The kernel's name of a transparent huge page mapping.  */
    { "/anon_hugepage (deleted)", ST_FILE_MISSING,
      "/anon_hugepage: missing (looked in: recorded-path)" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      if (!g_file_test (cases[i].name, G_FILE_TEST_EXISTS)
          && cases[i].problem != ST_FILE_MISSING
          && cases[i].name[0] == '/')
        continue;               /* the .o when progs are not built */
      StMap map = map_of (cases[i].name);
      open_module (&o, &map, TRUE);
      g_assert_cmpuint (o.m.problem, ==, cases[i].problem);
      g_assert_null (o.m.elf);
      g_assert_null (o.m.guard);
      g_assert_nonnull (o.m.error);
      if (strstr (o.m.error, cases[i].error) == NULL)
        g_error ("%s: '%s' does not say '%s'", cases[i].name, o.m.error,
                 cases[i].error);
      close_module (&o);
    }
  st_module_sources_clear (&o.sources);
  g_unlink (text);
  g_unlink (tiny);
  g_rmdir (dir);
}

/* A library built without any call frame information.  */
static void
test_no_unwind_sections (void)
{
  g_autofree char *path = prog ("nocfi/libstcallee.so");
  Opened o;

  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("test program not built");
      return;
    }
  sources_init (&o.sources);
  StMap map = map_of (path);
  open_module (&o, &map, TRUE);
  g_assert_cmpuint (o.m.problem, ==, ST_FILE_OK);
  g_assert_true (o.m.no_unwind_sections);
  close_module (&o);
  st_module_sources_clear (&o.sources);
}

/* --- the finder ------------------------------------------------------------ */

typedef struct
{
  char *give;         /* the path to return, or NULL */
  guint calls;
  StModuleFileKind kind;
} Finder;

static char *
finder (StModuleFileKind kind, const char *path, const uint8_t *build_id,
        guint build_id_len, char **why, void *user_data)
{
  Finder *f = user_data;

  (void) path;
  (void) build_id;
  (void) build_id_len;
  f->calls++;
  f->kind = kind;
  if (f->give == NULL)
    *why = g_strdup ("no server has it");
  return g_strdup (f->give);
}

static void
test_finder (void)
{
  g_autofree char *path = prog ("deep-recursion");
  Finder f = { 0 };
  Opened o;

  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("test program not built");
      return;
    }
  sources_init (&o.sources);
  o.sources.finder = finder;
  o.sources.finder_data = &f;
  StMap map = map_of ("/nonexistent/deep-recursion");

  /* Asked: the file it gives is opened, from debuginfod.  */
  f.give = path;
  open_module (&o, &map, TRUE);
  g_assert_cmpuint (f.calls, ==, 1);
  g_assert_cmpuint (f.kind, ==, ST_MODULE_FILE_EXECUTABLE);
  g_assert_cmpuint (o.m.problem, ==, ST_FILE_OK);
  g_assert_cmpuint (o.m.source, ==, ST_FILE_SOURCE_DEBUGINFOD);
  g_assert_cmpstr (o.m.path, ==, path);
  g_assert_false (o.m.fetch_deferred);
  close_module (&o);

  /* Nothing there: both reasons said.  */
  f.give = NULL;
  open_module (&o, &map, TRUE);
  g_assert_cmpuint (o.m.problem, ==, ST_FILE_MISSING);
  g_assert_cmpstr (o.m.error, ==, "/nonexistent/deep-recursion: missing "
                   "(looked in: recorded-path); no server has it");
  close_module (&o);

  /* Not asked yet, with a build-id: deferred until a sample needs it,
     then fetched.  */
  f.calls = 0;
  map.build_id_len = 2;
  open_module (&o, &map, FALSE);
  g_assert_cmpuint (f.calls, ==, 0);
  g_assert_true (o.m.fetch_deferred);
  g_assert_null (o.m.elf);
  st_module_file_fetch (&o.sources, &o.m, &map);
  g_assert_cmpuint (f.calls, ==, 1);
  g_assert_false (o.m.fetch_deferred);
  close_module (&o);

  /* Without a build-id there is nothing to wait for: asked at once.  */
  map.build_id_len = 0;
  open_module (&o, &map, FALSE);
  g_assert_cmpuint (f.calls, ==, 2);
  g_assert_false (o.m.fetch_deferred);
  close_module (&o);
  st_module_sources_clear (&o.sources);
}

/* --- the vDSO -------------------------------------------------------------- */

static int
find_vdso (Dwfl_Module *mod, void **userdata, const char *name,
           Dwarf_Addr start, void *arg)
{
  (void) userdata;
  (void) start;
  if (strstr (name, "vdso") != NULL)
    *(Dwfl_Module **) arg = mod;
  return DWARF_CB_OK;
}

/* Writes the vDSO image IMAGE (SIZE bytes, build-id HEX) into the
   build-id cache DIR as perf record leaves it:
   DIR/[vdso]/HEX/vdso, DIR/.build-id/NN/REST -> ../../[vdso]/HEX.  */
static void
put_cached_vdso (const char *dir, const char *hex, const uint8_t *image,
                 gsize size)
{
  g_autofree char *vdir = g_build_filename (dir, "[vdso]", hex, NULL);
  g_autofree char *file = g_build_filename (vdir, "vdso", NULL);
  g_autofree char *nn = g_strndup (hex, 2);
  g_autofree char *links = g_build_filename (dir, ".build-id", nn, NULL);
  g_autofree char *link = g_build_filename (links, hex + 2, NULL);
  g_autofree char *target = g_build_filename ("..", "..", "[vdso]", hex,
                                              NULL);

  g_assert_cmpint (g_mkdir_with_parents (vdir, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (links, 0755), ==, 0);
  g_assert_true (g_file_set_contents (file, (const char *) image, size,
                                      NULL));
  g_assert_cmpint (symlink (target, link), ==, 0);
}

/* A [vdso] recorded on another kernel, its copy in a build-id cache:
   found by its build-id there before our own (MAP: our own vDSO's
   build-id); recorded without a build-id, the one copy of its size in
   the caches given, and our own when two different images of that size
   are there.  */
static void
vdso_from_caches (Opened *own, const StMap *map)
{
  const uint8_t *image = own->sources.vdso;
  gsize size = own->sources.vdso_size;
  g_autofree char *hex = st_build_id_hex (map->build_id, map->build_id_len);
  g_autofree char *cache = g_dir_make_tmp ("st-vdso-cache-XXXXXX", NULL);
  Opened o;

  put_cached_vdso (cache, hex, image, size);
  st_module_sources_init (&o.sources, st_file_resolver_new (NULL, cache));
  open_module (&o, map, TRUE);
  g_assert_cmpuint (o.m.problem, ==, ST_FILE_OK);
  g_assert_cmpuint (o.m.source, ==, ST_FILE_SOURCE_BUILDID_DIR);
  g_assert_cmpuint (o.m.verification, ==, ST_FILE_VERIFIED_BUILD_ID);
  g_assert_true (o.m.data != o.sources.vdso);
  g_assert_true (g_str_has_suffix (o.m.path, "/vdso"));
  uint64_t span = (o.m.high_vaddr - o.m.low_vaddr + 4095) & ~4095ull;
  close_module (&o);

  /* Without a build-id: by the size the mapping has (a 64 KiB mapping is
     no vDSO's, neither the copy's nor our own).  */
  StMap anon = *map;
  anon.build_id_len = 0;
  anon.end = anon.start + 0x10000;
  open_module (&o, &anon, TRUE);
  g_assert_cmpuint (o.m.problem, ==, ST_FILE_MISSING);
  close_module (&o);
  anon.end = anon.start + span;
  open_module (&o, &anon, TRUE);
  g_assert_cmpuint (o.m.problem, ==, ST_FILE_OK);
  g_assert_cmpuint (o.m.source, ==, ST_FILE_SOURCE_BUILDID_DIR);
  g_assert_cmpuint (o.m.verification, ==, ST_FILE_UNVERIFIED);
  close_module (&o);

  /* Another image of that size (its build-id changed) beside it: no
     telling which, so our own.  */
  g_autofree uint8_t *other = g_memdup2 (image, size);
  uint8_t *note = memmem (other, size, map->build_id, map->build_id_len);
  g_assert_nonnull (note);
  note[0] ^= 0xff;
  g_autofree char *other_hex = g_strdup (hex);
  other_hex[0] = other_hex[0] == 'f' ? 'e' : 'f';
  put_cached_vdso (cache, other_hex, other, size);
  open_module (&o, &anon, TRUE);
  g_assert_cmpuint (o.m.problem, ==, ST_FILE_OK);
  g_assert_cmpuint (o.m.source, ==, ST_FILE_SOURCE_VDSO);
  close_module (&o);
  st_module_sources_clear (&o.sources);

  g_autofree char *argv_rm = g_strdup_printf ("rm -rf '%s'", cache);
  g_assert_cmpint (system (argv_rm), ==, 0);
}

/* Our own [vdso], its build-id as libdwfl reads it from our memory.  */
static void
test_vdso (void)
{
  static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
  };
  Opened o;

  sources_init (&o.sources);
  if (o.sources.vdso == NULL)
    {
      st_module_sources_clear (&o.sources);
      g_test_skip ("no 64-bit vDSO here");
      return;
    }
  Dwfl *dwfl = dwfl_begin (&callbacks);
  g_assert_cmpint (dwfl_linux_proc_report (dwfl, getpid ()), ==, 0);
  dwfl_report_end (dwfl, NULL, NULL);
  Dwfl_Module *mod = NULL;
  dwfl_getmodules (dwfl, find_vdso, &mod, 0);
  const unsigned char *bits = NULL;
  GElf_Addr vaddr;
  Dwarf_Addr bias;
  int len = mod != NULL && dwfl_module_getelf (mod, &bias) != NULL
            ? dwfl_module_build_id (mod, &bits, &vaddr) : 0;
  if (len <= 0)
    {
      dwfl_end (dwfl);
      st_module_sources_clear (&o.sources);
      g_test_skip ("libdwfl found no build-id of the vDSO");
      return;
    }

  StMap map = map_of ("[vdso]");
  map.build_id_len = (uint8_t) len;
  memcpy (map.build_id, bits, len);
  open_module (&o, &map, TRUE);
  g_assert_cmpuint (o.m.problem, ==, ST_FILE_OK);
  g_assert_nonnull (o.m.elf);
  g_assert_cmpuint (o.m.source, ==, ST_FILE_SOURCE_VDSO);
  g_assert_cmpuint (o.m.verification, ==, ST_FILE_VERIFIED_BUILD_ID);
  g_assert_cmpmem (o.m.build_id, o.m.build_id_len, bits, len);
  g_assert_true (o.m.data == o.sources.vdso);
  close_module (&o);

  vdso_from_caches (&o, &map);

  /* Another kernel's.  */
  map.build_id[0] ^= 1;
  open_module (&o, &map, TRUE);
  g_assert_cmpuint (o.m.problem, ==, ST_FILE_MISSING);
  g_assert_null (o.m.elf);
  g_assert_cmpstr (o.m.error, ==, "[vdso]: recorded on another kernel, and "
                   "not in a build-id cache (--buildid-dir)");
  close_module (&o);

  g_autofree char *key = st_module_file_key (&o.sources, &map);
  g_assert_true (g_str_has_prefix (key, "vdso:"));
  dwfl_end (dwfl);
  st_module_sources_clear (&o.sources);

  /* No vDSO of our own to compare with.  */
  sources_init (&o.sources);
  g_clear_pointer (&o.sources.vdso, g_free);
  open_module (&o, &map, TRUE);
  g_assert_cmpuint (o.m.problem, ==, ST_FILE_MISSING);
  g_assert_nonnull (strstr (o.m.error, "no vDSO of our own"));
  close_module (&o);
  st_module_sources_clear (&o.sources);
}

/* --- identity -------------------------------------------------------------- */

static void
test_keys (void)
{
  StModuleSources s;
  g_autofree char *dir = g_dir_make_tmp ("st-module-file-XXXXXX", NULL);
  g_autofree char *file = g_build_filename (dir, "lib.so", NULL);

  sources_init (&s);
  StMap map = map_of (file);
  map.build_id_len = 3;
  map.build_id[0] = 0x0a;
  map.build_id[1] = 0xbc;
  map.build_id[2] = 0xff;
  g_autofree char *by_id = st_module_file_key (&s, &map);
  g_assert_cmpstr (by_id, ==, "b:0abcff");

  map.build_id_len = 0;
  map.inode = 77;
  map.dev_major = 8;
  map.dev_minor = 1;
  g_autofree char *gone = st_module_file_key (&s, &map);
  g_assert_true (g_str_has_suffix (gone, "#77:8:1:missing"));

  /* The local file's identity: another file at the same path (a
     package upgrade) is another module.  */
  g_assert_true (g_file_set_contents (file, "one", -1, NULL));
  g_autofree char *first = st_module_file_key (&s, &map);
  g_autofree char *again = st_module_file_key (&s, &map);
  g_assert_cmpstr (first, ==, again);
  g_autofree char *tmp = g_build_filename (dir, "new", NULL);
  g_assert_true (g_file_set_contents (tmp, "two", -1, NULL));
  g_assert_cmpint (g_rename (tmp, file), ==, 0);
  g_autofree char *replaced = st_module_file_key (&s, &map);
  g_assert_cmpstr (first, !=, replaced);

  /* Not a path: the name and the mapping's size.  */
  StMap anon = map_of ("[anon:jit]");
  g_autofree char *named = st_module_file_key (&s, &anon);
  g_assert_cmpstr (named, ==, "[anon:jit]#65536");

  st_module_sources_clear (&s);
  g_unlink (file);
  g_rmdir (dir);
}

/* --- a module truncated while in use ---------------------------------------- */

static void
test_truncated_under_us (void)
{
  g_autofree char *path = prog ("deep-recursion");
  g_autofree char *dir = g_dir_make_tmp ("st-module-file-XXXXXX", NULL);
  g_autofree char *copy = g_build_filename (dir, "deep-recursion", NULL);
  g_autofree char *bytes = NULL;
  gsize len;
  Opened o;

  if (!g_file_get_contents (path, &bytes, &len, NULL))
    {
      g_rmdir (dir);
      g_test_skip ("test program not built");
      return;
    }
  g_assert_cmpuint (len, >, 3 * 4096);
  g_assert_true (g_file_set_contents (copy, bytes, len, NULL));
  sources_init (&o.sources);
  StMap map = map_of (copy);
  open_module (&o, &map, TRUE);
  g_assert_cmpuint (o.m.problem, ==, ST_FILE_OK);
  g_assert_nonnull (o.m.guard);
  g_assert_false (st_mapping_guard_faulted (o.m.guard, NULL));

  /* Another process cuts it to one page: what is past it reads as
     zeros, the module is marked from the second page on.  */
  g_assert_cmpint (truncate (copy, 4096), ==, 0);
  const volatile uint8_t *data = o.m.data;
  g_assert_cmpuint (data[len - 1], ==, 0);
  g_assert_cmpuint (data[2 * 4096], ==, 0);
  uint64_t first;
  g_assert_true (st_mapping_guard_faulted (o.m.guard, &first));
  g_assert_cmpuint (first, ==, 2 * 4096);
  g_assert_cmpmem ((const void *) data, 4, ELFMAG, 4);
  close_module (&o);
  st_module_sources_clear (&o.sources);
  g_unlink (copy);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  /* An empty HOME: perf's ~/.debug of whoever runs the tests may hold
     our own [vdso], which the vDSO cases must find only where they put
     it.  */
  g_autofree char *home = g_dir_make_tmp ("st-module-file-home-XXXXXX", NULL);
  g_setenv ("HOME", home, TRUE);
  g_test_init (&argc, &argv, NULL);
  /* The guard is the caller's to install (truncated-under-us).  */
  st_mapping_guard_install ();
  elf_version (EV_CURRENT);
  static const char *const progs[] = {
    "deep-recursion", "nopie-prog", "libstcallee.so", "plt-calls",
  };
  for (guint i = 0; i < G_N_ELEMENTS (progs); i++)
    {
      g_autofree char *name = g_strdup_printf ("/module-file/readelf/%s",
                                               progs[i]);
      g_test_add_data_func (name, progs[i], check_against_readelf);
    }
  g_test_add_func ("/module-file/inode", test_inode);
  g_test_add_func ("/module-file/not-usable", test_not_usable);
  g_test_add_func ("/module-file/no-unwind-sections", test_no_unwind_sections);
  g_test_add_func ("/module-file/finder", test_finder);
  g_test_add_func ("/module-file/vdso", test_vdso);
  g_test_add_func ("/module-file/keys", test_keys);
  g_test_add_func ("/module-file/truncated-under-us",
                   test_truncated_under_us);
  int status = g_test_run ();
  g_rmdir (home);
  return status;
}
