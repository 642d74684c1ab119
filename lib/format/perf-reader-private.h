/* What the three parts of the perf.data reader share: the reader's
   state, its limits, and the calls between the parts.  perf-reader.c
   frames the records (and resynchronizes, and hands compressed records
   to perf-decompress.c); perf-reader-header.c reads the file header,
   the attributes and their ids, the feature sections and the build-id
   table; perf-reader-decode.c decodes a record into an StEvent.
   perf-reader.h is the API.  */
#ifndef ST_PERF_READER_PRIVATE_H
#define ST_PERF_READER_PRIVATE_H

#include <glib.h>
#include <stdint.h>

#include "format/damage.h"
#include "format/perf-decompress.h"
#include "format/perf-reader.h"
#include "format/perf-types.h"

#define UNTIL_EOF G_MAXUINT64

/* Sanity limits against absurd headers (never reached by real files);
   perf-reader-header.c has MAX_HEAD_BYTES.  */
#define MAX_ATTRS      65536
#define MAX_PAYLOAD    (256ull << 20)    /* tracing/auxtrace data */

struct StPerfReader
{
  StInput *in;
  gboolean pipe;
  gboolean seekable;          /* regular file we may pread */
  StPerfFileHeader header;    /* file mode */
  uint64_t data_end;          /* offset past the data section, or UNTIL_EOF */
  size_t pending;             /* last record's length, consumed next call */
  gboolean unaligned;         /* a record size not a multiple of 8 seen */
  StPerfDecompress *decomp;   /* records of perf record -z, once seen */
  size_t decomp_pending;      /* the same for a decompressed record */
  GPtrArray *attrs;           /* StPerfAttr * */
  GHashTable *by_id;          /* uint64_t * (into attr ids) -> StPerfAttr * */
  GHashTable *cpu_by_id;      /* uint64_t * -> CPU + 1, from ID_INDEX */
  GHashTable *build_ids;      /* file name -> BuildId * */
  uint8_t *features[ST_PERF_FEATURE_BITS];
  uint64_t feature_size[ST_PERF_FEATURE_BITS];
  GByteArray *head;           /* file bytes [0, len) while reading headers */
  uint8_t *scratch;           /* aligned copy of a misaligned record */
  size_t scratch_cap;
  gboolean features_known;    /* the feature sections have been read */
  StDamageHandler damage;     /* none: the first damage is an error */
  GError *feature_damage;     /* bad feature sections, reported by next() */
  uint64_t sampled_ip;        /* the chain of a sample whose chain is empty */
};

/* perf-reader-header.c */

/* Reads the file-mode header P (SIZE bytes, still in the input), the
   attributes, their ids and (from a regular file) the feature sections,
   and skips to the data section.  FALSE with ERROR set.  */
gboolean st_perf_reader_read_file_header (StPerfReader *r, const uint8_t *p,
                                          uint64_t size, GError **error);
/* The end of the data section of a file-mode input that is not
   seekable: its feature table and sections, read forward.  0, or -1
   with ERROR set.  */
int st_perf_reader_read_tail_features (StPerfReader *r, GError **error);
/* Frees an StPerfAttr (the attrs array's free function).  */
void st_perf_reader_attr_free (gpointer data);
/* Adds the attribute RAW (SIZE bytes) with its N_IDS ids at IDS.  */
void st_perf_reader_add_attr (StPerfReader *r, const uint8_t *raw,
                              size_t size, const uint8_t *ids, size_t n_ids);
/* Adds a build-id table entry (LEN bytes); NULL, or why it is bad.  */
const char *st_perf_reader_add_build_id (StPerfReader *r,
                                         const uint8_t *entry, size_t len);
/* The decompressor of compressed records, made on first use with the
   COMPRESSED feature's settings.  */
StPerfDecompress *st_perf_reader_decompressor (StPerfReader *r);
/* Sets *LOCAL, unless a read error is already there, to "the input
   ended at OFFSET inside WHAT".  */
void st_perf_reader_input_ended (GError **local, uint64_t offset,
                                 size_t avail, uint64_t need,
                                 const char *what);

/* perf-reader-decode.c */

/* Decodes the whole record P (SIZE bytes, TOTAL with its payload) of
   TYPE at OFF into EV: 1, or -1 with ERROR set.  */
int st_perf_reader_decode_record (StPerfReader *r, const uint8_t *p,
                                  uint32_t type, size_t size, uint64_t off,
                                  uint64_t total, StEvent *ev,
                                  GError **error);

#endif /* ST_PERF_READER_PRIVATE_H */
