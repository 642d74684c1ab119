/* The demangler against c++filt's answers (binutils uses the same
   libiberty) written out by hand: C++ with parameters, clones and
   versions; Rust's legacy mangling (hash dropped) and v0; names that
   are not mangled, and broken ones, give NULL.  */
#include "config.h"

#include <glib.h>
#include <stdlib.h>

#include "report/demangle.h"

static void
check (const char *mangled, const char *want)
{
  char *got = st_demangle (mangled);

  if (want == NULL)
    {
      if (got != NULL)
        g_error ("%s: demangled to '%s', wanted none", mangled, got);
      return;
    }
  if (got == NULL)
    g_error ("%s: not demangled, wanted '%s'", mangled, want);
  g_assert_cmpstr (got, ==, want);
  free (got);
}

static void
test_cxx (void)
{
  check ("_Z4worki", "work(int)");
  check ("_ZN6st_cxx6Runner3runEv", "st_cxx::Runner::run()");
  check ("_ZN6st_cxx6level2ERKSt6vectorIiSaIiEE",
         "st_cxx::level2(std::vector<int, std::allocator<int> > const&)");
  check ("_ZN4node5StartEiPPc", "node::Start(int, char**)");
  check ("_ZNK3Foo3getEv", "Foo::get() const");
  check ("_ZN3foo3barEv.cold", "foo::bar() [clone .cold]");
  check ("_Z1fv.constprop.0", "f() [clone .constprop.0]");
  check ("_ZTV3Foo", "vtable for Foo");
  check ("_ZSt4cout", "std::cout");
}

static void
test_rust (void)
{
  /* Legacy: the trailing hash is dropped, as rustfilt does.  */
  check ("_ZN5bench6level117h53b8f672995a7f17E", "bench::level1");
  check ("_ZN3std2rt10lang_start17h0123456789abcdefE", "std::rt::lang_start");
  /* v0.  */
  check ("_RNvCshNuoP8GnBWo_5bench6level1", "bench::level1");
  check ("_RNvNtCs1234_5bench4deep6level3", "bench::deep::level3");
  check ("_RINvNtC3std3mem8align_ofNtNtC3std3mem12DiscriminantEB3_",
         "std::mem::align_of::<std::mem::Discriminant>");
}

static void
test_versions (void)
{
  check ("_Z4worki@@V_1.0", "work(int)@@V_1.0");
  check ("_Z4worki@V_1.0", "work(int)@V_1.0");
  check ("__libc_start_main@@GLIBC_2.34", NULL);
}

static void
test_not_mangled (void)
{
  check ("main", NULL);
  check ("", NULL);
  check ("_", NULL);
  check ("_Z", NULL);
  check ("_R", NULL);
  check ("Builtins_JSEntry", NULL);
  check ("_start", NULL);
  check ("_Zfoo", NULL);
  check ("_RNv", NULL);
  check ("_ZN5bench6level1", NULL);
  check ("@@GLIBC_2.34", NULL);
  check ("JS:*work /tmp/bench.js:2:14", NULL);
}

/* Every prefix of mangled names: never a crash (ASan watches).  */
static void
test_cut (void)
{
  const char *names[] = {
    "_ZN6st_cxx6level2ERKSt6vectorIiSaIiEE",
    "_ZN5bench6level117h53b8f672995a7f17E",
    "_RINvNtC3std3mem8align_ofNtNtC3std3mem12DiscriminantEB3_",
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    for (size_t n = 0; names[i][n] != '\0'; n++)
      {
        g_autofree char *cut = g_strndup (names[i], n);
        free (st_demangle (cut));
      }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/demangle/cxx", test_cxx);
  g_test_add_func ("/demangle/rust", test_rust);
  g_test_add_func ("/demangle/versions", test_versions);
  g_test_add_func ("/demangle/not-mangled", test_not_mangled);
  g_test_add_func ("/demangle/cut", test_cut);
  return g_test_run ();
}
