/* What became of every module's file: where it was found and how it was
   verified, or why none could be used and how many samples that cost.
   For -v, the summary after the run and the statistics file.  Main
   thread only.  Bounded: at most ST_FILE_REPORT_MAX modules are listed,
   the others only counted.  */
#ifndef ST_FILE_REPORT_H
#define ST_FILE_REPORT_H

#include <glib.h>
#include <stdint.h>

#include "model/file-resolver.h"

#define ST_FILE_REPORT_MAX 4096

typedef struct
{
  char *name;                 /* as recorded */
  char *path;                 /* the file used, or NULL */
  char *detail;               /* why unusable, or NULL */
  StFileSource source;
  StFileVerification verification;
  StFileProblem problem;      /* ST_FILE_OK: usable */
  gboolean has_build_id;      /* the stream recorded one */
  uint64_t samples;           /* unusable: samples that stopped in it */
} StFileEntry;

typedef struct
{
  uint64_t modules;           /* distinct files (modules) met */
  uint64_t verified_build_id;
  uint64_t verified_inode;
  uint64_t unverified;
  uint64_t unusable;
  uint64_t data_files;        /* not ELF, never sampled: mapped data
                                 (/etc/ld.so.cache), not counted as
                                 unusable */
  uint64_t unusable_samples;  /* samples that stopped in unusable files */
  uint64_t not_listed;        /* modules beyond ST_FILE_REPORT_MAX */
} StFileReportTotals;

typedef struct StFileReport StFileReport;

StFileReport *st_file_report_new (void);
void st_file_report_free (StFileReport *r);

/* A module became ready: KEY is its identity, listed once (what a later
   call says, after an eviction or a fetch, replaces what it said).  */
void st_file_report_module (StFileReport *r, const char *key,
                            const char *name, const char *path,
                            StFileSource source,
                            StFileVerification verification,
                            StFileProblem problem, const char *detail,
                            gboolean has_build_id);
/* A sample stopped at code of the unusable module KEY.  */
void st_file_report_cost (StFileReport *r, const char *key);
/* Why a module's file lacks call frame information.  */
typedef enum
{
  ST_NO_CFI_SECTIONS,         /* neither .eh_frame nor .debug_frame */
  ST_NO_CFI_CODE,             /* .eh_frame for little of its code (built
                                 without unwind tables), no .debug_frame
                                 and no debug file found */
  ST_NO_CFI_DEBUG_FILE,       /* the same, and its debug file has no
                                 .debug_frame either */
} StNoCfiReason;

/* A sample stopped in module KEY, whose file lacks call frame
   information for WHY: from now on KEY is listed as unusable for
   unwinding (ST_FILE_NO_UNWIND_DATA, or ST_FILE_DEBUG_WITHOUT_CFI).  */
void st_file_report_no_unwind_data (StFileReport *r, const char *key,
                                    StNoCfiReason why);

/* Whether E is mapped data (not ELF, never sampled: /etc/ld.so.cache),
   not a module the unwinder missed.  */
gboolean st_file_entry_is_data_file (const StFileEntry *e);

void st_file_report_totals (const StFileReport *r, StFileReportTotals *t);
/* The unusable files, most samples first (then by name); borrowed
   entries, free the array with g_ptr_array_unref.  */
GPtrArray *st_file_report_unusable (const StFileReport *r);
/* Every module listed, by name.  */
GPtrArray *st_file_report_all (const StFileReport *r);

#endif /* ST_FILE_REPORT_H */
