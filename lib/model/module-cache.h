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
   the prepared tables) exceed MAX_BYTES.  No file descriptor stays open:
   the file's contents are read through libelf's mapping.

   Preparation.  Opening a module (find the file: --symfs, the recorded
   path, then the fallback finder; check its build-id; read its program
   headers) and preparing it (the PREPARE hook: CFI and unwind tables)
   touch only that module, so they can later move to a worker thread;
   only the byte accounting (st_module_account) reaches the cache's
   total, which would then need an atomic or a lock.  */
#ifndef ST_MODULE_CACHE_H
#define ST_MODULE_CACHE_H

#include <gelf.h>
#include <glib.h>
#include <stdint.h>

#include "model/address-space.h"

struct StDebuginfod;

typedef struct
{
  uint64_t vaddr;
  uint64_t offset;
  uint64_t filesz;
  uint64_t memsz;
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
  int machine;             /* ELF e_machine */
  int elf_class;           /* ELFCLASS32/64 */
  uint8_t build_id[ST_BUILD_ID_MAX];
  uint8_t build_id_len;
  StLoadSegment *loads;
  guint n_loads;
  uint64_t low_vaddr;      /* first PT_LOAD vaddr, aligned down */
  uint64_t high_vaddr;     /* end of the last PT_LOAD */
  uint64_t entry;          /* ELF e_entry */
  char *error;             /* why it is unusable */

  /* What the PREPARE hook built (unwind tables), freed with
     TABLES_FREE; TABLES_BYTES counts towards the cache's byte bound.  */
  void *tables;
  GDestroyNotify tables_free;

  /* Private to the cache.  */
  StModuleCache *cache;
  char *key;
  guint users;             /* process states holding it */
  size_t bytes;            /* accounted: file size + tables */
  GList lru;               /* in the cache's LRU list while unused */
};

/* Called once per module that opened successfully, to build what
   unwinding needs (may later run on a worker thread: it must touch only
   MODULE).  */
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

/* SYMFS, when not NULL, is searched first: SYMFS/PATH, then
   SYMFS/BASENAME.  Default bounds: ST_MODULE_CACHE_MAX_*.  */
StModuleCache *st_module_cache_new (const char *symfs);
void st_module_cache_free (StModuleCache *c);

/* 0 leaves a bound as it is.  */
void st_module_cache_set_limits (StModuleCache *c, guint max_modules,
                                 size_t max_bytes);
void st_module_cache_set_prepare (StModuleCache *c, StModulePrepare prepare,
                                  void *user_data);
void st_module_cache_set_finder (StModuleCache *c, StModuleFinder finder,
                                 void *user_data);

/* The module of MAP's file (opened on first use).  Never NULL; check
   ->elf for usability.  Borrowed: valid until the next call that may
   evict (get, acquire or release on this cache).  MAP's filename must be
   an interned GRefString, as in an address space (names are compared by
   address; the cache takes references of its own).  */
StModule *st_module_cache_get (StModuleCache *c, const StMap *map);

/* Like st_module_cache_get, but the module stays until released.  */
StModule *st_module_cache_acquire (StModuleCache *c, const StMap *map);
void st_module_cache_release (StModuleCache *c, StModule *module);

/* What identifies MODULE's file (its build-id, else its path and file
   identity): the same for every mapping of the same file, also after
   the module was evicted and opened again.  */
const char *st_module_identity (const StModule *module);

/* Asks the cache's finder for MODULE's KIND file (a newly allocated
   path), or NULL when there is no finder or it found nothing.  */
char *st_module_find_file (const StModule *module, StModuleFileKind kind);

/* Adds DELTA to the bytes MODULE accounts for (its tables grew).  */
void st_module_account (StModule *module, gssize delta);

/* The load bias of MODULE as mapped by MAP: runtime address minus ELF
   virtual address.  FALSE when MAP's file offset is in no PT_LOAD.  */
gboolean st_module_bias (const StModule *module, const StMap *map,
                         uint64_t *bias);

/* A new Elf handle on MODULE (its own reference), for libdwfl.  */
Elf *st_module_elf_ref (const StModule *module);

/* Reads LEN bytes of the file at file OFFSET.  */
gboolean st_module_read (const StModule *module, uint64_t offset, void *buf,
                         size_t len);

guint st_module_cache_size (StModuleCache *c);
size_t st_module_cache_bytes (StModuleCache *c);
guint64 st_module_cache_evictions (StModuleCache *c);

#endif /* ST_MODULE_CACHE_H */
