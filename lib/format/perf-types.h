/* perf.data format: wire layout and constants, in one place, checked by
   the compiler.  Little-endian (host-endian) files only.  */
#ifndef ST_PERF_TYPES_H
#define ST_PERF_TYPES_H

#include <assert.h>
#include <stdint.h>
#include <string.h>

/* N rounded up to a multiple of 8: records and their variable fields
   (names, stack copies) keep 8-byte alignment.  */
#define ST_PERF_ALIGN8(n) (((n) + 7) & ~(uint64_t) 7)

/* Loads from record bytes, which need not be aligned.  */
static inline uint64_t
st_perf_get_u64 (const uint8_t *p)
{
  uint64_t v;
  memcpy (&v, p, sizeof v);
  return v;
}

static inline uint32_t
st_perf_get_u32 (const uint8_t *p)
{
  uint32_t v;
  memcpy (&v, p, sizeof v);
  return v;
}

#define ST_PERF_MAGIC             "PERFILE2"
#define ST_PERF_MAGIC_SWAPPED     "2ELIFREP"
#define ST_PERF_FILE_HEADER_SIZE  104
#define ST_PERF_FILE_HEADER_V0    72    /* older files: no feature bitmap */
#define ST_PERF_PIPE_HEADER_SIZE  16
#define ST_PERF_EVENT_HEADER_SIZE 8
#define ST_PERF_FEATURE_BITS      256

typedef struct __attribute__ ((packed))
{
  uint64_t offset;
  uint64_t size;
} StPerfSection;
static_assert (sizeof (StPerfSection) == 16, "section");

typedef struct __attribute__ ((packed))
{
  char magic[8];
  uint64_t size;                /* 104 */
  uint64_t attr_size;           /* sizeof (perf_event_attr) + 16 */
  StPerfSection attrs;
  StPerfSection data;
  StPerfSection event_types;    /* obsolete */
  uint64_t adds_features[4];
} StPerfFileHeader;
static_assert (sizeof (StPerfFileHeader) == 104, "file header");

typedef struct __attribute__ ((packed))
{
  char magic[8];
  uint64_t size;                /* 16 */
} StPerfPipeHeader;
static_assert (sizeof (StPerfPipeHeader) == 16, "pipe header");

typedef struct __attribute__ ((packed))
{
  uint32_t type;
  uint16_t misc;
  uint16_t size;                /* whole record, header included */
} StPerfEventHeader;
static_assert (sizeof (StPerfEventHeader) == 8, "event header");

/* One entry of PERF_RECORD_ID_INDEX (after the header and a u64 count):
   which CPU (and thread) an event's sample id belongs to, so a sample
   without PERF_SAMPLE_CPU still has its CPU.  */
typedef struct __attribute__ ((packed))
{
  uint64_t id;
  uint64_t idx;
  uint64_t cpu;
  uint64_t tid;
} StPerfIdIndexEntry;
static_assert (sizeof (StPerfIdIndexEntry) == 32, "id index entry");

typedef enum
{
  ST_PERF_RECORD_MMAP               = 1,
  ST_PERF_RECORD_LOST               = 2,
  ST_PERF_RECORD_COMM               = 3,
  ST_PERF_RECORD_EXIT               = 4,
  ST_PERF_RECORD_THROTTLE           = 5,
  ST_PERF_RECORD_UNTHROTTLE         = 6,
  ST_PERF_RECORD_FORK               = 7,
  ST_PERF_RECORD_READ               = 8,
  ST_PERF_RECORD_SAMPLE             = 9,
  ST_PERF_RECORD_MMAP2              = 10,
  ST_PERF_RECORD_AUX                = 11,
  ST_PERF_RECORD_ITRACE_START       = 12,
  ST_PERF_RECORD_LOST_SAMPLES       = 13,
  ST_PERF_RECORD_SWITCH             = 14,
  ST_PERF_RECORD_SWITCH_CPU_WIDE    = 15,
  ST_PERF_RECORD_NAMESPACES         = 16,
  ST_PERF_RECORD_KSYMBOL            = 17,
  ST_PERF_RECORD_BPF_EVENT          = 18,
  ST_PERF_RECORD_CGROUP             = 19,
  ST_PERF_RECORD_TEXT_POKE          = 20,
  ST_PERF_RECORD_AUX_OUTPUT_HW_ID   = 21,
  ST_PERF_RECORD_KERNEL_MAX,          /* kernel records are below this */

  /* Records synthesized by the perf tool.  */
  ST_PERF_RECORD_HEADER_ATTR        = 64,
  ST_PERF_RECORD_HEADER_EVENT_TYPE  = 65,
  ST_PERF_RECORD_HEADER_TRACING_DATA = 66,
  ST_PERF_RECORD_HEADER_BUILD_ID    = 67,
  ST_PERF_RECORD_FINISHED_ROUND     = 68,
  ST_PERF_RECORD_ID_INDEX           = 69,
  ST_PERF_RECORD_AUXTRACE_INFO      = 70,
  ST_PERF_RECORD_AUXTRACE           = 71,
  ST_PERF_RECORD_AUXTRACE_ERROR     = 72,
  ST_PERF_RECORD_THREAD_MAP         = 73,
  ST_PERF_RECORD_CPU_MAP            = 74,
  ST_PERF_RECORD_STAT_CONFIG        = 75,
  ST_PERF_RECORD_STAT               = 76,
  ST_PERF_RECORD_STAT_ROUND         = 77,
  ST_PERF_RECORD_EVENT_UPDATE       = 78,
  ST_PERF_RECORD_TIME_CONV          = 79,
  ST_PERF_RECORD_HEADER_FEATURE     = 80,
  ST_PERF_RECORD_COMPRESSED         = 81,
  ST_PERF_RECORD_FINISHED_INIT      = 82,
  ST_PERF_RECORD_COMPRESSED2        = 83,   /* newer perf than 6.1 */
  ST_PERF_RECORD_BPF_METADATA       = 84,
  ST_PERF_RECORD_SCHEDSTAT_CPU      = 85,
  ST_PERF_RECORD_SCHEDSTAT_DOMAIN   = 86,
  ST_PERF_RECORD_USER_LAST          = 86,   /* the last type known here */
} StPerfRecordType;

/* perf_event_attr.sample_type bits.  */
#define ST_PERF_SAMPLE_IP             (1ull << 0)
#define ST_PERF_SAMPLE_TID            (1ull << 1)
#define ST_PERF_SAMPLE_TIME           (1ull << 2)
#define ST_PERF_SAMPLE_ADDR           (1ull << 3)
#define ST_PERF_SAMPLE_READ           (1ull << 4)
#define ST_PERF_SAMPLE_CALLCHAIN      (1ull << 5)
#define ST_PERF_SAMPLE_ID             (1ull << 6)
#define ST_PERF_SAMPLE_CPU            (1ull << 7)
#define ST_PERF_SAMPLE_PERIOD         (1ull << 8)
#define ST_PERF_SAMPLE_STREAM_ID      (1ull << 9)
#define ST_PERF_SAMPLE_RAW            (1ull << 10)
#define ST_PERF_SAMPLE_BRANCH_STACK   (1ull << 11)
#define ST_PERF_SAMPLE_REGS_USER      (1ull << 12)
#define ST_PERF_SAMPLE_STACK_USER     (1ull << 13)
#define ST_PERF_SAMPLE_WEIGHT         (1ull << 14)
#define ST_PERF_SAMPLE_DATA_SRC       (1ull << 15)
#define ST_PERF_SAMPLE_IDENTIFIER     (1ull << 16)
#define ST_PERF_SAMPLE_TRANSACTION    (1ull << 17)
#define ST_PERF_SAMPLE_REGS_INTR      (1ull << 18)
#define ST_PERF_SAMPLE_PHYS_ADDR      (1ull << 19)
#define ST_PERF_SAMPLE_AUX            (1ull << 20)
#define ST_PERF_SAMPLE_CGROUP         (1ull << 21)
#define ST_PERF_SAMPLE_DATA_PAGE_SIZE (1ull << 22)
#define ST_PERF_SAMPLE_CODE_PAGE_SIZE (1ull << 23)
#define ST_PERF_SAMPLE_WEIGHT_STRUCT  (1ull << 24)

/* perf_event_attr.read_format bits.  */
#define ST_PERF_FORMAT_TOTAL_TIME_ENABLED (1ull << 0)
#define ST_PERF_FORMAT_TOTAL_TIME_RUNNING (1ull << 1)
#define ST_PERF_FORMAT_ID                 (1ull << 2)
#define ST_PERF_FORMAT_GROUP              (1ull << 3)
#define ST_PERF_FORMAT_LOST               (1ull << 4)

/* perf_event_attr flag bits (the u64 bitfield word at byte 40).  */
#define ST_PERF_ATTR_FLAG_DISABLED               (1ull << 0)
#define ST_PERF_ATTR_FLAG_INHERIT                (1ull << 1)
#define ST_PERF_ATTR_FLAG_MMAP                   (1ull << 8)
#define ST_PERF_ATTR_FLAG_COMM                   (1ull << 9)
#define ST_PERF_ATTR_FLAG_TASK                   (1ull << 13)
#define ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL          (1ull << 18)
#define ST_PERF_ATTR_FLAG_EXCLUDE_GUEST          (1ull << 20)
#define ST_PERF_ATTR_FLAG_EXCLUDE_CALLCHAIN_USER (1ull << 22)
#define ST_PERF_ATTR_FLAG_MMAP2                  (1ull << 23)
#define ST_PERF_ATTR_FLAG_COMM_EXEC              (1ull << 24)

/* branch_sample_type bit that adds hw_idx to BRANCH_STACK.  */
#define ST_PERF_BRANCH_HW_INDEX  (1ull << 17)
#define ST_PERF_BRANCH_ENTRY_SIZE 24

/* perf_event_attr field offsets (the struct grows by version; a field
   exists only when the attr's size covers it).  */
#define ST_PERF_ATTR_TYPE               0    /* u32 */
#define ST_PERF_ATTR_SIZE               4    /* u32 */
#define ST_PERF_ATTR_CONFIG             8    /* u64 */
#define ST_PERF_ATTR_SAMPLE_PERIOD      16   /* u64 */
#define ST_PERF_ATTR_SAMPLE_TYPE        24   /* u64 */
#define ST_PERF_ATTR_READ_FORMAT        32   /* u64 */
#define ST_PERF_ATTR_FLAGS              40   /* u64 */
#define ST_PERF_ATTR_BRANCH_SAMPLE_TYPE 72   /* u64 */
#define ST_PERF_ATTR_SAMPLE_REGS_USER   80   /* u64 */
#define ST_PERF_ATTR_SAMPLE_STACK_USER  88   /* u32 */
#define ST_PERF_ATTR_SIZE_VER0          64   /* smallest attr */

/* perf_event_attr as of PERF_ATTR_SIZE_VER7 (perf 6.1 writes this size),
   for attributes stacktrace makes itself.  Attributes read from a file
   may be smaller or larger; they are handled as bytes with the offsets
   above.  */
#define ST_PERF_ATTR_SIZE_VER7          128
typedef struct __attribute__ ((packed))
{
  uint32_t type;
  uint32_t size;
  uint64_t config;
  uint64_t sample_period;       /* or sample_freq */
  uint64_t sample_type;
  uint64_t read_format;
  uint64_t flags;               /* ST_PERF_ATTR_FLAG_* */
  uint32_t wakeup_events;
  uint32_t bp_type;
  uint64_t config1;
  uint64_t config2;
  uint64_t branch_sample_type;
  uint64_t sample_regs_user;
  uint32_t sample_stack_user;
  int32_t clockid;
  uint64_t sample_regs_intr;
  uint32_t aux_watermark;
  uint16_t sample_max_stack;
  uint16_t reserved2;
  uint32_t aux_sample_size;
  uint32_t reserved3;
  uint64_t sig_data;
} StPerfEventAttr;
static_assert (sizeof (StPerfEventAttr) == ST_PERF_ATTR_SIZE_VER7, "attr");
static_assert (__builtin_offsetof (StPerfEventAttr, sample_type)
               == ST_PERF_ATTR_SAMPLE_TYPE, "attr sample_type");
static_assert (__builtin_offsetof (StPerfEventAttr, flags)
               == ST_PERF_ATTR_FLAGS, "attr flags");
static_assert (__builtin_offsetof (StPerfEventAttr, sample_regs_user)
               == ST_PERF_ATTR_SAMPLE_REGS_USER, "attr sample_regs_user");
static_assert (__builtin_offsetof (StPerfEventAttr, sample_stack_user)
               == ST_PERF_ATTR_SAMPLE_STACK_USER, "attr sample_stack_user");

/* perf_event_attr.type and the software event stacktrace's synthesized
   attribute uses.  */
#define ST_PERF_TYPE_SOFTWARE        1
#define ST_PERF_COUNT_SW_CPU_CLOCK   0

/* The largest stack copy the kernel accepts (sample_stack_user).  */
#define ST_PERF_STACK_USER_MAX       65528

/* misc bits of records.  The low three are the cpumode.  */
#define ST_PERF_MISC_CPUMODE_MASK  7u
#define ST_PERF_MISC_KERNEL        1u
#define ST_PERF_MISC_USER          2u
#define ST_PERF_MISC_COMM_EXEC     (1u << 13)
#define ST_PERF_MISC_MMAP_DATA     (1u << 13)  /* MMAP: not executable */
#define ST_PERF_MISC_MMAP_BUILD_ID (1u << 14)
#define ST_PERF_MISC_BUILD_ID_SIZE (1u << 15)  /* HEADER_BUILD_ID entries */

/* Feature bits of adds_features used here.  */
#define ST_PERF_FEAT_TRACING_DATA  1
#define ST_PERF_FEAT_BUILD_ID      2
#define ST_PERF_FEAT_ARCH          6
#define ST_PERF_FEAT_CMDLINE       11
#define ST_PERF_FEAT_EVENT_DESC    12
#define ST_PERF_FEAT_BRANCH_STACK  15
#define ST_PERF_FEAT_AUXTRACE      18
#define ST_PERF_FEAT_STAT          19
#define ST_PERF_FEAT_CACHE         20
#define ST_PERF_FEAT_SAMPLE_TIME   21
#define ST_PERF_FEAT_DIR_FORMAT    24
#define ST_PERF_FEAT_COMPRESSED    27
#define ST_PERF_FEAT_CLOCK_DATA    29
/* HEADER_LAST_FEATURE of perf 6.1: in pipe mode, perf 6.1 refuses a
   HEADER_FEATURE record with a higher feature id.  */
#define ST_PERF_FEAT_LAST_6_1      32

/* Strings in BUILD_ID entries and in string features are padded to
   this.  */
#define ST_PERF_NAME_ALIGN   64

#define ST_PERF_BUILD_ID_MAX 20

/* HEADER_FEATURE (pipe mode): the bytes of feature section FEAT_ID as a
   record.  A record without data and with the last feature id marks the
   end of the features.  */
typedef struct __attribute__ ((packed))
{
  StPerfEventHeader header;
  uint64_t feat_id;
  uint8_t data[];
} StPerfFeatureRecord;
static_assert (sizeof (StPerfFeatureRecord) == 16, "feature record");

/* MMAP: then char filename[] and the sample_id trailer.  */
typedef struct __attribute__ ((packed))
{
  StPerfEventHeader header;
  uint32_t pid;
  uint32_t tid;
  uint64_t addr;
  uint64_t len;
  uint64_t pgoff;
  char filename[];
} StPerfMmap;
static_assert (sizeof (StPerfMmap) == 40, "mmap");

/* MMAP2: the device/inode block is a build-id when misc has
   ST_PERF_MISC_MMAP_BUILD_ID.  */
typedef struct __attribute__ ((packed))
{
  StPerfEventHeader header;
  uint32_t pid;
  uint32_t tid;
  uint64_t addr;
  uint64_t len;
  uint64_t pgoff;
  union
  {
    struct __attribute__ ((packed))
    {
      uint32_t maj;
      uint32_t min;
      uint64_t ino;
      uint64_t ino_generation;
    };
    struct __attribute__ ((packed))
    {
      uint8_t build_id_size;
      uint8_t reserved1;
      uint16_t reserved2;
      uint8_t build_id[20];
    };
  };
  uint32_t prot;
  uint32_t flags;
  char filename[];
} StPerfMmap2;
static_assert (sizeof (StPerfMmap2) == 72, "mmap2");

typedef struct __attribute__ ((packed))
{
  StPerfEventHeader header;
  uint32_t pid;
  uint32_t tid;
  char comm[];
} StPerfComm;
static_assert (sizeof (StPerfComm) == 16, "comm");

/* FORK and EXIT.  */
typedef struct __attribute__ ((packed))
{
  StPerfEventHeader header;
  uint32_t pid;
  uint32_t ppid;
  uint32_t tid;
  uint32_t ptid;
  uint64_t time;
} StPerfForkExit;
static_assert (sizeof (StPerfForkExit) == 32, "fork/exit");

typedef struct __attribute__ ((packed))
{
  StPerfEventHeader header;
  uint64_t id;
  uint64_t lost;
} StPerfLost;
static_assert (sizeof (StPerfLost) == 24, "lost");

/* HEADER_TRACING_DATA: SIZE bytes of tracing data (a multiple of 8)
   follow the record, outside header.size.  perf 4.x writes the record
   without PAD: header.size 12.  */
#define ST_PERF_TRACING_DATA_SIZE_OLD 12
typedef struct __attribute__ ((packed))
{
  StPerfEventHeader header;
  uint32_t size;
  uint32_t pad;
} StPerfTracingData;
static_assert (sizeof (StPerfTracingData) == 16, "tracing data");

/* AUXTRACE: SIZE bytes of trace data follow the record.  */
typedef struct __attribute__ ((packed))
{
  StPerfEventHeader header;
  uint64_t size;
  uint64_t offset;
  uint64_t reference;
  uint32_t idx;
  uint32_t tid;
  uint32_t cpu;
  uint32_t reserved;
} StPerfAuxtrace;
static_assert (sizeof (StPerfAuxtrace) == 48, "auxtrace");

/* HEADER_BUILD_ID entry (feature section or pipe record); the size of
   the build-id is build_id[20] when misc has ST_PERF_MISC_BUILD_ID_SIZE,
   else 20.  */
typedef struct __attribute__ ((packed))
{
  StPerfEventHeader header;
  int32_t pid;
  uint8_t build_id[24];
  char filename[];
} StPerfBuildId;
static_assert (sizeof (StPerfBuildId) == 36, "build id");

/* One event attribute as read, for decoding and for a perf writer that
   copies and patches it.  Fields the attr's size does not cover are 0.  */
typedef struct
{
  uint8_t *raw;                 /* the perf_event_attr bytes as read */
  uint32_t raw_size;            /* bytes in RAW */
  uint32_t size;                /* the attr's own size field */
  uint32_t type;
  uint64_t config;
  uint64_t sample_type;
  uint64_t read_format;
  uint64_t flags;               /* ST_PERF_ATTR_FLAG_* word */
  uint64_t branch_sample_type;
  uint64_t sample_regs_user;
  uint32_t sample_stack_user;
  uint64_t *ids;                /* sample ids of this attr */
  uint32_t n_ids;
} StPerfAttr;

#endif /* ST_PERF_TYPES_H */
