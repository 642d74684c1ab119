/* libdwfl's find_debuginfo callback: where the separate debug file of a
   module is.  Local files first (st_find_debuginfo_safely: where
   libdwfl's standard callback looks, but regular files only, never
   blocking).  Then, only for a module whose own
   file has no .debug_frame and whose .eh_frame covers less than half of
   its .text, debuginfod: such code was built without unwind tables
   (-fno-asynchronous-unwind-tables -fno-unwind-tables -g puts its call
   frame information in .debug_frame only; .eh_frame keeps just _start
   and the PLT) and then stripped, so the debug file's .debug_frame is
   the only way to unwind it.  Code with unwind tables gains nothing for
   unwinding from its debug file (gcc emits .debug_frame only where it
   emits no .eh_frame), and fetching one (often tens of MB) just for
   symbol names would stall the stream.

   libdwfl's own debuginfod client is never used (it would ignore
   --no-debuginfod and keep one client per Dwfl); fetching goes through
   the module cache's finder (st_module_find_file).  Thread-safe as far
   as that finder is.  */
#ifndef ST_FIND_DEBUGINFO_H
#define ST_FIND_DEBUGINFO_H

#include <elfutils/libdwfl.h>

#include "model/module-cache.h"

/* Whether M's code was built without unwind tables: no .debug_frame of
   its own, and an .eh_frame covering less than half of its .text.  */
gboolean st_find_debuginfo_code_without_cfi (const StModule *m);

/* Whether M's call frame information may be only in a separate debug
   file, the case where debuginfod is asked for it: M has a build-id and
   its code was built without unwind tables.  */
gboolean st_find_debuginfo_wanted (const StModule *m);

/* When M is prepared: notes whether its code lacks CFI
   (M->code_without_cfi, for the file report), and returns
   st_find_debuginfo_wanted (M).  */
gboolean st_find_debuginfo_prepare (StModule *m);

/* Whether libdwfl may find a .debug_frame for MOD (of a module whose
   CFI is not wanted from debuginfod): FALSE only when neither its file
   nor the separate debug file the local search finds has a section of
   that name.  Then dwfl_module_dwarf_cfi would answer NULL, after
   loading (and inflating) the whole debug file: libc's and ld.so's
   debug files have no .debug_frame, only the .eh_frame their code
   keeps.  */
gboolean st_find_debuginfo_may_have_debug_frame (Dwfl_Module *mod);

/* USERDATA points to the module's StModule (may be NULL).  */
int st_find_debuginfo (Dwfl_Module *mod, void **userdata, const char *modname,
                       Dwarf_Addr base, const char *file_name,
                       const char *debuglink_file, GElf_Word debuglink_crc,
                       char **debuginfo_file_name);

#endif /* ST_FIND_DEBUGINFO_H */
