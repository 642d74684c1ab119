/* The program of the i386 vsyscall set of tests/data/arch (README):
   system calls made through a copy of the vDSO's __kernel_vsyscall
   (vsyscall-i386.S, the kernel's code and CFI) and through the same
   code without CFI, as glibc makes them (call *%gs:SYSINFO: eax the
   number, ebx.. the arguments), a few frames down a recursion.  At
   exit it copies /proc/self/maps to the file named by ST_ARCH_MAPS.  */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

void __kernel_vsyscall (void);
void st_vsyscall_nocfi (void);

/* getpid (20) through ENTRY.  */
__attribute__ ((noinline)) static long
st_getpid_via (void (*entry) (void))
{
  long ret;
  __asm__ volatile ("call *%1" : "=a" (ret) : "r" (entry), "0" (20L)
                    : "memory", "cc");
  return ret;
}

__attribute__ ((noinline)) int
st_vsyscall_recurse (int depth, void (*entry) (void))
{
  if (depth == 0)
    return (int) st_getpid_via (entry) & 1;
  return st_vsyscall_recurse (depth - 1, entry) + 1;
}

static void
save_maps (const char *out)
{
  int in = open ("/proc/self/maps", O_RDONLY);
  int o = open (out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  char buf[4096];
  ssize_t n;

  while (in >= 0 && o >= 0 && (n = read (in, buf, sizeof buf)) > 0)
    if (write (o, buf, (size_t) n) != n)
      break;
  close (in);
  close (o);
}

int
main (void)
{
  int sum = 0;

  for (int i = 0; i < 10; i++)
    {
      sum += st_vsyscall_recurse (i % 4, __kernel_vsyscall);
      sum += st_vsyscall_recurse (i % 3, st_vsyscall_nocfi);
    }
  if (getenv ("ST_ARCH_MAPS") != NULL)
    save_maps (getenv ("ST_ARCH_MAPS"));
  return sum == 12345;
}
