/* The shared library of the aarch64 and i386 fixtures.  */
__attribute__ ((noinline)) static int
st_lib_leaf (int n)
{
  volatile int x = n;

  for (int i = 0; i < 20; i++)
    x = x * 3 + i;
  return x;
}

int
st_lib_work (int n)
{
  return st_lib_leaf (n) + st_lib_leaf (n + 1);
}
