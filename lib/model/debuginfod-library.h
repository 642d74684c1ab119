/* libdebuginfod, loaded the first time a file is to be fetched.  Linking
   it would load libcurl and some thirty libraries behind it at every
   start (some 6 ms and 16 million instructions), for runs that nearly
   always find their files locally; so, like libdwfl itself, we dlopen
   it when a query is about to be made.  */
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

/* The library's functions, loaded once (from any thread), or NULL when
   it cannot be loaded; then *WHY, if WHY is not NULL, is set to the
   loader's message (static: do not free).  */
const StDebuginfodLibrary *st_debuginfod_library (const char **why);

#endif /* ST_DEBUGINFOD_LIBRARY_H */
