/* libstcallee.so: st_lib_outer -> st_lib_inner -> st_lib_leaf, all in
   the shared library, called from uses-lib; st_lib_tiny, called from
   plt-calls.  */
#ifndef ST_CALLEE_H
#define ST_CALLEE_H

unsigned long st_lib_outer (unsigned long n);
unsigned long st_lib_inner (unsigned long n);
unsigned long st_lib_leaf (unsigned long n);
unsigned long st_lib_tiny (unsigned long x);

#endif /* ST_CALLEE_H */
