/* Names people can read: C++ (Itanium ABI) and Rust symbols demangled
   with libiberty, the demangler binutils and gdb use (both Rust
   manglings: legacy `_ZN...17h<hash>E`, whose hash it drops, and v0
   `_R...`).  Called once per symbol (the symbolizer caches the answer),
   never per sample.  */
#ifndef ST_DEMANGLE_H
#define ST_DEMANGLE_H

/* The demangled form of NAME (newly allocated, free with free()), or
   NULL when NAME is not a mangled name libiberty reads.  A symbol
   version (`@VER` or `@@VER`, as the symbol table spells versioned
   names) is kept after the demangled name.  */
char *st_demangle (const char *name);

#endif /* ST_DEMANGLE_H */
