/* The program of the aarch64 and i386 fixtures (tests/data/arch/README):
   calls through the PLT into a shared library (st-arch-lib.c, in the
   program itself when built static), into libc (qsort calling back,
   memset, strlen), and a recursion, so that samples land in PLT stubs,
   libc, ld.so and functions of every size.  Short: every instruction
   may be a sample.  At exit it copies /proc/self/maps (as the emulator
   shows it) to the file named by ST_ARCH_MAPS.  */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int st_lib_work (int n);        /* st-arch-lib.c */

static char buffer[256];

static int
compare (const void *a, const void *b)
{
  return *(const int *) a - *(const int *) b;
}

__attribute__ ((noinline)) static int
st_sort (int seed)
{
  int v[12];

  for (int i = 0; i < 12; i++)
    v[i] = (seed * 7919 + i * 104729) % 1000;
  qsort (v, 12, sizeof v[0], compare);
  return v[0] + v[11];
}

__attribute__ ((noinline)) int
st_recurse (int depth, int seed)
{
  if (depth == 0)
    {
      memset (buffer, 'a' + seed % 26, 32 + seed % 64);
      return st_lib_work (seed) + st_sort (seed) + (int) strlen (buffer);
    }
  return st_recurse (depth - 1, seed + depth) + 1;
}

static void
copy_maps (void)
{
  const char *out = getenv ("ST_ARCH_MAPS");
  if (out == NULL)
    return;
  FILE *in = fopen ("/proc/self/maps", "r"), *o = fopen (out, "w");
  char line[512];
  while (in != NULL && o != NULL && fgets (line, sizeof line, in) != NULL)
    fputs (line, o);
  if (in != NULL)
    fclose (in);
  if (o != NULL)
    fclose (o);
}

int
main (void)
{
  int sum = 0;

  for (int i = 0; i < 6; i++)
    sum += st_recurse (i % 4 + 1, i);
  copy_maps ();
  return sum == 12345;
}
