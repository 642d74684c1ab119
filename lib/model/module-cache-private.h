/* The module cache's bookkeeping of each module (StModule.cached): for
   the cache's own files (module-cache.c, module-file.c) only.  */
#ifndef ST_MODULE_CACHE_PRIVATE_H
#define ST_MODULE_CACHE_PRIVATE_H

#include <glib.h>

#include "model/file-resolver.h"

struct StModuleCache;

struct StModuleCacheEntry
{
  struct StModuleCache *cache;
  char *key;
  guint users;             /* process states holding it */
  gboolean counted;        /* BYTES are in the cache's total */
  StFilePins pins;         /* the process's own files, opened at first
                              sight, closed once prepared */
  size_t bytes;            /* accounted: file size + tables */
  GList lru;               /* in the cache's LRU list while unused and
                              READY */
};

#endif /* ST_MODULE_CACHE_PRIVATE_H */
