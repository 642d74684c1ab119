/* Pages of code read with pread(), kept in a bounded cache (one per
   module cache: two caches in one process share nothing).

   The return-address check and the leaf's code reading (code-bytes.h)
   read a few bytes here and there all over a big program's code.  One
   pread() each cost cc1 13,000 system calls in a run of 0.17 s (7 % of
   its CPU time); reading through the file's mapping instead makes 16 MB
   more resident (the kernel maps 64 KiB around every first touch).  A
   page read once serves every later read in it while it stays among the
   ST_CODE_PAGES_MAX_BYTES most recently used.

   A file is known by an id from st_code_pages_file_id, never reused: a
   file closed or replaced gets no stale page, its pages just age out.
   The cache also holds the budget of descriptors kept open for it
   (st_code_pages_take_fd).  Thread-safe (one lock); the bytes are
   copied out under it.  */
#ifndef ST_CODE_PAGES_H
#define ST_CODE_PAGES_H

#include <glib.h>
#include <stdint.h>

#define ST_CODE_PAGE_SIZE 4096
#define ST_CODE_PAGES_MAX_BYTES ((size_t) 4 << 20)

typedef struct StCodePages StCodePages;

StCodePages *st_code_pages_new (void);
void st_code_pages_free (StCodePages *cp);

/* A new id for a file whose code is read through CP.  */
uint64_t st_code_pages_file_id (StCodePages *cp);

/* Whether one more file's descriptor may be kept open for CP (at most
   ST_MODULE_MAX_KEPT_FDS, and a sixteenth of RLIMIT_NOFILE); if so it
   counts until st_code_pages_drop_fd.  */
gboolean st_code_pages_take_fd (StCodePages *cp);
void st_code_pages_drop_fd (StCodePages *cp);

/* Copies LEN bytes at OFFSET of the file FILE_ID open as FD into BUF,
   from cached pages or read whole with pread().  FALSE when the file
   holds fewer bytes there (BUF is then undefined).  */
gboolean st_code_pages_read (StCodePages *cp, uint64_t file_id, int fd,
                             uint64_t offset, void *buf, size_t len);

/* What the cache holds now, for tests.  */
size_t st_code_pages_bytes (StCodePages *cp);

/* How many pread() calls the cache has made so far.  */
uint64_t st_code_pages_reads (StCodePages *cp);

#endif
