/* coulomb.cuh - the thesis's tiled Coulomb energy in CUDA (kernels/cuda/coulomb.cu): the same
 * algorithm as kernels/opencl/coulomb.cl, the unroll factor, accumulation mode and sweep as
 * template parameters (one instantiation each, no copies). Linked into coulomb-cuda only. */
#ifndef NBR_COULOMB_CUH
#define NBR_COULOMB_CUH

#include "../../common/coulomb.h"

extern const CoulombImpl coulomb_cuda_impl;

#endif
