/* dd_halo_nvshmem_absent.cu - --comm nvshmem where the Makefile found no NVSHMEM:
 * dd_halo_nvshmem.cu's traits (so every earlier refusal comes as it would with NVSHMEM), and a
 * setup that refuses. */
#include "dd_halo.cuh"

static const char *nvshmem_shared_gpu(int decide)
{
    return decide == DECIDE_DEVICE ? "--comm nvshmem --decide device needs one rank per GPU (NVSHMEM's on-stream "
                                     "max-reduce is not supported with several processes per GPU)"
                                   : NULL;
}

static void nvshmem_absent(Dd *)
{
    dd_fail(EXIT_INPUT, "--comm nvshmem: this gpu-dd was built without NVSHMEM (the Makefile said so; set "
                        "NVSHMEM_HOME): use --comm mpi, nccl or p2p");
}

const DdHalo dd_halo_nvshmem = {
    .name = "nvshmem",
    .compiled = 0,
    .host_steps = 0,
    .force_halo = 0,
    .shared_gpu = nvshmem_shared_gpu,
    .setup = nvshmem_absent,
};
