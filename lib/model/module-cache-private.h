/* The module cache's bookkeeping of each module: for the cache's own
   files (module-cache.c, module-file.c) only.  */
#ifndef ST_MODULE_CACHE_PRIVATE_H
#define ST_MODULE_CACHE_PRIVATE_H

#include "model/module-cache.h"

struct StModuleCacheEntry
{
  StModuleCache *cache;
  char *key;
  guint users;             /* process states holding it */
  gboolean counted;        /* BYTES are in the cache's total */
  StFilePins pins;         /* the process's own files, opened at first
                              sight, closed once prepared */
  size_t bytes;            /* accounted: file size + tables */
  GList lru;               /* in the cache's LRU list while unused and
                              READY */
};

/* A module the cache made: both in one allocation, MODULE first (freed
   with g_free of the module).  */
typedef struct
{
  StModule module;
  struct StModuleCacheEntry entry;
} StCachedModule;

#endif /* ST_MODULE_CACHE_PRIVATE_H */
