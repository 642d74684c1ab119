/* ELF files shared by every process that maps them: each file is opened
   and parsed once, keyed by build-id (or by path and inode when the
   stream gave no build-id).  */
#ifndef ST_MODULE_CACHE_H
#define ST_MODULE_CACHE_H

#include <gelf.h>
#include <glib.h>
#include <stdint.h>

#include "model/address-space.h"

typedef struct
{
  uint64_t vaddr;
  uint64_t offset;
  uint64_t filesz;
  uint64_t memsz;
} StLoadSegment;

typedef struct
{
  const char *name;        /* the path the stream named (GRefString) */
  char *path;              /* the file opened, NULL if none */
  const uint8_t *image;    /* an in-memory ELF instead of a file ([vdso]) */
  size_t image_size;
  Elf *elf;                /* NULL when unusable */
  int fd;
  int machine;             /* ELF e_machine */
  int elf_class;           /* ELFCLASS32/64 */
  uint8_t build_id[ST_BUILD_ID_MAX];
  uint8_t build_id_len;
  StLoadSegment *loads;
  guint n_loads;
  uint64_t low_vaddr;      /* first PT_LOAD vaddr, aligned down */
  uint64_t high_vaddr;     /* end of the last PT_LOAD */
  char *error;             /* why it is unusable */
} StModule;

typedef struct StModuleCache StModuleCache;

/* SYMFS, when not NULL, is searched first: SYMFS/PATH, then
   SYMFS/BASENAME.  */
StModuleCache *st_module_cache_new (const char *symfs);
void st_module_cache_free (StModuleCache *c);

/* The module of MAP's file (opened on first use).  Never NULL; check
   ->elf for usability.  */
StModule *st_module_cache_get (StModuleCache *c, const StMap *map);

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

#endif /* ST_MODULE_CACHE_H */
