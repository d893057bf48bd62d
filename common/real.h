/* real.h - the one compile-time choice: floating-point precision.
 *
 * Every other algorithm option is a run-time flag; precision changes types, so it is chosen
 * when building (make builds both: build/double and build/float). float is what Rapaport's
 * GPU used; double is the reference precision for validation. */
#ifndef NBR_REAL_H
#define NBR_REAL_H

#ifdef NBR_FLOAT
typedef float real;
#define NBR_PRECISION "float"
#define REAL_EPS 1.1920929e-7
#else
typedef double real;
#define NBR_PRECISION "double"
#define REAL_EPS 2.220446049250313e-16
#endif

/* Functions shared by host C and CUDA device code (potentials, periodic images). */
#ifdef __CUDACC__
#define NBR_HD __host__ __device__ static inline
#else
#define NBR_HD static inline
#endif

typedef struct { real x, y, z; } vec3;

#endif
