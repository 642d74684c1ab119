/* Names of JIT code of one process: address ranges with a name each, as
   a perf map or a jitdump file gives them.  Code is often freed and its
   addresses reused, so where ranges overlap the one added last names an
   address.  Bounded: at most ST_JIT_TABLE_MAX ranges are kept (later
   ones are counted as dropped).  */
#ifndef ST_JIT_TABLE_H
#define ST_JIT_TABLE_H

#include <glib.h>
#include <stdint.h>

#define ST_JIT_TABLE_MAX (4u << 20)

typedef struct StJitTable StJitTable;

StJitTable *st_jit_table_new (void);
void st_jit_table_free (StJitTable *t);

/* [START, START + SIZE) is NAME (copied; NAME_LEN bytes, no NUL needed).
   FALSE when the range is empty, wraps around or the table is full.  */
gboolean st_jit_table_add (StJitTable *t, uint64_t start, uint64_t size,
                           const char *name, size_t name_len);

/* The name of ADDR, or NULL.  Valid until the table is freed.  */
const char *st_jit_table_lookup (StJitTable *t, uint64_t addr);

guint st_jit_table_size (const StJitTable *t);
uint64_t st_jit_table_dropped (const StJitTable *t);

#endif /* ST_JIT_TABLE_H */
