/* coulomb - the electrostatic energy of a molecular system (Sirny 2010): the C reference
 * (OpenMP) and, where OpenCL was found at build time, the thesis's tiled kernel in OpenCL.
 * Not an MD loop: one energy, evaluated --reps times and timed (common/coulomb.c). The CUDA
 * version is coulomb-cuda. */
#include "../common/coulomb.h"
#include "../kernels/cpu/coulomb_ref.h"
#ifdef NBR_OPENCL
#include "../kernels/opencl/coulomb_cl.h"
#endif
/* why --impl opencl is absent: switched off (make WITH_OPENCL=0), or not found at build time */
#ifdef NBR_OPENCL_OFF
#define NO_OPENCL "built without OpenCL (switched off by make WITH_OPENCL=0: make without it)"
#else
#define NO_OPENCL "built without OpenCL (no CL/cl.h or libOpenCL at build time: install ocl-icd-opencl-dev " \
                  "opencl-headers, and an ICD such as pocl-opencl-icd, then make)"
#endif

int main(int argc, char **argv)
{
    static const CoulombProgram prog = {
        .name = "coulomb",
        .summary = "Coulomb energy sum_{i<j} 332.0636 q_i q_j / r_ij: C reference (OpenMP) and, where built "
                   "with OpenCL, the thesis's tiled kernel in OpenCL (--help's last lines say which are built in)",
        .impl = {[CIMPL_REF] = &coulomb_ref_impl,
#ifdef NBR_OPENCL
                 [CIMPL_OPENCL] = &coulomb_opencl_impl,
#endif
                },
        .missing = {[CIMPL_OPENCL] = NO_OPENCL,
                    [CIMPL_CUDA] = "the CUDA version is the program coulomb-cuda"},
        .default_impl = CIMPL_REF,
        .exact = coulomb_ref_exact,
        .spread = coulomb_ref_rounding_spread,
    };
    return coulomb_main(argc, argv, &prog);
}
