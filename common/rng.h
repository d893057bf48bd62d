/* rng.h - a small seeded generator of our own (splitmix64 seeding xoshiro256**), so that
 * initial states are identical across compilers, libraries and machines. */
#ifndef NBR_RNG_H
#define NBR_RNG_H

#include <stdint.h>

typedef struct { uint64_t s[4]; } Rng;

void rng_seed(Rng *g, uint64_t seed);
uint64_t rng_next(Rng *g);
double rng_uniform(Rng *g);   /* [0, 1) with 53 random bits */

#endif
