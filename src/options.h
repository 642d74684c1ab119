/* Command-line options of stacktrace.  */
#ifndef ST_OPTIONS_H
#define ST_OPTIONS_H

#include <glib.h>

#include <stacktrace-1/stacktrace.h>

#include "stats-file.h"

/* -m: what is written.  */
typedef enum
{
  ST_RUN_NONE,            /* read and check, write nothing */
  ST_RUN_PASSTHRU,        /* copy or convert, raw stacks kept */
  ST_RUN_UNWIND,          /* raw stacks unwound (-m naive) */
} StRunMode;

typedef struct
{
  char *input;            /* NULL: stdin (or perf.data: see main) */
  char *output;           /* NULL: stdout */
  int input_fd;           /* -1: unset */
  int output_fd;          /* -1: unset */
  StReadFunc input_read;  /* set: input_fd is only polled, the */
  void *input_read_data;  /* input read through it (live) */
  StFileFormat format;
  StFileFormat output_format; /* AUTO: by the -o name, else the input's */
  StRunMode mode;
  StUnwindEngine engine;
  char *symfs;
  char *buildid_dir;
  gboolean no_host_files;
  char *chains;
  gboolean force;         /* replace outputs without keeping PATH.old */
  gboolean summary;
  gboolean no_demangle;
  gboolean verbose;
  gboolean debug;
  gboolean quiet;
  gboolean no_stitch;
  gint64 truncate_stack;
  gboolean no_debuginfod;
  gboolean no_counters;
  int counters_interval;  /* ms; 0: the default */
  char *stats_file;
  StStatsFormat stats_format;
  gboolean priming_auto;  /* no --priming: by the kind of input */
  StPrimePolicy priming;
  guint64 priming_cap;    /* 0: the default */
  int jobs;               /* --jobs: unwinding threads (1 by default; 0:
                             one per processor, st_stream_set_jobs) */
  gboolean sandbox;       /* --sandbox: also when not root */
  gboolean no_sandbox;    /* --no-sandbox: never (debugging) */
} StOptions;

/* Parses ARGV.  Returns FALSE with ERROR set on a usage error; exits for
   --help and --version.  */
gboolean st_options_parse (StOptions *opts, int *argc, char ***argv,
                           GError **error);
void st_options_clear (StOptions *opts);

#endif /* ST_OPTIONS_H */
