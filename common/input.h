/* input.h - charge systems for the Coulomb programs: read (PQR, "x y z q" text), generated
 * (a TIP3P-like water box, random charges) and written back as "x y z q".
 *
 * Readers take the whole file or nothing: a malformed line stops the program with one line
 * naming the file and the line (exit 2). */
#ifndef NBR_INPUT_H
#define NBR_INPUT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    long n;
    double *x, *y, *z, *q;   /* positions in Angstrom, charges in e */
    char name[160];          /* the input's name for reports: file name, water-N, random-N */
} ChargeSystem;

typedef enum { FORMAT_AUTO, FORMAT_PQR, FORMAT_XYZQ } InputFormat;
extern const char *const format_names[];

/* TIP3P-like water: O -0.834 e, H +0.417 e, O-H 0.9572 A, H-O-H 104.52 degrees. */
#define WATER_Q_O (-0.834)
#define WATER_Q_H 0.417
#define WATER_OH 0.9572
#define WATER_HOH_DEG 104.52
#define WATER_DENSITY 0.0334     /* molecules per cubic Angstrom (liquid water, 1 g/cm^3) */

/* FORMAT_AUTO: .pqr (any case) is PQR, anything else "x y z q". A name ending in .gz or .xz is
 * read through gzip -dc / xz -dc (the format from the name without it: x.pqr.gz is PQR); a
 * corrupt or truncated archive stops the program like a malformed line. */
void input_read(ChargeSystem *s, const char *path, int format);
/* n atoms = n/3 molecules (n must be a multiple of 3) on a simple cubic lattice of spacing
 * (1/WATER_DENSITY)^(1/3) filled in x, y, z order (the last layers partly), each molecule
 * with O on its site and a uniformly random orientation. */
void input_water(ChargeSystem *s, long n, uint64_t seed);
/* n atoms uniform in a cube at 0.1 atoms/A^3, charges uniform in [-1, 1] shifted to a neutral total. */
void input_random(ChargeSystem *s, long n, uint64_t seed);
/* "x y z q" lines, round-trip exact; exit 2 if the file cannot be written. */
void input_write_xyzq(const ChargeSystem *s, const char *path);
void input_free(ChargeSystem *s);

#ifdef __cplusplus
}
#endif
#endif
