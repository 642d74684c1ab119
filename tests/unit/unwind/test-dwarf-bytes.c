/* The numbers of call frame information (unwind/dwarf-bytes.h), against
   values computed by hand from the formats: the LEB128 examples of the
   DWARF 5 standard (section 7.6, tables 7.7 and 7.8) and the limits of
   this reader (63 bits, what is longer is left to libdw); fixed
   little-endian fields; the LSB's DW_EH_PE_* pointer encodings
   (absolute, pc-relative, datarel; 2, 4 and 8 bytes signed and
   unsigned, LEB128), and those it refuses (indirect, omit, textrel,
   funcrel, aligned, unknown formats).  Every read must stop at the end
   of its data, leave the position where it was when it fails and
   advance it by exactly what it read otherwise.  */
#include "config.h"

#include <glib.h>
#include <stdint.h>

#include "unwind/dwarf-bytes.h"

typedef gboolean (*LebReader) (const uint8_t **pp, const uint8_t *end,
                               uint64_t *out);

static gboolean
read_leb_unsigned (const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
  return st_read_leb (pp, end, out, FALSE);
}

static gboolean
read_leb_signed (const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
  return st_read_leb (pp, end, out, TRUE);
}

typedef struct
{
  uint8_t bytes[12];
  unsigned len;
  uint64_t value;
} Leb;

/* Reads every case of CASES with READ: the value, and the whole
   encoding consumed, with a byte after it that must stay unread.  */
static void
check_lebs (LebReader read, const Leb *cases, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      uint8_t buf[16];
      const uint8_t *p = buf;
      uint64_t v = 0xdeadbeef;

      memcpy (buf, cases[i].bytes, cases[i].len);
      buf[cases[i].len] = 0x55;
      g_assert_true (read (&p, buf + cases[i].len + 1, &v));
      g_assert_cmphex (v, ==, cases[i].value);
      g_assert_true (p == buf + cases[i].len);
    }
}

/* Fails leaving the position alone: BYTES cut short, or too long.  */
static void
check_leb_refused (LebReader read, const uint8_t *bytes, unsigned len)
{
  const uint8_t *p = bytes;
  uint64_t v;

  g_assert_false (read (&p, bytes + len, &v));
  g_assert_true (p == bytes);
}

/* DWARF 5, table 7.7, and the limits.  */
static const Leb uleb_cases[] = {
  { { 0x00 }, 1, 0 },
  { { 0x02 }, 1, 2 },
  { { 0x7f }, 1, 127 },
  { { 0x80, 0x01 }, 2, 128 },
  { { 0x81, 0x01 }, 2, 129 },
  { { 0x82, 0x01 }, 2, 130 },
  { { 0xb9, 0x64 }, 2, 12857 },
  { { 0xe5, 0x8e, 0x26 }, 3, 624485 },
  /* Padded with redundant high groups: still the same number.  */
  { { 0x80, 0x80, 0x00 }, 3, 0 },
  { { 0xff, 0x80, 0x80, 0x00 }, 4, 0x7f },
  /* 32 bits set, 63 bits set (nine bytes: the longest read here).  */
  { { 0xff, 0xff, 0xff, 0xff, 0x0f }, 5, 0xffffffffu },
  { { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f }, 9,
    G_MAXINT64 },
  { { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40 }, 9,
    (uint64_t) 1 << 62 },
};

/* DWARF 5, table 7.8, and the limits.  */
static const Leb sleb_cases[] = {
  { { 0x00 }, 1, 0 },
  { { 0x02 }, 1, 2 },
  { { 0x7e }, 1, (uint64_t) -2 },
  { { 0xff, 0x00 }, 2, 127 },
  { { 0x81, 0x7f }, 2, (uint64_t) -127 },
  { { 0x80, 0x01 }, 2, 128 },
  { { 0x80, 0x7f }, 2, (uint64_t) -128 },
  { { 0x81, 0x01 }, 2, 129 },
  { { 0xff, 0x7e }, 2, (uint64_t) -129 },
  /* The one-byte extremes: 63 and -64 (sign bit 0x40).  */
  { { 0x3f }, 1, 63 },
  { { 0x40 }, 1, (uint64_t) -64 },
  { { 0x7f }, 1, (uint64_t) -1 },
  { { 0xc0, 0x00 }, 2, 64 },
  { { 0xbf, 0x7f }, 2, (uint64_t) -65 },
  /* -1 padded with redundant groups.  */
  { { 0xff, 0xff, 0x7f }, 3, (uint64_t) -1 },
  /* Nine bytes: 63 bits, the sign bit is bit 62.  */
  { { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x3f }, 9,
    ((uint64_t) 1 << 62) - 1 },
  { { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40 }, 9,
    (uint64_t) -((int64_t) 1 << 62) },
};

static void
test_uleb (void)
{
  check_lebs (st_read_uleb, uleb_cases, G_N_ELEMENTS (uleb_cases));
  check_lebs (read_leb_unsigned, uleb_cases, G_N_ELEMENTS (uleb_cases));
}

static void
test_sleb (void)
{
  check_lebs (st_read_sleb, sleb_cases, G_N_ELEMENTS (sleb_cases));
  check_lebs (read_leb_signed, sleb_cases, G_N_ELEMENTS (sleb_cases));
}

/* An unsigned reader sees 0x40 as a number, a signed one as -64: the
   same bytes, both readers, both paths (one byte, and more).  */
static void
test_sign_bit (void)
{
  static const uint8_t one[] = { 0x40 }, two[] = { 0xc0, 0x00 };
  const uint8_t *p;
  uint64_t v;

  p = one;
  g_assert_true (st_read_uleb (&p, one + 1, &v));
  g_assert_cmpuint (v, ==, 64);
  p = one;
  g_assert_true (st_read_sleb (&p, one + 1, &v));
  g_assert_cmpint ((int64_t) v, ==, -64);
  p = two;
  g_assert_true (st_read_uleb (&p, two + 2, &v));
  g_assert_cmpuint (v, ==, 64);
  p = two;
  g_assert_true (st_read_sleb (&p, two + 2, &v));
  g_assert_cmpint ((int64_t) v, ==, 64);
}

/* Cut short (the end falls inside the number, or at its start), and
   longer than nine bytes (left to libdw): FALSE, nothing consumed.  */
static void
test_leb_refused (void)
{
  static const uint8_t cut[] = { 0x80, 0x80, 0x80 };
  static const uint8_t ten[] = {
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01,
  };
  static const uint8_t ten_max[] = {
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
  };
  /* INT64_MIN needs ten bytes as a signed number.  */
  static const uint8_t int64_min[] = {
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f,
  };
  static const uint8_t single[] = { 0x05 };
  static const LebReader readers[] = {
    st_read_uleb, st_read_sleb, read_leb_unsigned, read_leb_signed,
  };

  for (guint i = 0; i < G_N_ELEMENTS (readers); i++)
    {
      check_leb_refused (readers[i], cut, sizeof cut);
      check_leb_refused (readers[i], cut, 1);
      check_leb_refused (readers[i], single, 0);
      check_leb_refused (readers[i], ten, sizeof ten);
      check_leb_refused (readers[i], ten_max, sizeof ten_max);
      check_leb_refused (readers[i], int64_min, sizeof int64_min);
    }
  /* A number ending exactly at the end is read.  */
  static const uint8_t last[] = { 0x80, 0x01 };
  const uint8_t *p = last;
  uint64_t v = 0;

  g_assert_true (st_read_uleb (&p, last + 2, &v));
  g_assert_cmpuint (v, ==, 128);
  g_assert_true (p == last + 2);
}

static void
test_fixed (void)
{
  /* Nine bytes of data, and one beyond END never to be read.  */
  static const uint8_t b[] = {
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x88, 0x99, 0xaa,
  };
  const uint8_t *end = b + 9;
  const uint8_t *p;
  uint64_t v = 0;

  p = b;
  g_assert_true (st_read_fixed (&p, end, 1, &v));
  g_assert_cmphex (v, ==, 0x01);
  g_assert_true (st_read_fixed (&p, end, 2, &v));
  g_assert_cmphex (v, ==, 0x0302);
  g_assert_true (st_read_fixed (&p, end, 4, &v));
  g_assert_cmphex (v, ==, 0x07060504);
  g_assert_true (p == b + 7);
  /* Two bytes left: a 4-byte field does not fit, a 2-byte one does.  */
  g_assert_false (st_read_fixed (&p, end, 4, &v));
  g_assert_true (p == b + 7);
  g_assert_true (st_read_fixed (&p, end, 2, &v));
  g_assert_cmphex (v, ==, 0x9988);
  g_assert_false (st_read_fixed (&p, end, 1, &v));

  p = b;
  g_assert_true (st_read_fixed (&p, b + 8, 8, &v));
  g_assert_cmphex (v, ==, 0x8807060504030201ull);
  p = b;
  g_assert_false (st_read_fixed (&p, b + 7, 8, &v));
  g_assert_true (p == b);
  /* Zero bytes: zero, nothing consumed, even at the end.  */
  p = b + 8;
  g_assert_true (st_read_fixed (&p, b + 8, 0, &v));
  g_assert_cmpuint (v, ==, 0);
  g_assert_true (p == b + 8);
}

typedef struct
{
  uint8_t enc;
  uint8_t bytes[10];
  unsigned len;         /* of BYTES, all consumed */
  uint64_t vaddr;       /* of BYTES */
  uint64_t datarel;
  uint64_t want;
} Encoded;

#define PCREL ST_PE_PCREL
#define DATAREL ST_PE_DATAREL

/* The LSB's encodings, hand-computed.  */
static const Encoded encoded_cases[] = {
  /* What linkers write in FDEs: pc-relative, signed 4 bytes.  */
  { PCREL | ST_PE_SDATA4, { 0xf0, 0xff, 0xff, 0xff }, 4, 0x1000, 0, 0xff0 },
  { PCREL | ST_PE_SDATA4, { 0x10, 0, 0, 0 }, 4, 0x1000, 0, 0x1010 },
  { PCREL | ST_PE_SDATA4, { 0, 0, 0, 0x80 }, 4, 0x80000000u, 0, 0 },
  /* Before address 0: modulo 2^64.  */
  { PCREL | ST_PE_SDATA4, { 0xfc, 0xff, 0xff, 0xff }, 4, 0, 0,
    (uint64_t) -4 },
  /* Absolute: 8 bytes (absptr), each size signed and unsigned.  */
  { ST_PE_ABSPTR, { 1, 2, 3, 4, 5, 6, 7, 8 }, 8, 0x1000, 0,
    0x0807060504030201ull },
  { ST_PE_UDATA2, { 0xff, 0xff }, 2, 0x1000, 0, 0xffff },
  { ST_PE_SDATA2, { 0xff, 0xff }, 2, 0x1000, 0, (uint64_t) -1 },
  { ST_PE_SDATA2, { 0xff, 0x7f }, 2, 0x1000, 0, 0x7fff },
  { ST_PE_SDATA2, { 0x00, 0x80 }, 2, 0x1000, 0, (uint64_t) -32768 },
  { ST_PE_UDATA4, { 0xfe, 0xff, 0xff, 0xff }, 4, 0x1000, 0, 0xfffffffeu },
  { ST_PE_SDATA4, { 0xfe, 0xff, 0xff, 0xff }, 4, 0x1000, 0,
    (uint64_t) -2 },
  { ST_PE_UDATA8, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, 8,
    0x1000, 0, G_MAXUINT64 },
  { ST_PE_SDATA8, { 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, 8,
    0x1000, 0, (uint64_t) -2 },
  { ST_PE_ULEB128, { 0xe5, 0x8e, 0x26 }, 3, 0x1000, 0, 624485 },
  { ST_PE_SLEB128, { 0x80, 0x7f }, 2, 0x1000, 0, (uint64_t) -128 },
  /* pc-relative, other sizes.  */
  { PCREL | ST_PE_UDATA2, { 0xff, 0xff }, 2, 0x1000, 0, 0x1000 + 0xffff },
  { PCREL | ST_PE_SDATA2, { 0xfe, 0xff }, 2, 0x1000, 0, 0xffe },
  { PCREL | ST_PE_UDATA4, { 0xf0, 0xff, 0xff, 0xff }, 4, 0x1000, 0,
    0x1000 + 0xfffffff0ull },
  { PCREL | ST_PE_SDATA8, { 0xf0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
    8, 0x1000, 0, 0xff0 },
  { PCREL | ST_PE_ABSPTR, { 8, 0, 0, 0, 0, 0, 0, 0 }, 8, 0x1000, 0,
    0x1008 },
  { PCREL | ST_PE_SLEB128, { 0x70 }, 1, 0x1000, 0, 0xff0 },
  { PCREL | ST_PE_ULEB128, { 0x80, 0x01 }, 2, 0x1000, 0, 0x1080 },
  /* datarel: from the base given (the .eh_frame_hdr's address).  */
  { DATAREL | ST_PE_SDATA4, { 0xf0, 0xff, 0xff, 0xff }, 4, 0x1000, 0x5000,
    0x4ff0 },
  { DATAREL | ST_PE_UDATA4, { 0x10, 0, 0, 0 }, 4, 0x1000, 0x5000, 0x5010 },
  { DATAREL | ST_PE_SDATA2, { 0xfe, 0xff }, 2, 0x1000, 0x5000, 0x4ffe },
};

static void
test_encoded (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (encoded_cases); i++)
    {
      const Encoded *c = &encoded_cases[i];
      uint8_t buf[16];
      const uint8_t *p = buf;
      uint64_t v = 0xdeadbeef;

      memcpy (buf, c->bytes, c->len);
      buf[c->len] = 0x55;
      if (!st_read_encoded (&p, buf + c->len + 1, c->enc, c->vaddr,
                            c->datarel, &v))
        g_error ("case %u (encoding %#x): refused", i, c->enc);
      if (v != c->want)
        g_error ("case %u (encoding %#x): %#" G_GINT64_MODIFIER "x, want %#"
                 G_GINT64_MODIFIER "x", i, c->enc, v, c->want);
      g_assert_true (p == buf + c->len);
    }
}

/* Every encoding of the table cut one byte short: FALSE, nothing
   consumed.  */
static void
test_encoded_truncated (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (encoded_cases); i++)
    {
      const Encoded *c = &encoded_cases[i];
      const uint8_t *p = c->bytes;
      uint64_t v;

      for (unsigned len = 0; len < c->len; len++)
        {
          g_assert_false (st_read_encoded (&p, c->bytes + len, c->enc,
                                           c->vaddr, c->datarel, &v));
          g_assert_true (p == c->bytes);
        }
    }
}

/* What linkers do not write in .eh_frame's FDEs and this reader leaves
   alone: indirect pointers (0x80, the personality's), DW_EH_PE_omit,
   textrel (0x20), funcrel (0x40), aligned (0x50), formats 0x05-0x08 and
   0x0d-0x0f, and datarel without a base.  */
static void
test_encoded_refused (void)
{
  static const uint8_t refused[] = {
    0x80 | PCREL | ST_PE_SDATA4, 0x80 | ST_PE_UDATA8, 0x80, 0xff,
    0x20 | ST_PE_SDATA4, 0x40 | ST_PE_SDATA4, 0x50, 0x50 | ST_PE_UDATA8,
    0x05, 0x06, 0x07, 0x08, 0x0d, 0x0e, 0x0f, PCREL | 0x05,
    DATAREL | ST_PE_SDATA4,
  };
  static const uint8_t bytes[16] = { 0 };

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      const uint8_t *p = bytes;
      uint64_t v;
      if (st_read_encoded (&p, bytes + sizeof bytes, refused[i], 0x1000, 0,
                           &v))
        g_error ("encoding %#x: read", refused[i]);
      g_assert_true (p == bytes);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/dwarf-bytes/uleb", test_uleb);
  g_test_add_func ("/dwarf-bytes/sleb", test_sleb);
  g_test_add_func ("/dwarf-bytes/sign-bit", test_sign_bit);
  g_test_add_func ("/dwarf-bytes/leb-refused", test_leb_refused);
  g_test_add_func ("/dwarf-bytes/fixed", test_fixed);
  g_test_add_func ("/dwarf-bytes/encoded", test_encoded);
  g_test_add_func ("/dwarf-bytes/encoded-truncated", test_encoded_truncated);
  g_test_add_func ("/dwarf-bytes/encoded-refused", test_encoded_refused);
  return g_test_run ();
}
