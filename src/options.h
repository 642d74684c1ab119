/* Command-line options of stacktrace.  */
#ifndef ST_OPTIONS_H
#define ST_OPTIONS_H

#include <glib.h>

#include "model/event.h"
#include "pipeline.h"
#include "stats-export.h"

typedef struct
{
  char *input;            /* NULL: stdin (or perf.data: see main) */
  char *output;           /* NULL: stdout */
  int input_fd;           /* -1: unset */
  int output_fd;          /* -1: unset */
  StInputReadFunc input_read;  /* set: input_fd is only polled, the */
  void *input_read_data;       /* input read through it (live) */
  StFormat format;
  StFormat output_format; /* AUTO: by the -o name, else the input's */
  StMode mode;
  StEngine engine;
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
  StPrimingMode priming;
  guint64 priming_cap;    /* 0: the default */
  gboolean sandbox;       /* --sandbox: also when not root */
  gboolean no_sandbox;    /* --no-sandbox: never (debugging) */
} StOptions;

/* Parses ARGV.  Returns FALSE with ERROR set on a usage error; exits for
   --help and --version.  */
gboolean st_options_parse (StOptions *opts, int *argc, char ***argv,
                           GError **error);
void st_options_clear (StOptions *opts);

#endif /* ST_OPTIONS_H */
