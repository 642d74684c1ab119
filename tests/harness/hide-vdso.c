/* A preload library for tests/integration/foreign-vdso.sh: the program
   it is loaded into sees no vDSO of its own (getauxval (AT_SYSINFO_EHDR)
   answers 0), as if the running kernel's vDSO could never match a
   recording's.  Test-only: the product has no such switch.  */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <sys/auxv.h>

unsigned long
getauxval (unsigned long type)
{
  static unsigned long (*real) (unsigned long);

  if (type == AT_SYSINFO_EHDR)
    return 0;
  if (real == NULL)
    real = (unsigned long (*) (unsigned long)) dlsym (RTLD_NEXT, "getauxval");
  return real != NULL ? real (type) : 0;
}
