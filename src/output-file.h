/* An output path (-o, --chains) written so that nothing the user had is
   lost: the path is checked before anything is created; a regular file
   is written under a temporary name in its directory (O_EXCL, 0600) and
   renamed into place only when the run ends well, the file it replaces
   kept as PATH.old unless overwriting was asked for; a FIFO, a character
   device or a socket is written in place.  */
#ifndef ST_OUTPUT_FILE_H
#define ST_OUTPUT_FILE_H

#include <glib.h>

typedef struct StOutputFile StOutputFile;

/* Checks PATH (WHAT names it in messages: "output", "chains file")
   without creating anything: not a directory, its directory exists and
   is writable, an existing non-regular file is writable.  Returns NULL
   with ERROR set otherwise.  FORCE: replace an existing file without
   keeping PATH.old.  */
StOutputFile *st_output_file_check (const char *what, const char *path,
                                    gboolean force, GError **error);
void st_output_file_free (StOutputFile *f);

/* Whether the path is written in place (a FIFO, a character device, a
   socket): the caller opens it (a FIFO's open waits for a reader).  */
gboolean st_output_file_in_place (const StOutputFile *f);
/* Creates the temporary file (regular outputs only); its descriptor,
   or -1 with ERROR set.  The caller closes it.  */
int st_output_file_create (StOutputFile *f, GError **error);
/* Moves the written temporary file into place (an existing file becomes
   PATH.old unless forced); nothing for an in-place output.  */
gboolean st_output_file_commit (StOutputFile *f, GError **error);
/* Removes the temporary file, if any: the path keeps what it had.  */
void st_output_file_discard (StOutputFile *f);
/* Whether nothing is at the path now (a new file would not replace
   one).  */
gboolean st_output_file_is_new (const StOutputFile *f);
/* The path as given.  */
const char *st_output_file_path (const StOutputFile *f);
/* The path that was kept as the old file by the commit, or NULL.  */
const char *st_output_file_kept (const StOutputFile *f);

/* For a run that enters the sandbox, which renames and removes nothing:
   a process forked now (before the sandbox and before any thread) that
   carries out the commits and discards of FILES (N at most 256, NULLs
   allowed) from then on, and removes their temporary files if the run
   ends without a word (killed).  The files must have their temporary
   file already (st_output_file_create).  Free it after the files: it
   then exits.  NULL with ERROR set when it cannot be made.  */
typedef struct StOutputCommitter StOutputCommitter;
StOutputCommitter *st_output_committer_new (StOutputFile **files, guint n,
                                            GError **error);
/* Its process id (0 for NULL): the sandbox lets the run wait for it.  */
int st_output_committer_pid (const StOutputCommitter *c);
void st_output_committer_free (StOutputCommitter *c);

#endif /* ST_OUTPUT_FILE_H */
