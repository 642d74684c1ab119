/* The shared-library half of the workload's call path (workload.c).  */
volatile unsigned long sp48_lib_sink;

__attribute__ ((noinline)) unsigned long
sp48_leaf (unsigned long n)
{
  unsigned long x = n;

  for (unsigned long i = 0; i < n; i++)
    x = x * 6364136223846793005ul + 1442695040888963407ul;
  return x;
}

__attribute__ ((noinline)) unsigned long
sp48_c (unsigned long n)
{
  unsigned long r = sp48_leaf (n);

  sp48_lib_sink = r;
  return r + 3;
}
