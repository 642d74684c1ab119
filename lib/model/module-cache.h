/* ELF files shared by every process that maps them: each file is opened,
   checked and prepared once, however many processes map it.

   Identity.  A module is keyed by its build-id when the stream gave one,
   otherwise by the recorded path and inode plus the local file's device,
   inode and modification time (a file replaced while we run is a new
   module).  Every mapping is first looked up by what the stream recorded
   (path, inode, build-id), which costs no system call; only a mapping
   seen for the first time resolves the local file.

   Bounds.  Modules in use by some process state (st_module_cache_acquire)
   stay; the others sit in a least-recently-used list and are evicted when
   there are more than MAX_MODULES modules or their bytes (file sizes plus
   the prepared tables) exceed MAX_BYTES.  The file's contents are read
   through libelf's mapping; the descriptors of a few files with much
   code stay open for st_module_pread.

   Preparation: everything slow about a module -- finding its file
   (the file resolver's candidates, file-resolver.h, then the fallback
   finder, which may download it), verifying it, reading its program headers, and
   the PREPARE hook (CFI and unwind tables).  By default it happens
   inline, the first time a lookup meets the module.  With workers
   (st_module_cache_set_workers, JIT-style priming) a lookup that meets a
   new module only queues its preparation and returns it PREPARING
   (st_module_ready is FALSE): a worker thread prepares it, touching
   nothing but that module, and the main thread takes it back when it
   collects completions (st_module_cache_collect, _wait_any, _wait_for);
   only then is it READY.  A module PREPARING is never evicted, and none
   of its fields but NAME may be read.  The cache itself (lookups, its LRU,
   the kept descriptors, the code pages it owns) is used from one thread
   at a time, without locks: --jobs gives each worker a cache of its
   own (parallel-unwind.h) rather than sharing one.  */
#ifndef ST_MODULE_CACHE_H
#define ST_MODULE_CACHE_H

#include <gelf.h>
#include <glib.h>
#include <stdint.h>

#include "model/address-space.h"
#include "model/file-resolver.h"
#include "model/pin-shelf.h"
#include "util/byte-budget.h"

struct StDebuginfod;
struct StFileReport;

typedef struct
{
  uint64_t vaddr;
  uint64_t offset;
  uint64_t filesz;
  uint64_t memsz;
  uint32_t flags;          /* PF_R, PF_W, PF_X */
} StLoadSegment;

typedef struct StModuleCache StModuleCache;
typedef struct StModule StModule;

struct StModule
{
  const char *name;        /* the path the stream named (GRefString) */
  char *path;              /* the file opened, NULL if none */
  Elf *elf;                /* NULL when unusable */
  const uint8_t *data;     /* the whole file (libelf's mapping, or the
                              [vdso] image) */
  size_t size;
  struct StMappingGuard *guard;  /* DATA, against a file that shrinks
                                    (mapping-guard.h); NULL: none */
  /* The file, kept open to read code with pread() (st_module_pread);
     only while FD_KEPT (big code only, ST_MODULE_KEPT_FD_MIN_CODE).  */
  int fd;
  gboolean fd_kept;
  uint64_t code_file_id;   /* the file's id in code-pages.h, while FD_KEPT */
  struct StCodePages *code_pages;  /* its cache, while FD_KEPT */
  /* The separate debug file libdwfl mapped for it, guarded by identity
     (find-debuginfo.c); atomic, NULL: none.  */
  struct StMappingGuard *debug_guard;
  int machine;             /* ELF e_machine */
  int elf_class;           /* ELFCLASS32/64 */
  gboolean fixed_address;  /* ET_EXEC: loaded at its own addresses */
  uint8_t build_id[ST_BUILD_ID_MAX];
  uint8_t build_id_len;
  StLoadSegment *loads;
  guint n_loads;
  uint64_t low_vaddr;      /* first PT_LOAD vaddr, aligned down */
  uint64_t high_vaddr;     /* end of the last PT_LOAD */
  uint64_t entry;          /* ELF e_entry */
  char *error;             /* why it is unusable */
  /* Where the file came from and how it was verified (file-resolver.h);
     when unusable, the most telling PROBLEM of the candidates.  */
  StFileSource source;
  StFileVerification verification;
  StFileProblem problem;
  gboolean no_unwind_sections;  /* neither .eh_frame nor .debug_frame:
                                   unwinding through it needs its
                                   separate debug file */
  gboolean code_without_cfi;    /* no .debug_frame, and .eh_frame covers
                                   less than half its code (set when
                                   prepared, find-debuginfo.c) */
  gboolean debug_file_found;    /* libdwfl opened a separate debug file
                                   for it (atomic, find-debuginfo.c) */
  gboolean fetch_deferred; /* no local file; the finder (a download,
                              maybe) waits until a sample needs it:
                              st_module_cache_fetch */

  /* [start, end) pairs of ELF addresses of the functions no frame is
     above (Go's stack roots), set by the PREPARE hook; NULL: none.  */
  uint64_t *stack_roots;
  guint n_stack_roots;

  /* What the PREPARE hook built (unwind tables), freed with
     TABLES_FREE; TABLES_BYTES counts towards the cache's byte bound.  */
  void *tables;
  GDestroyNotify tables_free;

  /* Written by the cache; read through st_module_ready and
     st_module_fetching.  */
  gboolean preparing;      /* a worker has it: not READY */
  gint fetching;           /* atomic: asking the finder now (maybe a
                              download); readable while PREPARING */
  /* The cache's bookkeeping (module-cache-private.h); NULL for a module
     no cache made.  */
  struct StModuleCacheEntry *cached;
};

/* Called once per module that opened successfully, to build what
   unwinding needs.  May run on a worker thread: it must touch only
   MODULE (and what is its own, e.g. a Dwfl of MODULE alone).  */
typedef void (*StModulePrepare) (StModule *module, void *user_data);

/* What a finder is asked for.  */
typedef enum
{
  ST_MODULE_FILE_EXECUTABLE,  /* the mapped ELF file itself */
  ST_MODULE_FILE_DEBUGINFO,   /* its separate debug file */
} StModuleFileKind;

/* The fallback for files not found locally (e.g. debuginfod): returns a
   newly allocated local path of the KIND file of the file recorded as
   PATH with BUILD_ID (BUILD_ID_LEN 0 when unknown), or NULL and, if it
   can tell, a reason in *WHY (newly allocated).  Called for executables
   when neither --symfs nor the recorded path gave a matching file, and
   for debug files through st_module_find_file.  May be called from
   several threads at once.  */
typedef char *(*StModuleFinder) (StModuleFileKind kind, const char *path,
                                 const uint8_t *build_id, guint build_id_len,
                                 char **why, void *user_data);

#define ST_MODULE_CACHE_MAX_MODULES 2048
#define ST_MODULE_CACHE_MAX_BYTES ((size_t) 1 << 30)
/* Modules no process state uses (those of exited processes, files
   replaced since): a live session with programs coming and going would
   otherwise keep up to MAX_MODULES of them, some 60 KiB of tables each
   and their files' pages.  Past it, the least recently used go when a
   new module is met.  */
#define ST_MODULE_CACHE_MAX_UNUSED 256

/* SYMFS, when not NULL, is searched first: SYMFS/PATH, then
   SYMFS/BASENAME.  Default bounds: ST_MODULE_CACHE_MAX_*.  Modules are
   prepared inline until st_module_cache_set_workers.  The prepare hook
   and the finder must be set before the first lookup.  */
StModuleCache *st_module_cache_new (const char *symfs);
/* The same with the candidates of RESOLVER (taken).  */
StModuleCache *st_module_cache_new_with_resolver (StFileResolver *resolver);
void st_module_cache_free (StModuleCache *c);

/* 0 leaves a bound as it is.  */
void st_module_cache_set_limits (StModuleCache *c, guint max_modules,
                                 size_t max_bytes);
/* At most MAX_UNUSED modules that nobody uses are kept (evicted as a new
   module is met).  */
void st_module_cache_set_max_unused (StModuleCache *c, guint max_unused);
/* What the modules' tables (the fast engine's rule tables) hold at most
   together, by default: past it the least recently used are emptied.  */
#define ST_MODULE_CACHE_TABLE_BYTES ((size_t) 8 << 20)
/* The byte budget the modules' tables share: the cache's own, so that
   the unwinders sharing a cache (sessions of one StCache) share it, and
   it outlives every module's tables.  Cooling happens only where the
   cache's users walk nothing (their unwinding is serialized).  */
StByteBudget *st_module_cache_table_budget (StModuleCache *c);
void st_module_cache_set_prepare (StModuleCache *c, StModulePrepare prepare,
                                  void *user_data);
void st_module_cache_set_finder (StModuleCache *c, StModuleFinder finder,
                                 void *user_data);

/* Lazy fetching: from now on (before the first lookup), a module whose
   file no local candidate gives and whose build-id is known does not ask
   the finder when prepared: it is READY but unusable, with
   FETCH_DEFERRED, until st_module_cache_fetch.  So downloads are made
   for the modules samples need, not for every mapping seen.  */
void st_module_cache_set_lazy_fetch (StModuleCache *c, gboolean lazy);

/* --jobs: from now on (before the first lookup), first-sight pins go
   through SHELF (pin-shelf.h, not owned, outliving C): TAKER -1, C puts
   a copy of the pins it opens there (the pipeline's cache); else C
   takes them from there, as taker TAKER, instead of opening its own
   when the shelf has them (a worker's).  */
void st_module_cache_share_pins (StModuleCache *c, StPinShelf *shelf,
                                 int taker);

/* A sample needs MODULE (READY, FETCH_DEFERRED; MAP one of its
   mappings): asks the finder for its file now -- inline without
   workers, else on a worker (MODULE is PREPARING again until
   collected).  FALSE when there is nothing to fetch.  */
gboolean st_module_cache_fetch (StModuleCache *c, StModule *module,
                                const StMap *map);

/* Changes whenever modules were sent to fetch their file: lists that
   left them out as unusable must be rebuilt.  */
uint64_t st_module_cache_retry_generation (const StModuleCache *c);

/* The module of MAP's file (prepared, or queued for preparation, on
   first use).  Never NULL; check st_module_ready, then ->elf for
   usability.  Borrowed: valid until the next call that may evict (get,
   prime, acquire, release, collect or wait on this cache).  MAP's
   filename must be an interned GRefString, as in an address space (names
   are compared by address; the cache takes references of its own).  */
StModule *st_module_cache_get (StModuleCache *c, const StMap *map);

/* Like st_module_cache_get, for reading the module now: a module still
   PREPARING is waited for when the workers were set up with READS_WAIT
   (st_module_cache_wait_local), else NULL is returned.  */
StModule *st_module_cache_get_ready (StModuleCache *c, const StMap *map);

/* Like st_module_cache_get, without returning the module, and MAP's
   filename may be any string: a module's first sight, so that its
   preparation starts early.  */
void st_module_cache_prime (StModuleCache *c, const StMap *map);

/* Like st_module_cache_get, but the module stays until released (even
   one still PREPARING: it stays once READY).  */
StModule *st_module_cache_acquire (StModuleCache *c, const StMap *map);
void st_module_cache_release (StModuleCache *c, StModule *module);

/* What identifies MODULE's file (its build-id, else its path and file
   identity): the same for every mapping of the same file, also after
   the module was evicted and opened again.  */
const char *st_module_identity (const StModule *module);
/* Whether MODULE's preparation is done (always, without workers).  */
static inline gboolean
st_module_ready (const StModule *module)
{
  return !module->preparing;
}

/* Whether MODULE's preparation is asking the finder for a file now: the
   part that may take long (a download).  */
static inline gboolean
st_module_fetching (const StModule *module)
{
  return g_atomic_int_get (&((StModule *) module)->fetching) > 0;
}

/* --- preparation on worker threads (JIT-style priming) --- */

/* From now on new modules are prepared by N_THREADS worker threads.
   READS_WAIT: st_module_cache_get_ready waits for a module PREPARING
   rather than returning NULL.  */
void st_module_cache_set_workers (StModuleCache *c, guint n_threads,
                                  gboolean reads_wait);

/* Takes back the modules the workers prepared so far, without waiting:
   they are READY.  Returns how many.  Cheap when there are none (one
   atomic read).  */
guint st_module_cache_collect (StModuleCache *c);
/* Waits until at least one module is prepared, then collects.  FALSE
   (at once) when none is in preparation.  */
gboolean st_module_cache_wait_any (StModuleCache *c);
/* Waits until MODULE (PREPARING or READY) is READY.  */
void st_module_cache_wait_for (StModuleCache *c, StModule *module);
/* Waits until MODULE is READY, unless (or until) it is fetching: a
   download is not waited for.  Returns whether it is READY.  */
gboolean st_module_cache_wait_local (StModuleCache *c, StModule *module);
/* Waits at most TIMEOUT_US (< 0: no limit) for some module to be
   prepared, then collects.  Returns whether one was.  */
gboolean st_module_cache_wait_any_timeout (StModuleCache *c,
                                           gint64 timeout_us);

/* Changes whenever modules become READY: lists built while some module
   was PREPARING are rebuilt when it changed.  */
uint64_t st_module_cache_ready_generation (const StModuleCache *c);
/* Modules queued or being prepared, not collected yet.  */
guint st_module_cache_preparing (const StModuleCache *c);
/* Modules the workers prepared so far.  */
guint64 st_module_cache_prepared_by_workers (const StModuleCache *c);
/* Worker threads (0: modules are prepared inline).  */
guint st_module_cache_workers (const StModuleCache *c);
/* Readable when a worker finished a module (see worker-pool.h), -1
   without workers.  */
int st_module_cache_wake_fd (const StModuleCache *c);

/* Asks the cache's finder for MODULE's KIND file (a newly allocated
   path), or NULL when there is no finder or it found nothing.  Safe on
   the worker preparing MODULE.  */
char *st_module_find_file (const StModule *module, StModuleFileKind kind);

/* Adds DELTA to the bytes MODULE accounts for (its tables grew).  Safe
   on the worker preparing MODULE: the cache's total takes the module's
   bytes when the module becomes READY.  */
void st_module_account (StModule *module, gssize delta);

/* A new Elf handle on MODULE (its own reference), for libdwfl.  */
Elf *st_module_elf_ref (const StModule *module);

/* Reads LEN bytes of the file at file OFFSET.  */
gboolean st_module_read (const StModule *module, uint64_t offset, void *buf,
                         size_t len);

/* Descriptors are kept for files with at least this much code in one
   segment, at most ST_MODULE_MAX_KEPT_FDS of them (a sixteenth of
   RLIMIT_NOFILE, if that is less).  */
#define ST_MODULE_KEPT_FD_MIN_CODE ((uint64_t) 256 << 10)
#define ST_MODULE_MAX_KEPT_FDS 256

/* The same from the kept descriptor, where there is one, through the
   bounded cache of pages read with pread() (code-pages.h), so that
   scattered reads do not map the pages they read: the return address
   check reads 16 bytes before each distinct return address
   (code-bytes.h), all over a big program's code, and through the
   mapping every first read of a page maps 64 KiB around it (the
   kernel's fault-around), 16 MB of resident set for cc1's 13,000.
   Through the mapping when there is none or the file holds less there
   (truncated since: the mapping's guard then decides).  */
gboolean st_module_pread (const StModule *module, uint64_t offset, void *buf,
                          size_t len);

/* What every module's file was (file-report.h): written when modules
   become READY, on the main thread.  */
struct StFileReport *st_module_cache_file_report (const StModuleCache *c);
StFileResolver *st_module_cache_resolver (const StModuleCache *c);

guint st_module_cache_size (StModuleCache *c);
size_t st_module_cache_bytes (StModuleCache *c);
guint64 st_module_cache_evictions (StModuleCache *c);

#endif /* ST_MODULE_CACHE_H */
