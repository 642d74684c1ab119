/* The libdwfl glue shared by the libdwfl engine and the fast engine's
   rule cache: Dwfl callbacks that take a module's Elf from the module
   cache (and its debug file from find-debuginfo.c), a Dwfl of one module,
   and the module cache prepare hook that loads a module's debug file
   ahead of its first sample.  */
#ifndef ST_DWFL_OFFLINE_H
#define ST_DWFL_OFFLINE_H

#include <elfutils/libdwfl.h>

#include "model/module-cache.h"

/* libdwfl callbacks for a Dwfl whose modules carry their StModule as
   userdata: the Elf comes from the module cache.  */
extern const Dwfl_Callbacks st_dwfl_offline_callbacks;

/* A Dwfl of module M alone, at its ELF addresses (bias 0), with those
   callbacks (the same CFI and symbols as a process's Dwfl); *MOD is its
   module, NULL if libdwfl refused it.  Touches only M: usable while M is
   prepared on a worker thread.  */
Dwfl *st_dwfl_of_module (StModule *m, Dwfl_Module **mod);

/* A module cache prepare hook (the libdwfl engine's): when M's CFI may be
   only in a separate debug file (st_find_debuginfo_wanted), finds that
   file now, so that a download happens while M is prepared (on a worker
   thread with JIT-style priming) rather than when a sample first needs
   it.  USER_DATA unused.  */
void st_dwfl_offline_prepare (StModule *m, void *user_data);

#endif /* ST_DWFL_OFFLINE_H */
