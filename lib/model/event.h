/* The common event: what every reader produces and every writer consumes.
   Data flows one way: reader -> StEvent -> unwinder -> writer.  */
#ifndef ST_EVENT_H
#define ST_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Input/output formats.  */
typedef enum
{
  ST_FORMAT_AUTO = 0,
  ST_FORMAT_SYSPROF,          /* Sysprof capture stream */
  ST_FORMAT_PERF,             /* perf.data, file or pipe mode */
} StFormat;

typedef enum
{
  ST_EVENT_OTHER = 0,   /* anything else: passes through untouched */
  ST_EVENT_SAMPLE,      /* a callchain sample (kernel and/or user addresses) */
  ST_EVENT_STACK_USER,  /* registers + copy of the user stack, to be unwound */
  ST_EVENT_MAP,         /* a file (or anonymous) mapping of a process */
  ST_EVENT_PROCESS,     /* process name / exec */
  ST_EVENT_FORK,
  ST_EVENT_EXIT,
  ST_EVENT_LOST,        /* records lost by the recorder */
} StEventKind;

/* Linux perf_event callchain context markers (as u64).  */
#define ST_CONTEXT_HV           ((uint64_t) -32)
#define ST_CONTEXT_KERNEL       ((uint64_t) -128)
#define ST_CONTEXT_USER         ((uint64_t) -512)
#define ST_CONTEXT_GUEST        ((uint64_t) -2048)
#define ST_CONTEXT_GUEST_KERNEL ((uint64_t) -2176)
#define ST_CONTEXT_GUEST_USER   ((uint64_t) -2560)
#define ST_CONTEXT_MAX          ((uint64_t) -4095)
#define ST_IS_CONTEXT(a)        ((uint64_t) (a) >= ST_CONTEXT_MAX)

/* perf register ABI of a user register dump.  */
#define ST_REGS_ABI_NONE 0
#define ST_REGS_ABI_32   1
#define ST_REGS_ABI_64   2

#define ST_BUILD_ID_MAX 20

/* One event.  Every pointer points into the reader's buffer and is valid
   only until the next st_reader_next() call.  Numbers are host-endian.  */
typedef struct
{
  StEventKind kind;
  StFormat source;      /* format the event was read from */
  uint64_t offset;      /* byte offset of the frame/record in the input */
  int32_t pid;
  int32_t tid;
  int32_t cpu;          /* -1 when unknown */
  int64_t time;         /* ns; 0 when unknown */
  /* A point where the stream promises time order: every later event is
     newer than all events before the previous such point (perf's
     FINISHED_ROUND).  Streams without them are taken as time-ordered.  */
  bool round_end;

  /* The frame/record exactly as read, for byte-identical passthrough.  */
  const uint8_t *raw;
  size_t raw_len;

  union
  {
    /* ST_EVENT_SAMPLE.  ips may contain perf context markers.  */
    struct
    {
      const uint64_t *ips;
      uint32_t n_ips;
    } sample;

    /* ST_EVENT_STACK_USER.  callchain is the kernel part recorded with the
       sample (may be empty), user_callchain the user part.  regs holds the registers of regs_mask, in
       ascending perf register number order (compacted, like perf's
       REGS_USER).  Only the first stack_size bytes of stack are valid.  */
    struct
    {
      const uint64_t *callchain;
      uint32_t n_callchain;
      /* The user part the recorder's frame-pointer walk gave with the
         sample (perf: after PERF_CONTEXT_USER, without the marker; the
         sampled IP first, then return addresses), or NULL.  */
      const uint64_t *user_callchain;
      uint32_t n_user_callchain;
      uint32_t abi;           /* ST_REGS_ABI_* */
      uint64_t regs_mask;
      const uint64_t *regs;
      uint32_t n_regs;
      const uint8_t *stack;
      uint64_t stack_size;
    } stack;

    /* ST_EVENT_MAP.  */
    struct
    {
      uint64_t start;
      uint64_t end;           /* exclusive */
      uint64_t pgoff;
      uint64_t inode;
      uint32_t dev_major;     /* the file's device (MMAP2), 0:0 when */
      uint32_t dev_minor;     /* unknown */
      uint32_t prot;          /* PROT_* bits; PROT_EXEC unknown => exec_known false */
      bool exec_known;
      const char *filename;
      uint8_t build_id[ST_BUILD_ID_MAX];
      uint8_t build_id_len;   /* 0 when unknown */
    } map;

    /* ST_EVENT_PROCESS.  */
    struct
    {
      const char *comm;
      bool exec;              /* the process image was replaced */
    } process;

    /* ST_EVENT_FORK: pid/tid above are the child's.  */
    struct
    {
      int32_t parent_pid;
      int32_t parent_tid;
    } fork;

    /* ST_EVENT_LOST.  */
    struct
    {
      uint64_t count;
    } lost;
  };
} StEvent;

/* A copy of EV that owns everything it points to, in one allocation
   (free it with g_free).  */
StEvent *st_event_copy (const StEvent *ev);

/* Tells which memory outlives the event (a mapped input file): a copy
   may keep pointing there.  */
typedef bool (*StEventStable) (const void *ptr, size_t len, void *user);

/* Bytes st_event_copy_to needs for EV, keeping what STABLE (may be NULL)
   accepts in place.  */
size_t st_event_copy_size (const StEvent *ev, StEventStable stable,
                           void *user);
/* Copies EV into DST (st_event_copy_size bytes, 8-aligned).  */
StEvent *st_event_copy_to (const StEvent *ev, void *dst,
                           StEventStable stable, void *user);

const char *st_event_kind_name (StEventKind kind);
const char *st_format_name (StFormat format);

#endif /* ST_EVENT_H */
