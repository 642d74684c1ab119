/* Unit tests of the code page cache (model/code-pages.h): bytes come back
   as the file holds them, across page boundaries; a page is read once
   while it stays cached; what lies past the file's end is refused; two
   file ids never share a page; and the cache stays within its bound,
   the least recently used page going first; two caches share
   nothing.  */
#include "config.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "model/code-pages.h"
#include "model/module-cache.h"

#define FILE_BYTES (3 * ST_CODE_PAGE_SIZE + 100)

static uint8_t
byte_at (uint64_t offset, uint8_t salt)
{
  return (uint8_t) ((offset * 131 + offset / 251) ^ salt);
}

/* A scratch file of FILE_BYTES whose bytes are byte_at (offset, SALT);
   its descriptor, the file unlinked.  */
static int
scratch_file (uint8_t salt)
{
  char *path = NULL;
  int fd = g_file_open_tmp ("test-code-pages-XXXXXX", &path, NULL);
  g_assert_cmpint (fd, >=, 0);
  g_unlink (path);
  g_free (path);
  uint8_t *bytes = g_malloc (FILE_BYTES);
  for (uint64_t i = 0; i < FILE_BYTES; i++)
    bytes[i] = byte_at (i, salt);
  g_assert_cmpint (write (fd, bytes, FILE_BYTES), ==, FILE_BYTES);
  g_free (bytes);
  return fd;
}

static void
assert_bytes (const uint8_t *buf, uint64_t offset, size_t len, uint8_t salt)
{
  for (size_t i = 0; i < len; i++)
    g_assert_cmpuint (buf[i], ==, byte_at (offset + i, salt));
}

static void
test_reads_once (void)
{
  StCodePages *cp = st_code_pages_new ();
  int fd = scratch_file (0);
  uint64_t id = st_code_pages_file_id (cp);
  uint8_t buf[64];
  uint64_t reads = st_code_pages_reads (cp);

  /* Within page 1, twice: one pread.  */
  g_assert_true (st_code_pages_read (cp, id, fd, ST_CODE_PAGE_SIZE + 10, buf, 16));
  assert_bytes (buf, ST_CODE_PAGE_SIZE + 10, 16, 0);
  g_assert_true (st_code_pages_read (cp, id, fd, 2 * ST_CODE_PAGE_SIZE - 16, buf,
                                     16));
  assert_bytes (buf, 2 * ST_CODE_PAGE_SIZE - 16, 16, 0);
  g_assert_cmpuint (st_code_pages_reads (cp), ==, reads + 1);

  /* Across the boundary of pages 1 and 2: page 2 is read.  */
  g_assert_true (st_code_pages_read (cp, id, fd, 2 * ST_CODE_PAGE_SIZE - 7, buf,
                                     16));
  assert_bytes (buf, 2 * ST_CODE_PAGE_SIZE - 7, 16, 0);
  g_assert_cmpuint (st_code_pages_reads (cp), ==, reads + 2);
  close (fd);
  st_code_pages_free (cp);
}

static void
test_file_end (void)
{
  StCodePages *cp = st_code_pages_new ();
  int fd = scratch_file (1);
  uint64_t id = st_code_pages_file_id (cp);
  uint8_t buf[200];

  /* The last 100 bytes are there, one more is not.  */
  g_assert_true (st_code_pages_read (cp, id, fd, FILE_BYTES - 100, buf, 100));
  assert_bytes (buf, FILE_BYTES - 100, 100, 1);
  g_assert_false (st_code_pages_read (cp, id, fd, FILE_BYTES - 100, buf, 101));
  g_assert_false (st_code_pages_read (cp, id, fd, 10 * ST_CODE_PAGE_SIZE, buf,
                                      16));
  g_assert_false (st_code_pages_read (cp, id, fd, G_MAXUINT64 - 4, buf, 16));
  close (fd);
  st_code_pages_free (cp);
}

static void
test_files_apart (void)
{
  StCodePages *cp = st_code_pages_new ();
  int fd_a = scratch_file (2);
  int fd_b = scratch_file (3);
  uint64_t a = st_code_pages_file_id (cp);
  uint64_t b = st_code_pages_file_id (cp);
  uint8_t buf[16];

  g_assert_cmpuint (a, !=, b);
  g_assert_true (st_code_pages_read (cp, a, fd_a, 300, buf, 16));
  assert_bytes (buf, 300, 16, 2);
  g_assert_true (st_code_pages_read (cp, b, fd_b, 300, buf, 16));
  assert_bytes (buf, 300, 16, 3);
  /* Replaced under the same id would be a bug of the caller; a new id
     for the same descriptor reads afresh.  */
  uint64_t reads = st_code_pages_reads (cp);
  g_assert_true (st_code_pages_read (cp, st_code_pages_file_id (cp), fd_a, 300, buf,
                                     16));
  assert_bytes (buf, 300, 16, 2);
  g_assert_cmpuint (st_code_pages_reads (cp), ==, reads + 1);
  close (fd_a);
  close (fd_b);
  st_code_pages_free (cp);
}

static void
test_bound (void)
{
  StCodePages *cp = st_code_pages_new ();
  int fd = scratch_file (4);
  uint64_t first = st_code_pages_file_id (cp);
  uint8_t buf[8];
  size_t max_pages = ST_CODE_PAGES_MAX_BYTES / ST_CODE_PAGE_SIZE;

  g_assert_true (st_code_pages_read (cp, first, fd, 0, buf, 8));
  /* As many other pages as the cache holds (one page each of new ids):
     the first one goes, being the least recently used.  */
  for (size_t i = 0; i < max_pages; i++)
    g_assert_true (st_code_pages_read (cp, st_code_pages_file_id (cp), fd,
                                       ST_CODE_PAGE_SIZE, buf, 8));
  g_assert_cmpuint (st_code_pages_bytes (cp), <=,
                    ST_CODE_PAGES_MAX_BYTES + max_pages * 64);
  uint64_t reads = st_code_pages_reads (cp);
  g_assert_true (st_code_pages_read (cp, first, fd, 0, buf, 8));
  assert_bytes (buf, 0, 8, 4);
  g_assert_cmpuint (st_code_pages_reads (cp), ==, reads + 1);

  /* A page in use stays: touch it between the others.  */
  uint64_t kept = st_code_pages_file_id (cp);
  g_assert_true (st_code_pages_read (cp, kept, fd, 0, buf, 8));
  for (size_t i = 0; i < 2 * max_pages; i++)
    {
      g_assert_true (st_code_pages_read (cp, st_code_pages_file_id (cp), fd, 0, buf,
                                         8));
      g_assert_true (st_code_pages_read (cp, kept, fd, 0, buf, 8));
    }
  reads = st_code_pages_reads (cp);
  g_assert_true (st_code_pages_read (cp, kept, fd, 0, buf, 8));
  g_assert_cmpuint (st_code_pages_reads (cp), ==, reads);
  close (fd);
  st_code_pages_free (cp);
}

/* Two caches share nothing: ids, pages and counts are each their own
   (two library contexts in one process never see each other's).  */
static void
test_caches_apart (void)
{
  StCodePages *a = st_code_pages_new ();
  StCodePages *b = st_code_pages_new ();
  int fd = scratch_file (5);
  uint8_t buf[8];

  g_assert_cmpuint (st_code_pages_file_id (a), ==, st_code_pages_file_id (b));
  g_assert_true (st_code_pages_read (a, 1, fd, 0, buf, 8));
  g_assert_cmpuint (st_code_pages_reads (a), ==, 1);
  g_assert_cmpuint (st_code_pages_reads (b), ==, 0);
  g_assert_cmpuint (st_code_pages_bytes (b), ==, 0);
  g_assert_true (st_code_pages_read (b, 1, fd, 0, buf, 8));
  g_assert_cmpuint (st_code_pages_reads (b), ==, 1);
  /* The descriptor budget is per cache too.  */
  guint taken = 0;
  while (taken < 100000 && st_code_pages_take_fd (a))
    taken++;
  g_assert_cmpuint (taken, >=, 1);
  g_assert_cmpuint (taken, <=, ST_MODULE_MAX_KEPT_FDS);
  g_assert_true (st_code_pages_take_fd (b));
  st_code_pages_drop_fd (b);
  st_code_pages_drop_fd (a);
  g_assert_true (st_code_pages_take_fd (a));
  while (taken-- > 0)
    st_code_pages_drop_fd (a);
  close (fd);
  st_code_pages_free (a);
  st_code_pages_free (b);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/code-pages/reads-once", test_reads_once);
  g_test_add_func ("/code-pages/file-end", test_file_end);
  g_test_add_func ("/code-pages/files-apart", test_files_apart);
  g_test_add_func ("/code-pages/bound", test_bound);
  g_test_add_func ("/code-pages/caches-apart", test_caches_apart);
  return g_test_run ();
}
