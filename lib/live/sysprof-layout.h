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

#include "format/perf-sample.h"
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
                                size_t size, StPerfSample *sample);

/* Cuts the stack copy of the fitting sample REC (SIZE bytes, located in
   SAMPLE by st_sysprof_layout_misfit) to what the kernel filled of it
   (dyn_size, rounded up to 8 bytes), in place, and returns the record's
   new size.  The rest of the copy is room the stack did not take (a
   shallow stack fills a few KiB of Sysprof's 16), and every record is
   copied several times on its way to the unwinder.  What a reader takes
   from the sample is unchanged: only the first dyn_size bytes count.  */
size_t st_sysprof_layout_cut_stack (uint8_t *rec, size_t size,
                                    const StPerfSample *sample);

/* The first bytes of a SIZE-byte record worth reading before the rest:
   the fields before a sample's stack copy, whatever its call chain.  */
#define ST_SYSPROF_SAMPLE_PREFIX 2048

/* For a reader that copies a record in parts (the layout above, or
   with ST_PERF_SAMPLE_PERIOD added: stacktrace --record's): where the stack copy of
   the sample REC begins, from its first PREFIX_LEN bytes (the record is
   SIZE bytes).  TRUE only when the stack copy (more than none, at most
   the attribute's size) and its dyn_size are what ends the record, as
   the layout has it; otherwise the record is to be read whole and
   checked.  */
gboolean st_sysprof_layout_stack_at (const StPerfAttr *a, const uint8_t *rec,
                                     size_t prefix_len, size_t size,
                                     size_t *at);

/* Ends REC, whose stack copy begins at AT and holds DYN_SIZE filled
   bytes (the first DYN_SIZE bytes from AT are in REC), after the filled
   bytes rounded up to 8 and DYN_SIZE: sets the copy's size word and the
   header's size, and returns that size.  */
size_t st_sysprof_layout_end_stack (uint8_t *rec, size_t at,
                                    uint64_t dyn_size);

#endif /* ST_SYSPROF_LAYOUT_H */
