/* Finding a separate debug file without ever blocking
   (unwind/safe-debuginfo.c).

   st_open_regular_file: a regular file of the size asked for opens;
   a smaller one, a directory, a character device, a FIFO (without a
   writer: it must not block) and a missing path do not.

   st_find_debuginfo_safely, asked as libdwfl asks (the module's
   .gnu_debuglink name and CRC as libdw reads them from the stripped
   file): the test programs stripped at check time (tests/Makefile.am)
   find their debug file next to them by the debuglink, and in .debug/
   beside them; a file of another build ID under the right name is
   refused; for a program without a build ID, the debuglink's CRC
   decides (a wrong CRC refuses the file); an absolute debuglink is
   taken as it is; a debuglink naming the file itself, a FIFO under the
   debug file's name, or no debuglink, give nothing.  Each found file
   has the module's build ID (read back with libdw).  The build-ID tree
   under /usr/lib/debug is not exercised: a test does not write there.  */
#include "config.h"

#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unwind/safe-debuginfo.h"

#define PROGS ST_PROGS_DIR

/* --- st_open_regular_file ------------------------------------------------- */

static void
test_open_regular_file (void)
{
  g_autofree char *dir = g_dir_make_tmp ("st-safe-XXXXXX", NULL);
  g_autofree char *small = g_build_filename (dir, "small", NULL);
  g_autofree char *fifo = g_build_filename (dir, "fifo", NULL);
  char bytes[100] = { 0 };

  g_assert_nonnull (dir);
  g_assert_true (g_file_set_contents (small, bytes, sizeof bytes, NULL));
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);

  int fd = st_open_regular_file (small, 100);
  g_assert_cmpint (fd, >=, 0);
  /* Read-only, and closed on exec.  */
  g_assert_cmpint (fcntl (fd, F_GETFL) & O_ACCMODE, ==, O_RDONLY);
  g_assert_true (fcntl (fd, F_GETFD) & FD_CLOEXEC);
  close (fd);
  g_assert_cmpint (st_open_regular_file (small, 0), >=, 0);
  close (st_open_regular_file (small, 0));
  g_assert_cmpint (st_open_regular_file (small, 101), ==, -1);
  g_assert_cmpint (st_open_regular_file (dir, 0), ==, -1);
  g_assert_cmpint (st_open_regular_file ("/dev/zero", 0), ==, -1);
  g_assert_cmpint (st_open_regular_file (fifo, 0), ==, -1);
  g_assert_cmpint (st_open_regular_file ("/nonexistent/file", 0), ==, -1);

  g_assert_cmpint (g_unlink (small), ==, 0);
  g_assert_cmpint (g_unlink (fifo), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* --- st_find_debuginfo_safely --------------------------------------------- */

static const Dwfl_Callbacks offline_callbacks = {
  .find_elf = dwfl_build_id_find_elf,
  .find_debuginfo = dwfl_standard_find_debuginfo,
  .section_address = dwfl_offline_section_address,
};

typedef struct
{
  Dwfl *dwfl;
  Dwfl_Module *mod;
  char *path;
  const char *debuglink;    /* as libdw reads it from the file */
  GElf_Word crc;
  GBytes *build_id;         /* NULL: none */
} Stripped;

static void
stripped_open (Stripped *s, const char *path)
{
  GElf_Addr vaddr;
  const unsigned char *bits;
  Dwarf_Addr bias;

  memset (s, 0, sizeof *s);
  s->path = g_strdup (path);
  s->dwfl = dwfl_begin (&offline_callbacks);
  dwfl_report_begin (s->dwfl);
  s->mod = dwfl_report_offline (s->dwfl, "prog", path, -1);
  dwfl_report_end (s->dwfl, NULL, NULL);
  g_assert_nonnull (s->mod);
  Elf *elf = dwfl_module_getelf (s->mod, &bias);
  g_assert_nonnull (elf);
  s->debuglink = dwelf_elf_gnu_debuglink (elf, &s->crc);
  g_assert_nonnull (s->debuglink);
  int len = dwfl_module_build_id (s->mod, &bits, &vaddr);
  if (len > 0)
    s->build_id = g_bytes_new (bits, len);
}

static void
stripped_close (Stripped *s)
{
  dwfl_end (s->dwfl);
  g_free (s->path);
  if (s->build_id != NULL)
    g_bytes_unref (s->build_id);
}

/* The build ID of the ELF file on FD (NULL: none), by libdw.  */
static GBytes *
build_id_of_fd (int fd)
{
  const void *id;
  Elf *elf = elf_begin (fd, ELF_C_READ_MMAP, NULL);
  g_assert_nonnull (elf);
  ssize_t n = dwelf_elf_gnu_build_id (elf, &id);
  GBytes *b = n > 0 ? g_bytes_new (id, n) : NULL;
  elf_end (elf);
  return b;
}

/* Asks as libdwfl would for S's module, as file FILE_NAME with
   debuglink LINK and CRC: the path found (newly allocated), or NULL.
   A file found is S's debug file by build ID.  */
static char *
ask (Stripped *s, const char *file_name, const char *link, GElf_Word crc)
{
  char *found = NULL;
  int fd = st_find_debuginfo_safely (s->mod, NULL, "prog", 0, file_name, link,
                                     crc, &found);
  if (fd < 0)
    {
      g_assert_null (found);
      return NULL;
    }
  g_assert_nonnull (found);
  GBytes *id = build_id_of_fd (fd);
  if (s->build_id != NULL)
    {
      g_assert_nonnull (id);
      g_assert_true (g_bytes_equal (id, s->build_id));
    }
  if (id != NULL)
    g_bytes_unref (id);
  close (fd);
  return found;
}

static void
copy_file (const char *from, const char *to)
{
  g_autofree char *data = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (from, &data, &len, NULL));
  g_assert_true (g_file_set_contents (to, data, len, NULL));
}

/* Next to the file, by its debuglink; then in .debug/ beside it.  */
static void
test_debuglink (void)
{
  Stripped s;

  stripped_open (&s, PROGS "/mixed-frames");
  g_assert_cmpstr (s.debuglink, ==, "mixed-frames.debug");
  g_assert_nonnull (s.build_id);
  g_autofree char *found = ask (&s, s.path, s.debuglink, s.crc);
  g_assert_cmpstr (found, ==, PROGS "/mixed-frames.debug");

  g_autofree char *dir = g_dir_make_tmp ("st-safe-XXXXXX", NULL);
  g_autofree char *file = g_build_filename (dir, "mixed-frames", NULL);
  g_autofree char *sub = g_build_filename (dir, ".debug", NULL);
  g_autofree char *debug = g_build_filename (sub, "mixed-frames.debug", NULL);
  copy_file (s.path, file);
  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  /* Nothing there yet.  */
  g_assert_null (ask (&s, file, s.debuglink, s.crc));
  copy_file (PROGS "/mixed-frames.debug", debug);
  g_autofree char *in_sub = ask (&s, file, s.debuglink, s.crc);
  g_assert_cmpstr (in_sub, ==, debug);

  /* Another program's debug file under that name: another build ID.  */
  copy_file (PROGS "/plain-stripped.debug", debug);
  g_assert_null (ask (&s, file, s.debuglink, s.crc));
  /* ... even with its CRC: the build ID decides.  */
  g_assert_null (ask (&s, file, s.debuglink, 0x12345678));

  /* A FIFO under the debug file's name (no writer): no wait, nothing.  */
  g_assert_cmpint (g_unlink (debug), ==, 0);
  g_assert_cmpint (mkfifo (debug, 0600), ==, 0);
  g_assert_null (ask (&s, file, s.debuglink, s.crc));

  /* An absolute debuglink: that file.  */
  g_autofree char *abs = ask (&s, file, PROGS "/mixed-frames.debug", s.crc);
  g_assert_cmpstr (abs, ==, PROGS "/mixed-frames.debug");

  /* A debuglink naming the file itself; none at all.  */
  g_assert_null (ask (&s, file, "mixed-frames", s.crc));
  g_assert_null (ask (&s, file, NULL, 0));
  g_assert_null (ask (&s, file, "", 0));
  /* Where the file's directory is unknown: only an absolute link.  */
  g_assert_null (ask (&s, NULL, s.debuglink, s.crc));

  g_assert_cmpint (g_unlink (debug), ==, 0);
  g_assert_cmpint (g_rmdir (sub), ==, 0);
  g_assert_cmpint (g_unlink (file), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  stripped_close (&s);
}

/* Without a build ID the debuglink's CRC (of the whole debug file)
   tells the right file: as eu-strip wrote it, found; any other CRC,
   not; another file of the right name, not.  */
static void
test_crc (void)
{
  Stripped s;

  stripped_open (&s, PROGS "/no-build-id");
  g_assert_null (s.build_id);
  g_assert_cmpstr (s.debuglink, ==, "no-build-id.debug");
  g_assert_cmpuint (s.crc, !=, 0);
  g_autofree char *found = ask (&s, s.path, s.debuglink, s.crc);
  g_assert_cmpstr (found, ==, PROGS "/no-build-id.debug");
  g_assert_null (ask (&s, s.path, s.debuglink, s.crc ^ 1));

  g_autofree char *dir = g_dir_make_tmp ("st-safe-XXXXXX", NULL);
  g_autofree char *file = g_build_filename (dir, "no-build-id", NULL);
  g_autofree char *debug = g_build_filename (dir, "no-build-id.debug", NULL);
  copy_file (s.path, file);
  copy_file (PROGS "/plain-stripped.debug", debug);
  g_assert_null (ask (&s, file, s.debuglink, s.crc));
  /* The same bytes but one: another CRC.  */
  g_autofree char *data = NULL;
  gsize len;
  g_assert_true (g_file_get_contents (PROGS "/no-build-id.debug", &data, &len,
                                      NULL));
  g_assert_true (g_file_set_contents (debug, data, len, NULL));
  g_autofree char *copy = ask (&s, file, s.debuglink, s.crc);
  g_assert_cmpstr (copy, ==, debug);
  data[len - 1] ^= 0x40;
  g_assert_true (g_file_set_contents (debug, data, len, NULL));
  g_assert_null (ask (&s, file, s.debuglink, s.crc));

  g_assert_cmpint (g_unlink (debug), ==, 0);
  g_assert_cmpint (g_unlink (file), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  stripped_close (&s);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  elf_version (EV_CURRENT);
  g_test_add_func ("/safe-debuginfo/open-regular-file",
                   test_open_regular_file);
  g_test_add_func ("/safe-debuginfo/debuglink", test_debuglink);
  g_test_add_func ("/safe-debuginfo/crc", test_crc);
  return g_test_run ();
}
