/* Finding a module's separate debug file without ever blocking: the
   find_debuginfo callback of our Dwfls.  */
#ifndef ST_SAFE_DEBUGINFO_H
#define ST_SAFE_DEBUGINFO_H

#include <elfutils/libdwfl.h>

/* Like dwfl_standard_find_debuginfo (the build-ID tree under
   /usr/lib/debug, then the debuglink next to the file, in its .debug/
   and under /usr/lib/debug), but a candidate is only read when it is a
   regular file (opened with O_NONBLOCK, checked with fstat: a FIFO or
   device named like a debug file cannot hang or flood us), and it must
   match the module's build ID or the debuglink's CRC.  No debuginfod.  */
int st_find_debuginfo_safely (Dwfl_Module *mod, void **userdata,
                              const char *modname, Dwarf_Addr base,
                              const char *file_name,
                              const char *debuglink_file,
                              GElf_Word debuglink_crc,
                              char **debuginfo_file_name);

/* Opens PATH for reading if it is a regular file of at least MIN_SIZE
   bytes, else returns -1; never blocks on FIFOs or devices.  */
int st_open_regular_file (const char *path, off_t min_size);

#endif /* ST_SAFE_DEBUGINFO_H */
