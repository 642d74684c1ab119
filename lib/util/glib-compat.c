#include "config.h"

#include "util/glib-compat.h"

GPtrArray *
st_hash_table_values (GHashTable *table)
{
  GPtrArray *values = g_ptr_array_sized_new (g_hash_table_size (table));
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, table);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (values, value);
  return values;
}
