/* Signal frames read from the stack where a handler returns into the
   kernel's (or libc's) sigreturn trampoline (StFastArch.signal_frame):
   aarch64's vDSO __kernel_rt_sigreturn (aarch64-signal.c) and i386's
   __kernel_sigreturn, __kernel_rt_sigreturn and libc's __restore,
   __restore_rt (i386-signal.c).  */
#ifndef ST_ARCH_SIGNAL_FRAME_H
#define ST_ARCH_SIGNAL_FRAME_H

#include "unwind/fast-arch.h"

gboolean st_aarch64_signal_frame (const StFrameRegs *cur, uint64_t pc,
                                  StSampleMemory *mem, StFrameRegs *next,
                                  uint64_t *next_pc);
gboolean st_i386_signal_frame (const StFrameRegs *cur, uint64_t pc,
                               StSampleMemory *mem, StFrameRegs *next,
                               uint64_t *next_pc);

#endif /* ST_ARCH_SIGNAL_FRAME_H */
