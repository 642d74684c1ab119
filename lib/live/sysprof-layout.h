/* The record layout Sysprof 48 asks the kernel for when it hands perf
   events to its live unwinder, and whether a record from a ring fits it.

   The live unwinder gets only the event fds, not their attributes, and
   the kernel offers no way to read an attribute back from an fd; but
   Sysprof always opens them the same way (one per CPU, system-wide):
   sample_type IDENTIFIER|IP|TID|TIME|CALLCHAIN|REGS_USER|STACK_USER,
   sample_id_all, mmap, mmap2, comm and task records, x86_64 registers
   AX BX CX DX SI DI BP SP IP R8-R15, the stack size it passes as
   --stack-size.  So the attribute is built from that, and each fd's
   sample id is asked of the kernel (PERF_EVENT_IOC_ID); every record is
   checked against the layout before it is believed, so a recorder that
   asks for something else is noticed, never misread.  */
#ifndef ST_SYSPROF_LAYOUT_H
#define ST_SYSPROF_LAYOUT_H

#include <glib.h>
#include <stdint.h>

#include "format/perf-types.h"

#define ST_SYSPROF_SAMPLE_TYPE                                            \
  (ST_PERF_SAMPLE_IDENTIFIER | ST_PERF_SAMPLE_IP | ST_PERF_SAMPLE_TID    \
   | ST_PERF_SAMPLE_TIME | ST_PERF_SAMPLE_CALLCHAIN                       \
   | ST_PERF_SAMPLE_REGS_USER | ST_PERF_SAMPLE_STACK_USER)
/* perf x86 registers AX..IP (0-8) and R8..R15 (16-23).  */
#define ST_SYSPROF_REGS_X86_64 0xff01ffull

/* The attribute as Sysprof fills it for STACK_SIZE bytes of stack (the
   event type is cpu-clock: which clock was used does not change the
   records).  */
void st_sysprof_layout_attr (StPerfEventAttr *attr, uint32_t stack_size);

/* The same, as the reader's StPerfAttr (no ids), for checking.  */
void st_sysprof_layout_checked (StPerfAttr *a, StPerfEventAttr *attr);

/* Why the ring record REC (SIZE bytes) does not fit the layout of A, or
   NULL when it does (free it with g_free).  Samples are checked field
   by field (register ABI and count, stack size against the attribute's,
   nothing left over); the kernel's other records for their fixed part
   and sample_id trailer; records of other types are left to the
   reader.  */
char *st_sysprof_layout_misfit (const StPerfAttr *a, const uint8_t *rec,
                                size_t size);

#endif /* ST_SYSPROF_LAYOUT_H */
