/* i386's __kernel_vsyscall as the kernel's arch/x86/entry/vdso/vdso32/
   system_call.S lays it out when neither SYSENTER nor SYSCALL is used
   (its int $0x80 path, which qemu-user runs), with the kernel's CFI;
   and the same code without CFI (st_vsyscall_nocfi).  */
	.text
	.globl	__kernel_vsyscall
	.type	__kernel_vsyscall, @function
	.p2align 4
__kernel_vsyscall:
	.cfi_startproc
	pushl	%ecx
	.cfi_adjust_cfa_offset 4
	.cfi_rel_offset	ecx, 0
	pushl	%edx
	.cfi_adjust_cfa_offset 4
	.cfi_rel_offset	edx, 0
	pushl	%ebp
	.cfi_adjust_cfa_offset 4
	.cfi_rel_offset	ebp, 0
	int	$0x80
	popl	%ebp
	.cfi_adjust_cfa_offset -4
	.cfi_restore	ebp
	popl	%edx
	.cfi_adjust_cfa_offset -4
	.cfi_restore	edx
	popl	%ecx
	.cfi_adjust_cfa_offset -4
	.cfi_restore	ecx
	ret
	.cfi_endproc
	.size	__kernel_vsyscall, . - __kernel_vsyscall

	.globl	st_vsyscall_nocfi
	.type	st_vsyscall_nocfi, @function
	.p2align 4
st_vsyscall_nocfi:
	pushl	%ecx
	pushl	%edx
	pushl	%ebp
	int	$0x80
	popl	%ebp
	popl	%edx
	popl	%ecx
	ret
	.size	st_vsyscall_nocfi, . - st_vsyscall_nocfi
	.section .note.GNU-stack,"",@progbits
