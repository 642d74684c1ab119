/* First-sight pins lent by the pipeline's module cache to the workers'
   caches (--jobs).

   A module's pins (file-resolver.h) are its process's own files, opened
   when the pipeline's thread first sees the mapping, while the process
   may still be there.  A worker's cache meets the module later, at the
   first walk in it, when the process may have ended and its file been
   deleted or replaced: it would find another file, or none, and walk
   otherwise than the pipeline's thread would.  So the pipeline's cache
   puts copies of its pins on the shelf, under what the stream recorded
   of the mapping (the module cache's key may say whether a local file
   is there, which changes), and a worker's cache that makes a module
   from such a mapping takes copies instead of opening its own: both
   then read the same files.

   Bounds: an entry goes once every taker has taken it (a taker takes
   an entry once); past MAX_ENTRIES the oldest goes, its descriptors
   closed (that module's worker then opens its own pins, as without a
   shelf).  Thread-safe: every function takes the shelf's lock.  */
#ifndef ST_PIN_SHELF_H
#define ST_PIN_SHELF_H

#include <glib.h>

#include "model/file-resolver.h"

/* Takers at most (one bit each).  */
#define ST_PIN_SHELF_MAX_TAKERS 64

typedef struct StPinShelf StPinShelf;

/* For N_TAKERS takers, numbered from 0 (at most ST_PIN_SHELF_MAX_TAKERS),
   at most MAX_ENTRIES modules' pins held.  */
StPinShelf *st_pin_shelf_new (guint n_takers, guint max_entries);
void st_pin_shelf_free (StPinShelf *s);

/* Copies of the descriptors of PINS, under KEY (nothing when KEY is
   there already, or PINS holds none).  */
void st_pin_shelf_put (StPinShelf *s, const char *key, const StFilePins *pins);
/* Copies of KEY's pins into *PINS, for TAKER: FALSE (and *PINS none)
   when there are none, or TAKER took them before.  */
gboolean st_pin_shelf_take (StPinShelf *s, const char *key, guint taker,
                            StFilePins *pins);
/* Modules' pins held.  */
guint st_pin_shelf_size (StPinShelf *s);

#endif /* ST_PIN_SHELF_H */
