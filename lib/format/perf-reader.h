/* perf.data reader (seekable file mode and pipe mode) over a forward-only
   StInput.  */
#ifndef ST_PERF_READER_H
#define ST_PERF_READER_H

#include "format/damage.h"
#include "format/perf-types.h"
#include "format/reader.h"

typedef struct StPerfReader StPerfReader;

/* Reads the file or pipe header (and, in file mode, the attributes).
   Takes no ownership of IN.  */
StPerfReader *st_perf_reader_new (StInput *in, GError **error);
void st_perf_reader_free (StPerfReader *r);
/* 1 event, 0 clean end, -1 error (naming the record's offset).
   Records other than those with an StEvent kind of their own come as
   ST_EVENT_OTHER (raw = the record; for HEADER_TRACING_DATA and AUXTRACE
   the payload that follows the record is included).  HEADER_ATTR and
   HEADER_BUILD_ID records are also taken in (attribute, build-id table)
   before being returned as ST_EVENT_OTHER.  pid/tid are -1 when
   unknown.  Without a damage handler, a damaged record is an error; with
   one, it is reported and reading goes on (see damage.h).  */
int st_perf_reader_next (StPerfReader *r, StEvent *ev, GError **error);
void st_perf_reader_set_damage_handler (StPerfReader *r,
                                       const StDamageHandler *handler);
gboolean st_perf_reader_is_pipe (const StPerfReader *r);

/* For a perf writer that copies and patches the input's headers.  */

/* Attributes known so far: all of them in file mode after _new; in pipe
   mode, one more after each HEADER_ATTR record.  Owned by the reader.  */
guint st_perf_reader_n_attrs (const StPerfReader *r);
const StPerfAttr *st_perf_reader_attr (const StPerfReader *r, guint i);
/* The raw bytes of feature section BIT (0..255) of a file-mode input;
   NULL (and *SIZE 0) when absent or not read yet.  SIZE may be NULL.
   The sections lie behind the data: a seekable regular file has them
   from the start, another input (a pipe) once st_perf_reader_next has
   returned 0.  */
const uint8_t *st_perf_reader_feature (const StPerfReader *r, guint bit,
                                       uint64_t *size);
/* Whether the feature sections have been read (always TRUE in pipe
   mode, which has none).  */
gboolean st_perf_reader_features_known (const StPerfReader *r);
/* The attribute of record REC (SIZE bytes, as returned in an event's
   raw bytes): by its sample id, else the first attribute; NULL for a
   sample of an unknown id.  */
const StPerfAttr *st_perf_reader_record_attr (StPerfReader *r,
                                              const uint8_t *rec,
                                              size_t size);
/* The build-id of FILENAME from the BUILD_ID feature or HEADER_BUILD_ID
   records seen so far; NULL when unknown.  */
const uint8_t *st_perf_reader_build_id (const StPerfReader *r,
                                        const char *filename, guint *len);

#endif /* ST_PERF_READER_H */
