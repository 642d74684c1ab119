/* The file of a module: where it is found (the file resolver's
   candidates, then the fallback finder), what identifies it, opening it and reading its
   program headers and build-id.  Used by the module cache only.

   Thread safety: st_module_file_open touches only the module it is given
   and reads the sources, which must not change once modules are opened;
   it runs on the cache's worker threads.  */
#ifndef ST_MODULE_FILE_H
#define ST_MODULE_FILE_H

#include "model/code-pages.h"
#include "model/module-cache.h"

/* Where module files come from.  */
typedef struct
{
  StFileResolver *resolver; /* the local candidates (owned) */
  uint8_t *vdso;            /* a copy of our own vDSO image, or NULL */
  size_t vdso_size;
  StModuleFinder finder;    /* NULL: none */
  void *finder_data;
  StCodePages *code_pages;  /* code read with pread(), and the budget of
                               descriptors kept for it (owned) */
} StModuleSources;

/* Takes RESOLVER.  */
void st_module_sources_init (StModuleSources *s, StFileResolver *resolver);
void st_module_sources_clear (StModuleSources *s);

/* The identity of MAP's file: its build-id when recorded, else the
   recorded path and inode plus the local file's device, inode and
   modification time (so a replaced file is another module).  Costs a
   stat() per candidate path when there is no build-id.  */
char *st_module_file_key (const StModuleSources *s, const StMap *map);

/* Finds and opens the file of MAP into M (path, elf, data, size, machine,
   loads, build-id, source, verification), or sets M->error and
   M->problem: the resolver's candidates in order (file-resolver.h),
   then the finder (which may download) -- unless ASK_FINDER is FALSE
   and MAP has a build-id: then M->fetch_deferred is set instead, for
   st_module_file_fetch once a sample needs M.  No descriptor stays open
   but M's pins, which the caller closes, and the file's own for
   st_module_pread (M->fd, closed by st_module_file_close_fd).  */
void st_module_file_open (const StModuleSources *s, StModule *m,
                          const StMap *map, gboolean ask_finder);

/* Asks the finder for the file of MAP, which no local candidate gave,
   and opens it into M (or says why not in M->error).  */
void st_module_file_fetch (const StModuleSources *s, StModule *m,
                           const StMap *map);

/* Closes M's kept descriptor, if any.  */
void st_module_file_close_fd (StModule *m);

#endif /* ST_MODULE_FILE_H */
