/* Escaping of names that come from the input (util/printable.c).

   Known answers written by hand from the rules in printable.h: C0
   controls and DEL become \xNN, the C1 range (U+0080..U+009F, two
   bytes in UTF-8) \uNNNN (\n, \t, \r by name), a backslash is doubled, every byte
   of invalid UTF-8 (stray continuation bytes, truncated and overlong
   sequences, surrogates, code points past U+10FFFF) becomes \xNN, and
   printable UTF-8 (accents, CJK, 4-byte emoji) stays as it is.  The
   result must always be valid UTF-8 without any control character, and
   a name of a megabyte must come out whole.  */
#include "config.h"

#include <glib.h>
#include <string.h>

#include "util/printable.h"

static void
check (const char *name, const char *expected)
{
  g_autofree char *out = st_printable (name);

  g_assert_cmpstr (out, ==, expected);
  g_assert_cmpint (st_printable_as_is (name), ==, strcmp (name, out) == 0);
}

static void
test_as_is (void)
{
  check ("", "");
  check ("main", "main");
  check ("std::vector<int>::push_back(int&&)", "std::vector<int>::push_back(int&&)");
  check ("/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6");
  /* é (2 bytes), 漢 (3), 😀 (4), U+00A0 (the first code point past C1).  */
  check ("caf\xc3\xa9 \xe6\xbc\xa2 \xf0\x9f\x98\x80 \xc2\xa0",
         "caf\xc3\xa9 \xe6\xbc\xa2 \xf0\x9f\x98\x80 \xc2\xa0");
  check ("~", "~");
}

static void
test_controls (void)
{
  check ("a\nb", "a\\nb");
  check ("\t\r", "\\t\\r");
  check ("\x01\x1b[31mred", "\\x01\\x1b[31mred");
  check ("\x1f", "\\x1f");
  check ("del\x7f", "del\\x7f");
  /* C1 controls: U+0085 (NEL) and U+009B (CSI), which some terminals
     act on; U+0080 and U+009F are the ends of the range.  */
  check ("\xc2\x85", "\\u0085");
  check ("x\xc2\x9b" "2J", "x\\u009b" "2J");
  check ("\xc2\x80\xc2\x9f", "\\u0080\\u009f");
  /* Not the same as the raw byte 0x85, which is not UTF-8.  */
  check ("\x85", "\\x85");
  check ("back\\slash", "back\\\\slash");
  check ("\\n", "\\\\n");
}

static void
test_invalid_utf8 (void)
{
  /* A stray continuation byte, a lone lead byte.  */
  check ("a\x80z", "a\\x80z");
  check ("\xff", "\\xff");
  /* A sequence cut short by the end, and by an ASCII byte.  */
  check ("x\xe6\xbc", "x\\xe6\\xbc");
  check ("\xe6\xbc" "A", "\\xe6\\xbc" "A");
  /* Overlong '/' (C0 AF), a surrogate (ED A0 80), past U+10FFFF
     (F4 90 80 80): invalid, byte by byte.  */
  check ("\xc0\xaf", "\\xc0\\xaf");
  check ("\xed\xa0\x80", "\\xed\\xa0\\x80");
  check ("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");
  /* Valid and invalid mixed: the valid parts stay.  */
  check ("\xc3\xa9\xff\xc3\xa9", "\xc3\xa9\\xff\xc3\xa9");
}

/* Whatever the bytes, the result is valid UTF-8 with no control
   character: every byte value after every other.  */
static void
test_every_pair (void)
{
  char name[3] = { 0 };

  for (guint a = 1; a < 256; a++)
    for (guint b = 0; b < 256; b++)
      {
        name[0] = (char) a;
        name[1] = (char) b;
        g_autofree char *out = st_printable (name);
        g_assert_true (g_utf8_validate (out, -1, NULL));
        for (const char *p = out; *p != '\0'; p = g_utf8_next_char (p))
          {
            gunichar c = g_utf8_get_char (p);
            g_assert_false (c < 0x20 || (c >= 0x7f && c <= 0x9f));
          }
      }
}

/* A megabyte name, all of it to escape (four bytes out per byte in),
   and one with nothing to escape.  */
static void
test_long (void)
{
  const gsize n = 1 << 20;
  char *name = g_malloc (n + 1);

  memset (name, '\n', n);
  name[n] = '\0';
  g_autofree char *out = st_printable (name);
  g_assert_cmpuint (strlen (out), ==, 2 * n);
  g_assert_true (g_str_has_suffix (out, "\\n\\n"));

  memset (name, '\xff', n);
  g_autofree char *bytes = st_printable (name);
  g_assert_cmpuint (strlen (bytes), ==, 4 * n);

  memset (name, 'a', n);
  g_assert_true (st_printable_as_is (name));
  g_autofree char *same = st_printable (name);
  g_assert_cmpuint (strlen (same), ==, n);
  g_free (name);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/printable/as-is", test_as_is);
  g_test_add_func ("/printable/controls", test_controls);
  g_test_add_func ("/printable/invalid-utf8", test_invalid_utf8);
  g_test_add_func ("/printable/every-pair", test_every_pair);
  g_test_add_func ("/printable/long", test_long);
  return g_test_run ();
}
