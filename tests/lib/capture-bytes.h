/* Building Sysprof captures byte by byte, and reading them back: shared
   by the capture reader, writer and output tests and the harness
   programs.  Every field is put at the offset the format facts give
   (Sysprof's libsysprof-capture 3.46 to 48, plus STACK_USER, type 18),
   little-endian, without the structs of lib/format/capture-types.h or
   the capture writer, so that the tests check the library against an
   independent account of the format.  Frames are padded with zeros to
   8 bytes.  */
#ifndef ST_TEST_CAPTURE_BYTES_H
#define ST_TEST_CAPTURE_BYTES_H

#include <glib.h>
#include <stdint.h>

#include "format/capture-reader.h"
#include "model/event.h"

/* The format's numbers.  */
#define CAPTURE_MAGIC 0xFDCA975Eu
#define CAPTURE_HEADER_BYTES 256
#define CAPTURE_FRAME_HEADER_BYTES 24
/* Where the file header keeps its times.  */
#define CAPTURE_HEADER_CAPTURE_TIME_AT 8
#define CAPTURE_HEADER_TIME_AT 72
#define CAPTURE_HEADER_END_TIME_AT 80

enum
{
  CAPTURE_TIMESTAMP = 1,
  CAPTURE_SAMPLE = 2,
  CAPTURE_MAP = 3,
  CAPTURE_PROCESS = 4,
  CAPTURE_FORK = 5,
  CAPTURE_EXIT = 6,
  CAPTURE_JITMAP = 7,
  CAPTURE_CTRDEF = 8,
  CAPTURE_CTRSET = 9,
  CAPTURE_MARK = 10,
  CAPTURE_METADATA = 11,
  CAPTURE_LOG = 12,
  CAPTURE_FILE_CHUNK = 13,
  CAPTURE_OVERLAY = 15,
  CAPTURE_STACK_USER = 18,
};

/* The capture time the builder writes into file headers.  */
#define CAPTURE_TEST_TIME "2024-01-02T03:04:05Z"

/* Little-endian building blocks.  */
void capture_put (GByteArray *b, const void *p, size_t n);
void capture_put_u16 (GByteArray *b, uint16_t v);
void capture_put_u32 (GByteArray *b, uint32_t v);
void capture_put_u64 (GByteArray *b, uint64_t v);
void capture_put_zeros (GByteArray *b, size_t n);
/* S in a field of SIZE bytes, cut and NUL-padded.  */
void capture_put_fixed_string (GByteArray *b, const char *s, size_t size);

/* The 256-byte file header: magic, version 1, little-endian,
   CAPTURE_TEST_TIME, TIME and END_TIME.  */
void capture_put_file_header (GByteArray *b, int64_t time, int64_t end_time);
/* The same with another MAGIC, VERSION and byte-order byte (bit 0 set:
   little-endian), for headers a reader must refuse.  */
void capture_put_file_header_as (GByteArray *b, uint32_t magic,
                                 uint8_t version, uint8_t little_endian,
                                 int64_t time, int64_t end_time);

/* A frame header that claims LEN bytes, whatever follows (for damaged
   frames).  */
void capture_put_frame_header (GByteArray *b, uint16_t len, int16_t cpu,
                               int32_t pid, int64_t time, uint8_t type);
/* A frame built piece by piece: begin returns its start, end pads it
   with zeros to 8 and sets its length.  */
guint capture_begin_frame (GByteArray *b, uint8_t type, int16_t cpu,
                           int32_t pid, int64_t time);
void capture_end_frame (GByteArray *b, guint start);

/* Each frame type.  */
void capture_put_timestamp (GByteArray *b, int16_t cpu, int32_t pid,
                            int64_t time);
/* A frame of TYPE whose body is N_ZEROS zero bytes.  */
void capture_put_zero_frame (GByteArray *b, uint8_t type, int16_t cpu,
                             int32_t pid, int64_t time, size_t n_zeros);
void capture_put_sample (GByteArray *b, int16_t cpu, int32_t pid,
                         int32_t tid, int64_t time, const uint64_t *addrs,
                         uint16_t n_addrs);
/* The file name, then "@" and the build-id in lower-case hex when
   BUILD_ID_LEN > 0, each NUL-terminated.  */
void capture_put_map (GByteArray *b, int16_t cpu, int32_t pid, int64_t time,
                      uint64_t start, uint64_t end, uint64_t offset,
                      uint64_t inode, const char *filename,
                      const uint8_t *build_id, size_t build_id_len);
void capture_put_process (GByteArray *b, int16_t cpu, int32_t pid,
                          int64_t time, const char *cmdline);
void capture_put_fork (GByteArray *b, int16_t cpu, int32_t pid, int64_t time,
                       int32_t child_pid);
void capture_put_exit (GByteArray *b, int16_t cpu, int32_t pid,
                       int64_t time);
/* DOMAIN cut to 31 characters.  */
void capture_put_log (GByteArray *b, int16_t cpu, int32_t pid, int64_t time,
                      uint16_t severity, const char *domain,
                      const char *message);
void capture_put_mark (GByteArray *b, int16_t cpu, int32_t pid, int64_t time,
                       int64_t duration, const char *group,
                       const char *name, const char *message);
/* LEN bytes of DATA (at most 65535 - 284 - 7) of the file PATH.  */
void capture_put_file_chunk (GByteArray *b, int16_t cpu, int32_t pid,
                             int64_t time, gboolean is_last,
                             const char *path, const void *data,
                             size_t len);
void capture_put_overlay (GByteArray *b, int16_t cpu, int32_t pid,
                          int64_t time, uint8_t layer, const char *src,
                          const char *dst);
/* One counter of a CTRDEF frame.  */
typedef struct
{
  const char *category, *name, *description;
  uint32_t id;
  uint8_t type;           /* 0 int64, 1 double */
  int64_t value;          /* the bits of either */
} CaptureCounter;
void capture_put_ctrdef (GByteArray *b, int16_t cpu, int32_t pid,
                         int64_t time, const CaptureCounter *counters,
                         guint n);
/* N values of counters IDS, in groups of 8 (unused slots zero).  */
void capture_put_ctrset (GByteArray *b, int16_t cpu, int32_t pid,
                         int64_t time, const uint32_t *ids,
                         const int64_t *values, guint n);
/* SIZE bytes of STACK, then N_REGS registers of perf ABI ABI.  */
void capture_put_stack_user (GByteArray *b, int16_t cpu, int32_t pid,
                             int32_t tid, int64_t time, const void *stack,
                             uint64_t size, uint32_t abi,
                             const uint64_t *regs, uint32_t n_regs);

/* A small whole capture: the file header (time 1000, end time 0), then
   N FORK frames on CPU 1, frame i at time 2000 + i with FIRST_PARENT +
   i * PARENT_STEP forking 200 + i.  */
GByteArray *capture_with_forks (guint n, int32_t first_parent,
                                int32_t parent_step);

/* An event of KIND as the perf reader makes them, with these header
   fields, all else zero.  */
StEvent capture_perf_event (StEventKind kind, int32_t pid, int32_t tid,
                            int cpu, int64_t time);
/* A raw-stack event as the perf reader makes them, for the capture
   writer and output: N_REGS from MASK, no stack when SIZE is 0.  */
StEvent capture_stack_event (int32_t pid, int32_t tid, int cpu, int64_t time,
                             uint32_t abi, uint64_t mask,
                             const uint64_t *regs, const uint8_t *stack,
                             uint64_t size);

/* Reading back with the library's capture reader.  */

/* The next event: a capture event with raw bytes 8-aligned in address
   and length.  */
void capture_next_ok (StCaptureReader *r, StEvent *ev);
/* The end, cleanly.  */
void capture_next_eof (StCaptureReader *r);
/* The file header at P: magic, version 1, little-endian, an ISO-8601
   capture time, TIME and END_TIME.  */
void capture_check_file_header (const uint8_t *p, int64_t time,
                                int64_t end_time);
/* A STACK_USER event of these fields with SIZE bytes equal to STACK and
   no callchain.  */
void capture_check_stack (const StEvent *ev, int32_t pid, int32_t tid,
                          int cpu, int64_t time, uint32_t abi, uint64_t mask,
                          const uint8_t *stack, uint64_t size);
/* A LOG frame (EV's raw bytes) of SEVERITY, DOMAIN and MESSAGE.  */
void capture_check_log (const StEvent *ev, uint16_t severity,
                        const char *domain, const char *message);
/* Whether MESSAGE says "offset OFFSET".  */
gboolean capture_says_offset (const char *message, uint64_t offset);

#endif /* ST_TEST_CAPTURE_BYTES_H */
