/* The SIGBUS guard of mapped files (util/mapping-guard.c), on a real
   file truncated under its mapping.

   POSIX (mmap): a read of a mapped page wholly past the end of the file
   raises SIGBUS.  Guarded, that read must instead give zeros, the range
   must be marked at the lowest faulting page (offset from the range's
   start), the global fault count must rise, and the pages still in the
   file must read as before.  Unguarded (never added, or removed), the
   process still dies of the signal, in a subprocess.  A file guarded by
   identity (device and inode, as for the separate debug files libelf
   maps for libdwfl) is repaired wherever it is mapped, here from its
   second page on, and marked at the file offset.  */
#include "config.h"

#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/mapping-guard.h"

typedef struct
{
  char *path;
  int fd;
  size_t page;
  size_t len;
  const volatile uint8_t *map;
} MappedFile;

/* A file of PAGES pages, byte I = I % 251 + 1 (never 0), mapped.  */
static void
mapped_file_open (MappedFile *f, guint pages)
{
  f->page = (size_t) sysconf (_SC_PAGESIZE);
  f->len = pages * f->page;
  f->fd = g_file_open_tmp ("st-guard-XXXXXX", &f->path, NULL);
  g_assert_cmpint (f->fd, >=, 0);
  g_autofree uint8_t *bytes = g_malloc (f->len);
  for (size_t i = 0; i < f->len; i++)
    bytes[i] = (uint8_t) (i % 251 + 1);
  g_assert_cmpint (write (f->fd, bytes, f->len), ==, (ssize_t) f->len);
  void *map = mmap (NULL, f->len, PROT_READ, MAP_SHARED, f->fd, 0);
  g_assert_true (map != MAP_FAILED);
  f->map = map;
}

static void
mapped_file_close (MappedFile *f)
{
  munmap ((void *) f->map, f->len);
  close (f->fd);
  g_unlink (f->path);
  g_free (f->path);
}

static void
test_truncated (void)
{
  MappedFile f;

  mapped_file_open (&f, 4);
  st_mapping_guard_install ();
  st_mapping_guard_install ();      /* a second time does nothing */
  StMappingGuard *g = st_mapping_guard_add ((const void *) f.map, f.len);
  g_assert_nonnull (g);
  uint64_t first = 77;
  g_assert_false (st_mapping_guard_faulted (g, &first));
  g_assert_cmpuint (first, ==, 77);

  /* Read while whole: no fault.  */
  g_assert_cmpuint (f.map[3 * f.page + 5], ==, (3 * f.page + 5) % 251 + 1);
  uint64_t faults = st_mapping_guard_faults ();

  /* Another process cuts the file to one page and a half.  */
  g_assert_cmpint (ftruncate (f.fd, f.page + f.page / 2), ==, 0);

  /* The last page first, then the third: zeros, the lowest marked.  */
  g_assert_cmpuint (f.map[3 * f.page + 5], ==, 0);
  g_assert_true (st_mapping_guard_faulted (g, &first));
  g_assert_cmpuint (first, ==, 3 * f.page);
  g_assert_cmpuint (f.map[2 * f.page + f.page - 1], ==, 0);
  g_assert_true (st_mapping_guard_faulted (g, &first));
  g_assert_cmpuint (first, ==, 2 * f.page);
  g_assert_cmpuint (st_mapping_guard_faults (), ==, faults + 2);

  /* A page read again faults no more.  */
  g_assert_cmpuint (f.map[3 * f.page], ==, 0);
  g_assert_cmpuint (st_mapping_guard_faults (), ==, faults + 2);

  /* What is still in the file reads as before, also the part of the
     second page within the file (the rest of that page is zeros, as
     the kernel gives them, not a fault).  */
  g_assert_cmpuint (f.map[0], ==, 1);
  g_assert_cmpuint (f.map[f.page + 7], ==, (f.page + 7) % 251 + 1);
  g_assert_cmpuint (f.map[f.page + f.page / 2], ==, 0);
  g_assert_cmpuint (st_mapping_guard_faults (), ==, faults + 2);

  st_mapping_guard_remove (g);
  mapped_file_close (&f);
}

/* Two files guarded at once: each range is marked alone; a guard slot
   freed is used again, unmarked.  */
static void
test_file_identity (void)
{
  MappedFile f;
  struct stat st;

  mapped_file_open (&f, 4);
  g_assert_cmpint (fstat (f.fd, &st), ==, 0);
  /* Mapped again from its second page, as libelf maps what we never see.  */
  const volatile uint8_t *map = mmap (NULL, 3 * f.page, PROT_READ,
                                      MAP_SHARED, f.fd, (off_t) f.page);
  g_assert_true (map != MAP_FAILED);
  st_mapping_guard_install ();
  StMappingGuard *g = st_mapping_guard_add_file ((uint64_t) st.st_dev,
                                                 (uint64_t) st.st_ino);
  g_assert_nonnull (g);
  g_assert_true (st_mapping_guard_add_file ((uint64_t) st.st_dev,
                                            (uint64_t) st.st_ino) == g);
  g_assert_false (st_mapping_guard_faulted (g, NULL));

  uint64_t faults = st_mapping_guard_faults ();
  g_assert_cmpint (ftruncate (f.fd, (off_t) (2 * f.page)), ==, 0);
  g_assert_cmpuint (map[0], ==, f.page % 251 + 1);    /* still in the file */
  g_assert_cmpuint (map[2 * f.page + 7], ==, 0);      /* past its end */
  g_assert_cmpuint (map[f.page + 1], ==, 0);
  uint64_t first;
  g_assert_true (st_mapping_guard_faulted (g, &first));
  g_assert_cmpuint (first, ==, 2 * (uint64_t) f.page);
  g_assert_cmpuint (st_mapping_guard_faults (), ==, faults + 2);

  munmap ((void *) map, 3 * f.page);
  /* The first mapping of the same file is repaired too (its page 3).  */
  g_assert_cmpuint (f.map[3 * f.page], ==, 0);
  g_assert_cmpuint (st_mapping_guard_faults (), ==, faults + 3);
  mapped_file_close (&f);
}

static void
test_two_ranges (void)
{
  MappedFile a, b;

  mapped_file_open (&a, 2);
  mapped_file_open (&b, 2);
  st_mapping_guard_install ();
  StMappingGuard *ga = st_mapping_guard_add ((const void *) a.map, a.len);
  StMappingGuard *gb = st_mapping_guard_add ((const void *) b.map, b.len);
  g_assert_true (ga != gb);

  g_assert_cmpint (ftruncate (b.fd, 0), ==, 0);
  g_assert_cmpuint (b.map[b.page + 1], ==, 0);
  uint64_t first;
  g_assert_true (st_mapping_guard_faulted (gb, &first));
  g_assert_cmpuint (first, ==, b.page);
  g_assert_false (st_mapping_guard_faulted (ga, NULL));
  g_assert_true (st_mapping_guard_faulted (gb, NULL));

  st_mapping_guard_remove (gb);
  StMappingGuard *again = st_mapping_guard_add ((const void *) b.map, b.len);
  g_assert_nonnull (again);
  g_assert_false (st_mapping_guard_faulted (again, NULL));
  st_mapping_guard_remove (again);
  st_mapping_guard_remove (ga);
  mapped_file_close (&a);
  mapped_file_close (&b);
}

static void
test_nothing_to_guard (void)
{
  uint8_t byte = 0;

  g_assert_null (st_mapping_guard_add (NULL, 4096));
  g_assert_null (st_mapping_guard_add (&byte, 0));
  g_assert_false (st_mapping_guard_faulted (NULL, NULL));
  st_mapping_guard_remove (NULL);
}

/* In the subprocess: a read past the end of a truncated file mapped
   outside every guarded range (removed when REMOVED) must still kill.  */
static void
read_unguarded (gboolean removed)
{
  MappedFile f;

  mapped_file_open (&f, 2);
  st_mapping_guard_install ();
  if (removed)
    st_mapping_guard_remove (st_mapping_guard_add ((const void *) f.map,
                                                   f.len));
  g_assert_cmpint (ftruncate (f.fd, 0), ==, 0);
  g_unlink (f.path);
  volatile uint8_t byte = f.map[f.page];
  (void) byte;
}

static void
test_unguarded_dies (void)
{
  if (g_test_subprocess ())
    {
      read_unguarded (g_str_has_suffix (g_test_get_path (), "removed"));
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/mapping-guard/truncated", test_truncated);
  g_test_add_func ("/mapping-guard/two-ranges", test_two_ranges);
  g_test_add_func ("/mapping-guard/file-identity", test_file_identity);
  g_test_add_func ("/mapping-guard/nothing-to-guard", test_nothing_to_guard);
  g_test_add_func ("/mapping-guard/unguarded-dies", test_unguarded_dies);
  g_test_add_func ("/mapping-guard/unguarded-dies-removed",
                   test_unguarded_dies);
  return g_test_run ();
}
