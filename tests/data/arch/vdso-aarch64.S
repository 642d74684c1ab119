/* The aarch64 vDSO's signal return trampoline, as the kernel's
   arch/arm64/kernel/vdso/sigreturn.S lays it out (since Linux 5.10 its
   CFI directives are commented out: unwinders recognise the two
   instructions), for the signal set of tests/data/arch (README): the
   trampoline page qemu-user maps holds the same two instructions, and
   perf would find this code in the recorded [vdso].  The trampoline
   starts a page, as qemu's does.  */
	.text
	.balign	4096
	.skip	4092
	nop				// the kernel's "mysterious NOP"
	.globl	__kernel_rt_sigreturn
	.type	__kernel_rt_sigreturn, %function
__kernel_rt_sigreturn:
	mov	x8, #139		// __NR_rt_sigreturn
	svc	#0
	.size	__kernel_rt_sigreturn, . - __kernel_rt_sigreturn
