/* Building perf.data streams byte by byte (file and pipe mode, every
   record kind the reader knows) and reading streams back with our perf
   reader, through a file or a pipe: shared by the reader and writer
   tests.  */
#ifndef ST_TEST_PERF_STREAM_H
#define ST_TEST_PERF_STREAM_H

#include <glib.h>
#include <stdint.h>

#include "damage-log.h"
#include "format/damage.h"
#include "format/perf-reader.h"
#include "format/perf-types.h"

#define ATTR_BYTES 128

typedef struct
{
  uint64_t sample_type;
  uint64_t read_format;
  uint64_t flags;
  uint64_t branch_sample_type;
  uint64_t regs_user;
  uint32_t stack_user;
} AttrSpec;

typedef struct
{
  uint32_t pid, tid;
  uint64_t time, id, stream_id;
  uint32_t cpu;
} Trailer;

typedef struct
{
  uint64_t id, ip, time;
  uint32_t pid, tid, cpu;
  uint32_t n_read;              /* group members for READ */
  const uint64_t *chain;
  uint32_t n_chain;
  uint32_t raw_size;            /* size + 4 must be 8-aligned */
  uint32_t n_branches;
  uint64_t abi;
  const uint64_t *regs;         /* popcount (regs_user) of them */
  uint64_t stack_size;
  uint64_t dyn_size;
} SampleSpec;

typedef struct
{
  const AttrSpec *attr;
  const uint64_t *ids;
  uint32_t n_ids;
} AttrEntry;

typedef struct
{
  int bit;
  GByteArray *bytes;
} Feature;

/* An event copied out of the reader's buffer.  */
typedef struct
{
  StEventKind kind;
  uint64_t offset;
  int32_t pid, tid, cpu;
  int64_t time;
  size_t raw_len;
  uint32_t raw_type;
  uint64_t u64s[64];       /* ips, or callchain then regs */
  uint32_t n_ips;          /* sample ips or stack callchain */
  uint32_t n_regs;
  uint32_t abi;
  uint64_t regs_mask;
  uint64_t stack_size;
  uint8_t stack_last;      /* last valid stack byte */
  uint64_t start, end, pgoff, inode;
  uint32_t prot;
  gboolean exec_known;
  char str[256];
  uint8_t build_id[20];
  guint build_id_len;
  gboolean exec;
  int32_t parent_pid, parent_tid;
  uint64_t lost;
} Ev;

/* What the reader made of a stream.  */
typedef struct
{
  GArray *evs;                  /* Ev */
  GPtrArray *raws;              /* GBytes: each event's raw bytes */
  GError *error;
  gboolean pipe_mode;
  guint n_attrs;
  GPtrArray *attrs;             /* GBytes: each attribute's raw bytes */
  GPtrArray *attr_ids;          /* GArray of uint64_t: its ids */
  uint64_t feature_size[ST_PERF_FEATURE_BITS];
  GBytes *features[ST_PERF_FEATURE_BITS];   /* NULL when absent */
} Result;

enum
{
  LAYOUT_ATTRS_BEHIND = 1 << 0,   /* ids and attrs after the data */
  LAYOUT_DATA_SIZE_0 = 1 << 1,    /* as if perf was killed */
  LAYOUT_GAP = 1 << 2,            /* junk between the attrs and the data */
};

/* Little-endian building blocks; strings are NUL-terminated and padded
   to 8.  */
void put (GByteArray *b, const void *p, size_t n);
void put_u16 (GByteArray *b, uint16_t v);
void put_u32 (GByteArray *b, uint32_t v);
void put_u64 (GByteArray *b, uint64_t v);
void put_zeros (GByteArray *b, size_t n);
void pad8 (GByteArray *b);
void put_string (GByteArray *b, const char *s);
void set_u64 (GByteArray *b, guint at, uint64_t v);

/* A record: begin_record returns its start, end_record sets its size.  */
guint begin_record (GByteArray *b, uint32_t type, uint16_t misc);
void end_record (GByteArray *b, guint start);

/* Records of attribute A (the sample_id trailer T as A says).  */
void put_attr (GByteArray *b, const AttrSpec *a);
/* The same as SIZE bytes (64 and up), as perf versions with that
   perf_event_attr write it: fields past SIZE cut off, bytes past our
   128 filled with 0xa0 + their offset.  */
void put_attr_sized (GByteArray *b, const AttrSpec *a, uint32_t size);
void put_trailer (GByteArray *b, const AttrSpec *a, const Trailer *t);
void put_sample (GByteArray *b, const AttrSpec *a, const SampleSpec *s);
void put_mmap (GByteArray *b, const AttrSpec *a, const Trailer *t,
               uint16_t misc, uint64_t addr, uint64_t len, uint64_t pgoff,
               const char *name);
/* BID_BYTE >= 0: a build-id of 20 such bytes, size BID_LEN; else the
   inode.  */
void put_mmap2 (GByteArray *b, const AttrSpec *a, const Trailer *t,
                uint64_t addr, uint64_t len, uint64_t pgoff, uint64_t inode,
                int bid_byte, uint8_t bid_len, uint32_t prot,
                const char *name);
void put_comm (GByteArray *b, const AttrSpec *a, const Trailer *t,
               gboolean exec, const char *comm);
void put_fork_exit (GByteArray *b, const AttrSpec *a, const Trailer *t,
                    uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid,
                    uint32_t ptid, uint64_t time);
void put_lost (GByteArray *b, const AttrSpec *a, const Trailer *t,
               uint64_t n);
/* A record of TYPE with LEN body bytes (need not be a multiple of 8).  */
void put_other (GByteArray *b, uint32_t type, size_t len);
/* A HEADER_BUILD_ID entry of 20 bytes BYTE; SIZE < 0: no size byte.  */
void put_build_id_entry (GByteArray *b, int byte, int size,
                         const char *name);

/* A file-mode perf.data: header, ids, attrs, data, feature table and
   sections (like perf writes it, or as the LAYOUT_* FLAGS say).  */
GByteArray *make_file (const AttrEntry *attrs, int n_attrs,
                       const GByteArray *data, const Feature *feats,
                       int n_feats, guint flags);
/* A pipe-mode stream: header, HEADER_ATTR records, then DATA.  */
GByteArray *make_pipe (const AttrEntry *attrs, int n_attrs,
                       const GByteArray *data);

/* Reads BYTES with the perf reader through a pipe (PIPE_INPUT) or a
   regular file; checks every event's raw bytes against BYTES.  */
Result *read_bytes (const GByteArray *bytes, gboolean pipe_input);

/* When set, read_bytes recovers from damage and logs it here.  */
extern DamageLog *recovery;
void result_free (Result *res);
const Ev *ev_at (const Result *res, guint i);
/* How many of the events are records of TYPE.  */
guint count_type (const Result *res, uint32_t type);
/* Same events apart from build-ids (which may come from the features).  */
void assert_same_events (const Result *a, const Result *b,
                         gboolean build_ids);
void assert_error (const Result *res, int code, const char *prefix,
                   const char *part);
/* Whether TYPE is a record of a pipe's header (attributes, features,
   build-ids, event types).  */
gboolean is_pipe_header_record (uint32_t type);
/* Index of the first record that is not a pipe-mode header record.  */
guint result_first_data (const Result *res);
/* The u64 at OFF of attribute A.  */
uint64_t result_attr_u64 (const Result *res, guint a, size_t off);

#endif /* ST_TEST_PERF_STREAM_H */
