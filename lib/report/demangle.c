/* Rust is tried first: a legacy Rust name is also a valid C++ name
   (`bench::level1::h0123456789abcdef` as C++), and libiberty's Rust
   demangler refuses names that are not Rust's.  */
#include "config.h"

#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

#include "report/demangle.h"

/* Parameters and qualifiers, as c++filt prints them.  */
#define DEMANGLE_OPTIONS (DMGL_PARAMS | DMGL_ANSI)

static char *
demangle_bare (const char *name)
{
  /* Both manglings start with `_Z` or `_R`: skip the rest cheaply.  */
  if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
    return NULL;
  char *d = rust_demangle (name, DEMANGLE_OPTIONS);
  if (d == NULL && name[1] == 'Z')
    d = cplus_demangle_v3 (name, DEMANGLE_OPTIONS);
  return d;
}

char *
st_demangle (const char *name)
{
  const char *at = strchr (name, '@');

  if (at == NULL)
    return demangle_bare (name);

  size_t len = (size_t) (at - name);
  char *bare = malloc (len + 1);
  if (bare == NULL)
    return NULL;
  memcpy (bare, name, len);
  bare[len] = '\0';
  char *d = demangle_bare (bare);
  free (bare);
  if (d == NULL)
    return NULL;
  size_t dlen = strlen (d), vlen = strlen (at);
  char *out = realloc (d, dlen + vlen + 1);
  if (out == NULL)
    {
      free (d);
      return NULL;
    }
  memcpy (out + dlen, at, vlen + 1);
  return out;
}
