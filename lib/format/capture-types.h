/* Sysprof capture format: wire layout, in one place, checked by the
   compiler.  Little-endian files only are produced; big-endian (or
   byte-swapped) files are detected and rejected by the reader.  */
#ifndef ST_CAPTURE_TYPES_H
#define ST_CAPTURE_TYPES_H

#include <assert.h>
#include <stdint.h>

#define ST_CAPTURE_MAGIC          0xFDCA975Eu
#define ST_CAPTURE_VERSION        1
#define ST_CAPTURE_HEADER_SIZE    256
#define ST_CAPTURE_FRAME_HEADER   24
#define ST_CAPTURE_ALIGN          8
#define ST_CAPTURE_FRAME_MAX      65535   /* u16 len, rounded down to 8 */

typedef enum
{
  ST_CAPTURE_TIMESTAMP   = 1,
  ST_CAPTURE_SAMPLE      = 2,
  ST_CAPTURE_MAP         = 3,
  ST_CAPTURE_PROCESS     = 4,
  ST_CAPTURE_FORK        = 5,
  ST_CAPTURE_EXIT        = 6,
  ST_CAPTURE_JITMAP      = 7,
  ST_CAPTURE_CTRDEF      = 8,
  ST_CAPTURE_CTRSET      = 9,
  ST_CAPTURE_MARK        = 10,
  ST_CAPTURE_METADATA    = 11,
  ST_CAPTURE_LOG         = 12,
  ST_CAPTURE_FILE_CHUNK  = 13,
  ST_CAPTURE_ALLOCATION  = 14,
  ST_CAPTURE_OVERLAY     = 15,
  ST_CAPTURE_TRACE       = 16,
  ST_CAPTURE_DBUS        = 17,
  ST_CAPTURE_STACK_USER  = 18,  /* eu-stacktrace convention */
} StCaptureFrameType;

typedef struct __attribute__ ((packed))
{
  uint32_t magic;
  uint8_t version;
  uint8_t little_endian : 1;   /* bit 0 of byte 5 */
  uint8_t padding0 : 7;
  uint8_t padding1[2];
  char capture_time[64];
  int64_t time;
  int64_t end_time;
  char suffix[168];
} StCaptureFileHeader;
static_assert (sizeof (StCaptureFileHeader) == 256, "file header");

typedef struct __attribute__ ((packed))
{
  uint16_t len;
  int16_t cpu;
  int32_t pid;
  int64_t time;
  uint8_t type;
  uint8_t padding1[3];
  uint32_t padding2;
} StCaptureFrame;
static_assert (sizeof (StCaptureFrame) == 24, "frame header");

typedef struct __attribute__ ((packed))
{
  StCaptureFrame frame;
  uint16_t n_addrs;
  uint16_t padding1;
  int32_t tid;
  uint64_t addrs[];
} StCaptureSample;
static_assert (sizeof (StCaptureSample) == 32, "sample");

typedef struct __attribute__ ((packed))
{
  StCaptureFrame frame;
  uint64_t start;
  uint64_t end;
  uint64_t offset;
  uint64_t inode;
  char filename[];
} StCaptureMap;
static_assert (sizeof (StCaptureMap) == 56, "map");

typedef struct __attribute__ ((packed))
{
  StCaptureFrame frame;
  char cmdline[];
} StCaptureProcess;
static_assert (sizeof (StCaptureProcess) == 24, "process");

typedef struct __attribute__ ((packed))
{
  StCaptureFrame frame;
  int32_t child_pid;
  uint32_t padding;
} StCaptureFork;
static_assert (sizeof (StCaptureFork) == 32, "fork");

#define ST_CAPTURE_COUNTER_NAME 32
#define ST_CAPTURE_COUNTER_DESC 52
#define ST_CAPTURE_COUNTER_INT64  0
#define ST_CAPTURE_COUNTER_DOUBLE 1

typedef struct __attribute__ ((packed))
{
  char category[32];
  char name[32];
  char description[52];
  uint32_t id_and_type;       /* id:24 (low bits), type:8 (high bits) */
  union { int64_t v64; double vdbl; } value;
} StCaptureCounter;
static_assert (sizeof (StCaptureCounter) == 128, "counter");

typedef struct __attribute__ ((packed))
{
  StCaptureFrame frame;
  uint16_t n_counters;
  uint16_t padding1;
  uint32_t padding2;
  StCaptureCounter counters[];
} StCaptureCounterDefine;
static_assert (sizeof (StCaptureCounterDefine) == 32, "ctrdef");

typedef struct __attribute__ ((packed))
{
  uint32_t ids[8];
  union { int64_t v64; double vdbl; } values[8];
} StCaptureCounterValues;
static_assert (sizeof (StCaptureCounterValues) == 96, "ctrvalues");

typedef struct __attribute__ ((packed))
{
  StCaptureFrame frame;
  uint16_t n_values;
  uint16_t padding1;
  uint32_t padding2;
  StCaptureCounterValues values[];
} StCaptureCounterSet;
static_assert (sizeof (StCaptureCounterSet) == 32, "ctrset");

typedef struct __attribute__ ((packed))
{
  StCaptureFrame frame;
  uint16_t severity;
  uint16_t padding1;
  uint32_t padding2;
  char domain[32];
  char message[];
} StCaptureLog;
static_assert (sizeof (StCaptureLog) == 64, "log");

/* FILE_CHUNK: a piece of a file the recorder copied (Sysprof: a
   process's /proc/PID/mountinfo, /proc/mounts...); a file longer than one
   frame comes in several, the last with IS_LAST.  */
typedef struct __attribute__ ((packed))
{
  StCaptureFrame frame;
  uint32_t is_last : 1;
  uint32_t padding1 : 15;
  uint32_t len : 16;
  char path[256];
  uint8_t data[];
} StCaptureFileChunk;
static_assert (sizeof (StCaptureFileChunk) == 284, "file chunk");

/* OVERLAY: a layer of a process's overlay root (Podman): the host
   directory SRC is seen at DST in the process (DATA: SRC, NUL, DST, NUL);
   layer 0 first.  */
typedef struct __attribute__ ((packed))
{
  StCaptureFrame frame;
  uint32_t layer : 8;
  uint32_t padding : 24;
  uint32_t src_len : 16;
  uint32_t dst_len : 16;
  char data[];
} StCaptureOverlay;
static_assert (sizeof (StCaptureOverlay) == 32, "overlay");

/* STACK_USER: the stack copy, then (at 40 + size) the register block.  */
typedef struct __attribute__ ((packed))
{
  StCaptureFrame frame;
  uint64_t size;
  int32_t tid;
  uint32_t padding;
  uint8_t data[];
} StCaptureStackUser;
static_assert (sizeof (StCaptureStackUser) == 40, "stack user");

typedef struct __attribute__ ((packed))
{
  uint32_t n_regs;
  uint32_t abi;
  uint64_t regs[];
} StCaptureUserRegs;
static_assert (sizeof (StCaptureUserRegs) == 8, "user regs");

/* Register sets of STACK_USER frames, as perf register masks.  The i386
   set is the first 9 of the x86_64 set; aarch64's (stacktrace's own:
   Sysprof records x86 only) is perf's whole user set, X0..X30, SP, PC,
   in perf's order.  */
#define ST_CAPTURE_REGS_X86_64_MASK 0xff01ffull  /* AX..IP, R8..R15: 17 */
#define ST_CAPTURE_REGS_I386_MASK   0x1ffull     /* AX..IP: 9 */
#define ST_CAPTURE_REGS_AARCH64_MASK 0x1ffffffffull  /* X0..X30 SP PC: 33 */
#define ST_CAPTURE_REGS_AARCH64_N   33
#define ST_CAPTURE_REGS_X86_64_N    17
#define ST_CAPTURE_REGS_IP_INDEX    8            /* IP in both sets */

/* The LOG frame written for records the recorder lost (perf's LOST):
   Sysprof's own words, "Lost N samples" in domain "Sampler" at critical
   severity, as its live unwinder and perf source write them, so that
   Sysprof's log view and scripts that count them see one form.  */
#define ST_CAPTURE_LOST_DOMAIN  "Sampler"
#define ST_CAPTURE_LOST_PREFIX  "Lost "
#define ST_CAPTURE_LOST_SUFFIX  " samples"
/* What stacktrace wrote before (domain "stacktrace"): still read.  */
#define ST_CAPTURE_LOST_OLD_DOMAIN  "stacktrace"
#define ST_CAPTURE_LOST_OLD_SUFFIX  " events lost by the recorder"

#endif /* ST_CAPTURE_TYPES_H */
