/* Files fetched by build-id from debuginfod servers (libdebuginfod): the
   executable of a mapping whose local file is missing, not a regular
   file or not the recorded build, and the separate debuginfo of a module
   whose call frame information was stripped into it.

   The servers are those of DEBUGINFOD_URLS; downloads land in the
   client's own cache (DEBUGINFOD_CACHE_PATH, by default
   ~/.cache/debuginfod_client), which also remembers misses, so a second
   run asks no server.  DEBUGINFOD_TIMEOUT and the client's other
   variables apply as usual.

   Thread-safe: module preparation may run on worker threads.  Clients
   are created lazily, one per concurrent query (a libdebuginfod client
   serves one query at a time), and reused.  Every answer, found or not,
   is kept for the lifetime of the object: a build-id is asked for at
   most once per kind, and a thread asking while another one's query for
   the same file runs waits for that answer instead of asking again.  */
#ifndef ST_DEBUGINFOD_FETCH_H
#define ST_DEBUGINFOD_FETCH_H

#include <glib.h>
#include <stdint.h>

#include "model/module-cache.h"

typedef enum
{
  ST_DEBUGINFOD_EXECUTABLE,   /* the ELF file that was mapped */
  ST_DEBUGINFOD_DEBUGINFO,    /* its separate debug file */
} StDebuginfodKind;

typedef struct
{
  guint queries;     /* distinct files asked for */
  guint found;       /* of those, found (downloaded or in the cache) */
} StDebuginfodStats;

typedef struct StDebuginfod StDebuginfod;

/* NULL when URLS (the caller's $DEBUGINFOD_URLS: the library never
   reads the environment) is NULL or blank: there is no server to ask,
   and callers treat a NULL StDebuginfod as "off".  libdebuginfod itself
   takes the servers from the environment.  */
StDebuginfod *st_debuginfod_new (const char *urls);
void st_debuginfod_free (StDebuginfod *d);

/* The path of the KIND file of BUILD_ID in the client's cache (free it
   with g_free), or NULL when no server has it; then, if WHY is not NULL,
   *WHY is set to a short reason (free it).  Blocks while downloading.  */
char *st_debuginfod_find (StDebuginfod *d, StDebuginfodKind kind,
                          const uint8_t *build_id, size_t build_id_len,
                          char **why);

/* st_debuginfod_find as the module cache's finder (USER_DATA is the
   StDebuginfod, may be NULL: off).  Files without a recorded build-id
   cannot be asked for.  */
char *st_debuginfod_module_finder (StModuleFileKind kind, const char *path,
                                   const uint8_t *build_id,
                                   guint build_id_len, char **why,
                                   void *user_data);

/* Abandons the queries running (within about a second) and any later
   one: nothing will need them any more, e.g. modules still prepared on
   workers when the run is over.  D may be NULL.  */
void st_debuginfod_cancel (StDebuginfod *d);

/* Counts so far (thread-safe).  D may be NULL: all zero.  */
void st_debuginfod_get_stats (StDebuginfod *d, StDebuginfodStats *stats);

#endif /* ST_DEBUGINFOD_FETCH_H */
