/* What newer GLib has and Debian 12's 2.74 lacks.  */
#ifndef ST_GLIB_COMPAT_H
#define ST_GLIB_COMPAT_H

#include <glib.h>

/* The values of TABLE in a new GPtrArray (g_hash_table_get_values_as_ptr_array
   is GLib 2.76).  */
GPtrArray *st_hash_table_values (GHashTable *table);

#endif /* ST_GLIB_COMPAT_H */
