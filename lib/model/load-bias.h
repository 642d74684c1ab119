/* Where a mapping puts a module's ELF addresses: its load bias (runtime
   address minus ELF virtual address).

   A mapping says only which file pages sit at which addresses.  The
   PT_LOAD segment it maps is the one whose bytes lie in those pages --
   but linkers pack segments into shared pages (lld and mold start the
   executable segment in the page where the read-only one ends; gold
   and bfd's -z noseparate-code put headers and code in one page), so
   several segments can qualify, each implying another bias.  The
   choice, in order: a segment whose PF_X agrees with the mapping's
   protection when the stream recorded it; bias 0 for an ET_EXEC file;
   the bias the other mappings of the same file in the address space
   agree with (a Sysprof capture records no protection, but does record
   the read-only mapping beside the executable one); then the executable
   segment, the one a code mapping most likely holds; then the segment
   with the most bytes in the mapping.  */
#ifndef ST_LOAD_BIAS_H
#define ST_LOAD_BIAS_H

#include <glib.h>
#include <stdint.h>

#include "model/address-space.h"
#include "model/module-cache.h"

/* The load bias of MODULE as mapped by MAP, one of the mappings of AS
   (NULL: MAP alone decides).  FALSE when MAP holds no byte of any
   PT_LOAD segment.  */
gboolean st_load_bias (const StModule *module, const StMap *map,
                       const StAddressSpace *as, uint64_t *bias);

#endif /* ST_LOAD_BIAS_H */
