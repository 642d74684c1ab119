/* The records inside PERF_RECORD_COMPRESSED and COMPRESSED2 (perf
   record -z): one zstd stream over the whole recording, cut into
   compressed records at arbitrary points, so a decompressed record may
   continue in the next compressed record.  Decompressed bytes are held
   here until the reader has taken whole records from them.  */
#ifndef ST_PERF_DECOMPRESS_H
#define ST_PERF_DECOMPRESS_H

#include <glib.h>
#include <stdint.h>

typedef struct StPerfDecompress StPerfDecompress;

/* Without a HEADER_COMPRESSED feature: the most one compressed record
   may decompress to (perf's data mmap is smaller unless set with -m).  */
#define ST_PERF_DECOMPRESS_DEFAULT_LIMIT (64ull << 20)
/* The most any compressed record may decompress to, whatever the
   feature says.  */
#define ST_PERF_DECOMPRESS_MAX_LIMIT     (256ull << 20)

StPerfDecompress *st_perf_decompress_new (void);
void st_perf_decompress_free (StPerfDecompress *d);

/* The HEADER_COMPRESSED feature (u32 version, type, level, ratio,
   mmap_len; SIZE bytes at DATA): mmap_len bounds what one compressed
   record decompresses to.  Returns why it is unusable, or NULL.  */
const char *st_perf_decompress_set_feature (StPerfDecompress *d,
                                            const uint8_t *data,
                                            size_t size);
/* The most one compressed record may decompress to.  */
uint64_t st_perf_decompress_limit (const StPerfDecompress *d);

/* Decompresses the data of the COMPRESSED or COMPRESSED2 record REC
   (SIZE bytes, header included) at input offset OFFSET and appends what
   comes out to the held bytes.  Returns NULL, or why the record could
   not be used (a COMPRESSED2 data size past its end, corrupt zstd data,
   more than the limit when decompressed, a stream broken by an earlier
   record): then the output of this record and the incomplete record held
   before it are dropped (*DROPPED says how many held bytes that was),
   and the zstd stream is reset, so that only a new zstd frame decodes
   again.  Free the message with g_free.  */
char *st_perf_decompress_record (StPerfDecompress *d, uint64_t offset,
                                 const uint8_t *rec, size_t size,
                                 uint64_t *dropped);

/* The decompressed bytes not taken yet (*LEN of them), and the input
   offset of the compressed record the first of them came from.  The
   pointer stays valid until the next feed.  */
const uint8_t *st_perf_decompress_held (const StPerfDecompress *d,
                                        size_t *len, uint64_t *offset);
/* Takes N held bytes.  */
void st_perf_decompress_consume (StPerfDecompress *d, size_t n);
/* After a bad record at the start of the held bytes: drops them up to
   the next position, in steps of 8, where a kernel record (what perf
   compresses) plausibly starts and is followed by another one or by the
   end of what is held; all of them when there is none.  Returns how
   many bytes were dropped.  */
size_t st_perf_decompress_skip_to_record (StPerfDecompress *d);

#endif /* ST_PERF_DECOMPRESS_H */
