/* libdebuginfod, loaded with dlopen only when debuginfod is on.  Linking
   it would load libcurl and some thirty libraries behind it at every
   start (some 6 ms and 16 million instructions), also for runs without
   DEBUGINFOD_URLS or with --no-debuginfod, which never ask a server.
   st_debuginfod_new loads it on the main thread: libcurl and its TLS
   library initialize themselves as they are loaded, and their exit
   handlers run on the main thread, which must have seen that.  */
#ifndef ST_DEBUGINFOD_LIBRARY_H
#define ST_DEBUGINFOD_LIBRARY_H

#include <elfutils/debuginfod.h>

typedef struct
{
  debuginfod_client *(*begin) (void);
  void (*end) (debuginfod_client *client);
  int (*find_executable) (debuginfod_client *client,
                          const unsigned char *build_id, int build_id_len,
                          char **path);
  int (*find_debuginfo) (debuginfod_client *client,
                         const unsigned char *build_id, int build_id_len,
                         char **path);
  void (*set_progressfn) (debuginfod_client *client,
                          debuginfod_progressfn_t fn);
  void (*set_user_data) (debuginfod_client *client, void *value);
  void *(*get_user_data) (debuginfod_client *client);
} StDebuginfodLibrary;

/* The library's functions, loaded once (thread-safe), or NULL when
   it cannot be loaded; then *WHY, if WHY is not NULL, is set to the
   loader's message (static: do not free).  */
const StDebuginfodLibrary *st_debuginfod_library (const char **why);

#endif /* ST_DEBUGINFOD_LIBRARY_H */
