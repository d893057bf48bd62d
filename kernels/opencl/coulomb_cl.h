/* coulomb_cl.h - the host side of the OpenCL Coulomb kernel (kernels/opencl/coulomb.cl):
 * built and linked into the coulomb program only where OpenCL headers and an ICD loader exist
 * (the Makefile defines NBR_OPENCL then). */
#ifndef NBR_COULOMB_CL_H
#define NBR_COULOMB_CL_H

#include "../../common/coulomb.h"

extern const CoulombImpl coulomb_opencl_impl;
/* The kernel source, embedded at build time from coulomb.cl. */
extern const char coulomb_cl_source[];

#endif
