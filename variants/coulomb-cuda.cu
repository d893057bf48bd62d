/* coulomb-cuda - the electrostatic energy of a molecular system (Sirny 2010) in CUDA: the
 * thesis's tiled kernel (kernels/cuda/coulomb.cu), with the C reference (--impl ref) beside it
 * for the exact answer. Same options, input, reference and CSV as coulomb (common/coulomb.c). */
#include "../kernels/cuda/coulomb.cuh"
#include "../kernels/cpu/coulomb_ref.h"

int main(int argc, char **argv)
{
    CoulombProgram prog = {};
    prog.name = "coulomb-cuda";
    prog.summary = "Coulomb energy sum_{i<j} 332.0636 q_i q_j / r_ij: the thesis's tiled kernel in CUDA";
    prog.impl[CIMPL_REF] = &coulomb_ref_impl;
    prog.impl[CIMPL_CUDA] = &coulomb_cuda_impl;
    prog.missing[CIMPL_OPENCL] = "the OpenCL version is the program coulomb";
    prog.default_impl = CIMPL_CUDA;
    prog.exact = coulomb_ref_exact;
    prog.spread = coulomb_ref_rounding_spread;
    return coulomb_main(argc, argv, &prog);
}
