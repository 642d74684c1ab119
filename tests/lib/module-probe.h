/* For the tests of the libdwfl glue: modules of real files from a module
   cache, a finder that records what it is asked, and what libdw itself
   says of a file (build ID, sections, CFI) as the known answer.  */
#ifndef ST_TEST_MODULE_PROBE_H
#define ST_TEST_MODULE_PROBE_H

#include <elfutils/libdwfl.h>
#include <glib.h>
#include <stdint.h>

#include "model/address-space.h"
#include "model/module-cache.h"

typedef struct
{
  StModuleCache *cache;
  StAddressSpace *as;       /* names the files (interned) */
  /* The finder (probe_modules_count_finder): calls, the last request,
     and the path it answers (NULL: nothing).  */
  guint finder_calls;
  StModuleFileKind finder_kind;
  GBytes *finder_build_id;
  char *finder_path;
  const char *finder_answer;
} ProbeModules;

/* A cache (SYMFS may be NULL) whose finder is the counting one.  */
void probe_modules_init (ProbeModules *m, const char *symfs);
void probe_modules_clear (ProbeModules *m);

/* The module of file NAME (borrowed from the cache).  */
StModule *probe_modules_get (ProbeModules *m, const char *name);

/* libdw on the file PATH: its build ID (NULL: none); whether it has a
   section NAME; whether its own .eh_frame or .debug_frame covers ADDR.  */
GBytes *probe_build_id (const char *path);
gboolean probe_has_section (const char *path, const char *name);
gboolean probe_file_cfi_covers (const char *path, uint64_t addr);

/* Whether the CFI libdwfl gives for MOD (either kind) covers ADDR.  */
gboolean probe_module_cfi_covers (Dwfl_Module *mod, uint64_t addr);

/* Copies FROM to DIR (a new temporary directory, in *DIR) under its
   base name; returns the copy's path.  */
char *probe_copy_alone (const char *from, char **dir);

#endif /* ST_TEST_MODULE_PROBE_H */
