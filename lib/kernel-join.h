/* The join of a capture's sample split in two frames.

   A raw-stack sample carries its kernel part, in a Sysprof capture, as a
   kernel-only SAMPLE frame written just before the STACK_USER frame of
   the same sample (the same pid, tid and time).  The filter holds such a
   SAMPLE frame back for one event: if the next is that STACK_USER frame,
   the two become one sample (the SAMPLE's addresses its kernel call
   chain); otherwise the SAMPLE goes on as it is.

   One held frame at a time, copied into a buffer that is reused: no
   allocation per sample once the buffer is big enough.  */
#ifndef ST_KERNEL_JOIN_H
#define ST_KERNEL_JOIN_H

#include <glib.h>

#include "model/event.h"

typedef struct StKernelJoin StKernelJoin;

StKernelJoin *st_kernel_join_new (void);
void st_kernel_join_free (StKernelJoin *j);

/* Whether EV is a capture's kernel-only SAMPLE frame: maybe the kernel
   part of the raw-stack sample that follows.  */
gboolean st_kernel_join_is_kernel_part (const StEvent *ev);

/* Holds a copy of EV (nothing may be held).  */
void st_kernel_join_hold (StKernelJoin *j, const StEvent *ev);

/* The held frame, or NULL.  */
const StEvent *st_kernel_join_held (const StKernelJoin *j);

/* Raw-stack event EV into *MERGED: with the held frame's addresses as its
   kernel call chain when the held frame is its kernel part (the held
   frame is then returned, and no longer held; *MERGED points into it
   until the next hold), else as it is (NULL is returned, the held frame,
   if any, stays held).  */
const StEvent *st_kernel_join_take (StKernelJoin *j, const StEvent *ev,
                                    StEvent *merged);

/* Lets go of the held frame: returned (valid until the next hold), or
   NULL when none was held.  */
const StEvent *st_kernel_join_release (StKernelJoin *j);

#endif /* ST_KERNEL_JOIN_H */
