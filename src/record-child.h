/* The command stacktrace --record starts: forked at once and held on a
   pipe until the perf events that follow it are open (their pid is the
   child's), then let exec (the kernel enables the events at the exec),
   waited for, and ended with SIGTERM if the recording stops first, as
   perf does.  It keeps stacktrace's standard input, output and error
   and its process group.  */
#ifndef ST_RECORD_CHILD_H
#define ST_RECORD_CHILD_H

#include <glib.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct StRecordChild StRecordChild;

/* Forks the child that will run COMMAND (copied); NULL with ERROR set.  */
StRecordChild *st_record_child_start (char **command, GError **error);
pid_t st_record_child_pid (const StRecordChild *c);

/* Lets it exec and waits for the exec; FALSE with ERROR set when the
   command could not be run.  */
gboolean st_record_child_release (StRecordChild *c, GError **error);

/* Whether it has exited (reaped now if so); without blocking.  Called
   from the ring reader's thread, one caller at a time.  */
gboolean st_record_child_exited (StRecordChild *c);

/* Ends it if it still runs (never released: it exits; else SIGTERM)
   and waits for it.  Only once no other thread asks _exited.  */
void st_record_child_end (StRecordChild *c);

/* A line to OUT when its end was not a clean one: an exit status other
   than 0, a signal other than our SIGTERM.  After _end.  */
void st_record_child_report (const StRecordChild *c, FILE *out);

const char *st_record_child_name (const StRecordChild *c);

/* Ends it first.  */
void st_record_child_free (StRecordChild *c);

#endif /* ST_RECORD_CHILD_H */
