/* perf.data writer on a buffered StOutput: the wire level only (header,
   attributes, records, feature sections).  What goes in them is decided
   by perf-output.c and perf-from-capture.c.

   File mode (perf record -o FILE): the 104-byte header, the sample ids
   and attribute section, the data section, then the feature sections; the
   header is completed by st_perf_writer_finish.  The attributes go before
   the data when they are known before the first record (like perf), else
   after the feature sections.

   Pipe mode (perf record -o -): a 16-byte header, then records only;
   attributes and features travel as HEADER_ATTR, HEADER_FEATURE,
   HEADER_BUILD_ID and HEADER_TRACING_DATA records.  */
#ifndef ST_PERF_WRITER_H
#define ST_PERF_WRITER_H

#include <glib.h>

#include "format/output.h"
#include "format/perf-sample.h"
#include "format/perf-types.h"

typedef struct StPerfWriter StPerfWriter;

/* Whether OUT can take a file-mode perf.data: a regular file, not opened
   with O_APPEND, written from its start (perf.data offsets are absolute
   and the header is rewritten at the end).  */
gboolean st_perf_writer_file_mode_possible (StOutput *out);

/* FILE_MODE needs st_perf_writer_file_mode_possible (OUT).  Writes the
   pipe header at once; the file header's room.  Takes no ownership of
   OUT.  */
StPerfWriter *st_perf_writer_new (StOutput *out, gboolean file_mode);
void st_perf_writer_free (StPerfWriter *w);
gboolean st_perf_writer_file_mode (const StPerfWriter *w);

/* An event attribute: ATTR_SIZE bytes of perf_event_attr and its sample
   ids.  Attributes smaller than perf 6.1's (128 bytes) are zero-extended
   to it: perf 6.1 expects its own size in HEADER_ATTR records.  Pipe
   mode: a HEADER_ATTR record now.  */
void st_perf_writer_attr (StPerfWriter *w, const uint8_t *attr,
                          size_t attr_size, const uint64_t *ids,
                          size_t n_ids);

/* Feature section BIT (replacing an earlier one).  File mode: written by
   st_perf_writer_finish.  Pipe mode: sent now as perf sends it in pipe
   mode; returns FALSE (nothing written) for the features perf does not
   carry in pipe mode (BRANCH_STACK, AUXTRACE, STAT, CACHE, DIR_FORMAT,
   those perf 6.1 does not know) or that do not fit a record.  */
gboolean st_perf_writer_feature (StPerfWriter *w, guint bit,
                                 const uint8_t *data, size_t size);
/* One BUILD_ID entry (HEADER_BUILD_ID layout; its type is ignored), LEN
   bytes.  File mode: appended to the BUILD_ID feature.  Pipe mode: a
   HEADER_BUILD_ID record.  */
void st_perf_writer_build_id (StPerfWriter *w, const uint8_t *entry,
                              size_t len);
/* Makes that entry: the build-id of FILENAME in the host machine (pid -1,
   as perf writes them), MISC_CPUMODE being ST_PERF_MISC_USER or
   ST_PERF_MISC_KERNEL.  */
void st_perf_writer_make_build_id (StPerfWriter *w, uint16_t misc_cpumode,
                                   const uint8_t *build_id, guint len,
                                   const char *filename);

/* The file offset (pipe mode: stream offset) of the next record.  */
uint64_t st_perf_writer_offset (StPerfWriter *w);

/* A record as given: LEN bytes, header included, with the payload of
   HEADER_TRACING_DATA and AUXTRACE records.  */
void st_perf_writer_record (StPerfWriter *w, const void *rec, size_t len);

/* --- synthesized records ------------------------------------------------ */

/* The sample_id fields of non-sample records (sample_id_all).  */
typedef struct
{
  uint32_t pid;
  uint32_t tid;
  uint64_t time;
  uint64_t id;
  uint32_t cpu;
} StPerfSampleId;

/* The sample_type whose TID, TIME, ID, STREAM_ID, CPU and IDENTIFIER
   bits make the sample_id trailer of the records below; 0 for none
   (sample_id_all unset).  */
void st_perf_writer_set_trailer (StPerfWriter *w, uint64_t sample_type);

/* MMAP2 with BUILD_ID (LEN bytes) when given, else the inode.  */
void st_perf_writer_mmap2 (StPerfWriter *w, uint16_t misc_cpumode,
                           uint32_t pid, uint32_t tid, uint64_t addr,
                           uint64_t len, uint64_t pgoff, uint64_t inode,
                           const uint8_t *build_id, guint build_id_len,
                           uint32_t prot, uint32_t flags,
                           const char *filename, const StPerfSampleId *sid);
void st_perf_writer_comm (StPerfWriter *w, gboolean exec, uint32_t pid,
                          uint32_t tid, const char *comm,
                          const StPerfSampleId *sid);
/* FORK or EXIT.  */
void st_perf_writer_task (StPerfWriter *w, uint32_t type, uint32_t pid,
                          uint32_t ppid, uint32_t tid, uint32_t ptid,
                          uint64_t time, const StPerfSampleId *sid);
void st_perf_writer_lost (StPerfWriter *w, uint64_t id, uint64_t lost,
                          const StPerfSampleId *sid);
void st_perf_writer_finished_round (StPerfWriter *w);

/* The fields of a synthesized sample.  */
typedef struct
{
  uint64_t id;
  uint64_t ip;
  uint32_t pid;
  uint32_t tid;
  uint64_t time;
  uint32_t cpu;
  uint64_t period;
  const uint64_t *ips;          /* CALLCHAIN */
  uint32_t n_ips;
  uint64_t abi;                 /* REGS_USER: 0, or N_REGS registers */
  const uint64_t *regs;
  uint32_t n_regs;
  const uint8_t *stack;         /* STACK_USER: STACK_SIZE valid bytes */
  uint64_t stack_size;
} StPerfSampleFields;

/* A sample of SAMPLE_TYPE, which may hold IDENTIFIER, IP, TID, TIME, ID,
   CPU, PERIOD, CALLCHAIN, REGS_USER and STACK_USER only.  A record
   larger than 64 KiB loses the root end of its stack copy, then of its
   callchain; returns FALSE then.  */
gboolean st_perf_writer_sample (StPerfWriter *w, uint64_t sample_type,
                                uint16_t misc, const StPerfSampleFields *f);

/* The sample record REC (SIZE bytes) with its fields at SPANS (from
   st_perf_sample_locate), re-serialized without REGS_USER and
   STACK_USER and with CALLCHAIN set to CHAIN (N_CHAIN entries), or to
   its old value when CHAIN is NULL (no entries if it had none).  Returns
   FALSE when CHAIN was cut at the root end to fit a record.  */
gboolean st_perf_writer_unwound_sample (StPerfWriter *w, const uint8_t *rec,
                                        size_t size,
                                        const StPerfSampleSpans *spans,
                                        const uint64_t *chain,
                                        size_t n_chain);

/* File mode: the data section's end, the feature sections, the
   attributes if they are not in front, the header.  Both modes: flushes.
   FALSE with ERROR set if any write failed.  */
gboolean st_perf_writer_finish (StPerfWriter *w, GError **error);

#endif /* ST_PERF_WRITER_H */
