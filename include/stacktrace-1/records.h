/* stacktrace-1, level 2: a recording read one record at a time.  Part
   of <stacktrace-1/stacktrace.h>.

       StRecords *r = st_records_new ();
       const StRecord *rec;
       int rc;
       if (st_records_open_path (r, "perf.data", ST_FILE_FORMAT_AUTO) == ST_OK)
         while ((rc = st_records_next (r, &rec)) == ST_OK)
           if (rec->kind == ST_RECORD_STACK_SAMPLE)
             ...;
       st_records_free (r);

   A perf.data recording comes in time order, as perf and the command
   process it (perf writes records in time order only per CPU: the
   reader holds a round at a time to sort it); a capture in the order of
   its frames.  Compressed records come decompressed.  Damaged parts are skipped and
   counted (st_records_damaged), never an error.

   Threads: one thread at a time per StRecords.  */
#if !defined(STACKTRACE_1_INSIDE) && !defined(STACKTRACE_1_COMPILATION)
#error "Only <stacktrace-1/stacktrace.h> can be included directly."
#endif

#ifndef STACKTRACE_1_RECORDS_H
#define STACKTRACE_1_RECORDS_H

#include <stacktrace-1/common.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  ST_RECORD_OTHER = 0,        /* anything else */
  ST_RECORD_CALLCHAIN = 1,    /* a sample with a call chain (kernel or
                                 user addresses, perf's context markers) */
  ST_RECORD_STACK_SAMPLE = 2, /* registers and a copy of the user stack */
  ST_RECORD_MAP = 3,          /* a mapping of a process */
  ST_RECORD_COMM = 4,         /* a process's name, or an exec */
  ST_RECORD_FORK = 5,         /* a new process or thread (pid, tid: the
                                 child's) */
  ST_RECORD_EXIT = 6,
  ST_RECORD_LOST = 7,         /* records the recorder lost */
} StRecordKind;

/* perf's register ABIs (ST_RECORD_STACK_SAMPLE's abi).  */
#define ST_REGS_ABI_NO_REGS 0
#define ST_REGS_ABI_32BIT 1
#define ST_REGS_ABI_64BIT 2

#define ST_BUILD_ID_MAX_BYTES 20

/* One record.  Pointers are valid until the next st_records_next (or,
   for a record a program made itself, as long as it keeps them).  */
typedef struct
{
  StRecordKind kind;
  int32_t pid;
  int32_t tid;
  int32_t cpu;               /* -1 when unknown */
  int64_t time;              /* ns, 0 when unknown */
  uint64_t offset;           /* of the record in the input */
  union
  {
    struct
    {
      const uint64_t *ips;
      uint32_t n_ips;
    } callchain;
    /* The registers of REGS_MASK, by ascending perf register number
       (as perf's PERF_SAMPLE_REGS_USER); the first STACK_SIZE bytes of
       STACK, copied from the sampled stack pointer up.  */
    struct
    {
      uint32_t abi;          /* ST_REGS_ABI_* */
      uint32_t n_regs;
      uint64_t regs_mask;
      const uint64_t *regs;
      const uint8_t *stack;
      uint64_t stack_size;
      const uint64_t *kernel_ips;  /* the kernel part, may be NULL */
      uint32_t n_kernel_ips;
      const uint64_t *user_ips;    /* the recorder's frame-pointer
                                      chain, may be NULL */
      uint32_t n_user_ips;
    } stack;
    struct
    {
      uint64_t start;
      uint64_t end;          /* exclusive */
      uint64_t pgoff;
      uint64_t inode;
      uint32_t dev_major;    /* 0:0 when unknown */
      uint32_t dev_minor;
      uint32_t prot;         /* PROT_* */
      int32_t exec_known;    /* PROT_EXEC of PROT is known */
      const char *filename;
      uint8_t build_id[ST_BUILD_ID_MAX_BYTES];
      uint32_t build_id_len; /* 0 when not recorded */
    } map;
    struct
    {
      const char *comm;
      int32_t exec;          /* the process image was replaced */
    } comm;
    struct
    {
      int32_t parent_pid;
      int32_t parent_tid;
    } fork;
    struct
    {
      uint64_t count;
    } lost;
    uint64_t reserved[16];
  } u;
} StRecord;

typedef struct StRecords StRecords;

ST_PUBLIC StRecords *st_records_new (void);
ST_PUBLIC void st_records_free (StRecords *records);
/* Reads the header.  FD is not closed by the reader.  */
ST_PUBLIC int st_records_open_fd (StRecords *records, int fd,
                                  StFileFormat format);
ST_PUBLIC int st_records_open_path (StRecords *records, const char *path,
                                    StFileFormat format);
/* ST_OK and *RECORD, ST_END at the end, or a negative result (a read
   error: st_records_error).  */
ST_PUBLIC int st_records_next (StRecords *records, const StRecord **record);
/* The format found (after the open).  */
ST_PUBLIC StFileFormat st_records_format (const StRecords *records);
/* Places of damaged input skipped so far.  */
ST_PUBLIC uint64_t st_records_damaged (const StRecords *records);
ST_PUBLIC const char *st_records_error (const StRecords *records);

#ifdef __cplusplus
}
#endif

#endif /* STACKTRACE_1_RECORDS_H */
