/* The mappings of one process, as the stream's MAP/MMAP2 records (or
   /proc/PID/maps) describe them.  A new mapping replaces whatever it
   overlaps, as mmap(MAP_FIXED) does in the kernel.  */
#ifndef ST_ADDRESS_SPACE_H
#define ST_ADDRESS_SPACE_H

#include <glib.h>
#include <stdint.h>
#include <sys/mman.h>

#include "model/event.h"

typedef struct
{
  uint64_t start;
  uint64_t end;             /* exclusive */
  uint64_t pgoff;
  uint64_t inode;
  uint32_t dev_major;       /* the file's device, 0:0 when unknown */
  uint32_t dev_minor;
  int32_t pid;              /* the process mapping it, 0 when unknown:
                               where its own files may be looked for */
  /* In an address space: an interned, reference-counted string
     (GRefString), released with the mapping, so that names of files
     long unmapped do not pile up in an endless stream.  */
  const char *filename;
  uint32_t prot;
  gboolean exec_known;
  uint8_t build_id[ST_BUILD_ID_MAX];
  uint8_t build_id_len;
  /* What the file name says (StMapNameKind), ST_MAP_NAME_UNKNOWN until
     worked out: an address space works it out once per name it adds,
     as every listing of a process's modules asks again.  */
  uint8_t name_kind;
} StMap;

typedef enum
{
  ST_MAP_NAME_UNKNOWN = 0,
  ST_MAP_NAME_MODULE,       /* an ELF file's or the [vdso] */
  ST_MAP_NAME_OTHER,        /* anonymous memory, a jitdump file, ... */
} StMapNameKind;

typedef struct StAddressSpace StAddressSpace;

StAddressSpace *st_address_space_new (void);
StAddressSpace *st_address_space_copy (const StAddressSpace *as);
void st_address_space_free (StAddressSpace *as);

/* Adds a copy of MAP (with its own reference to the interned file name;
   MAP's may be any string), trimming or splitting the mappings it
   overlaps.  */
void st_address_space_add (StAddressSpace *as, const StMap *map);
void st_address_space_clear (StAddressSpace *as);

/* The mapping containing ADDR, or NULL.  */
const StMap *st_address_space_find (const StAddressSpace *as, uint64_t addr);

guint st_address_space_size (const StAddressSpace *as);
/* The bytes it holds (its mappings' array as allocated).  */
size_t st_address_space_bytes (const StAddressSpace *as);
/* What st_address_space_bytes depends on: the most mappings AS has
   held at once.  */
guint st_address_space_peak (const StAddressSpace *as);
/* The index of the first mapping that ends after ADDR (the size when
   none does): mappings from there on, in order, lie at or above ADDR.  */
guint st_address_space_first_ending_after (const StAddressSpace *as,
                                           uint64_t addr);
/* Mappings in ascending address order.  */
const StMap *st_address_space_get (const StAddressSpace *as, guint i);

/* Changes on every add/clear, so users can tell when to re-derive state.  */
uint64_t st_address_space_generation (const StAddressSpace *as);

/* Fills MAP from a MAP event; the file name is the event's (borrowed).  */
void st_map_from_event (StMap *map, const StEvent *ev);

/* Whether the mapping may hold code: executable, or of unknown
   protection and backed by a file.  */
static inline gboolean
st_map_maybe_code (const StMap *map)
{
  if (map->exec_known)
    return (map->prot & PROT_EXEC) != 0;
  return map->filename[0] != '\0';
}

/* What MAP's file name says, worked out from the name (whatever
   MAP's name_kind holds: this is how it is filled).  */
StMapNameKind st_map_name_kind (const StMap *map);

/* Whether the mapping is code of an ELF file (or the [vdso]): a module
   of the process.  Anonymous memory and jitdump files are not.
   (Inline: asked of every mapping whenever a process's modules are
   listed.)  */
static inline gboolean
st_map_is_module (const StMap *map)
{
  StMapNameKind kind = map->name_kind != ST_MAP_NAME_UNKNOWN
                       ? (StMapNameKind) map->name_kind
                       : st_map_name_kind (map);

  return kind == ST_MAP_NAME_MODULE && st_map_maybe_code (map);
}

/* Whether the mapping holds memory of no file one could look for:
   anonymous memory however the recorder names it (perf's "//anon" and
   "/anon_hugepage", "[anon:NAME]" of prctl, "[heap]", "[stack]", no
   name), memfd and shared-memory objects ("/memfd:NAME (deleted)",
   "/SYSV...", "/dev/zero (deleted)") and the kernel's own pages
   ("[vvar]", "[vsyscall]", "[uprobes]").  Executable, it is JIT or
   other generated code.  */
gboolean st_map_is_anonymous (const StMap *map);

/* Whether the mapping is a jitdump file ("jit-PID.dump", which a JIT
   maps so that the recorder records where it is): names of JIT code,
   not code.  */
gboolean st_map_is_jitdump (const StMap *map);
/* The part of FILENAME after its last '/'.  */
const char *st_map_basename (const char *filename);
/* st_map_is_jitdump of a name already cut to its BASE.  */
gboolean st_map_base_is_jitdump (const char *base);

/* Reads /proc/PID/maps into AS (file-backed mappings only).  FALSE if the
   process is not there.  */
gboolean st_address_space_load_proc (StAddressSpace *as, int32_t pid);

#endif /* ST_ADDRESS_SPACE_H */
