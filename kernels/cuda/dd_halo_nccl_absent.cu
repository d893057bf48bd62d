/* dd_halo_nccl_absent.cu - --comm nccl where the Makefile found no nccl.h: dd_halo_nccl.cu's
 * traits (so every earlier refusal comes as it would with NCCL), and a setup that refuses. */
#include "dd_halo.cuh"

static const char *nccl_shared_gpu(int)
{
    return "--comm nccl needs one rank per GPU (NCCL does not allow two ranks of a communicator on one GPU)";
}

static void nccl_absent(Dd *)
{
    dd_fail(EXIT_INTERNAL, "--comm nccl: this gpu-dd was built without nccl.h (the Makefile said so): use --comm mpi or p2p");
}

const DdHalo dd_halo_nccl = {
    .name = "nccl",
    .compiled = 0,
    .host_steps = 0,
    .force_halo = 1,
    .shared_gpu = nccl_shared_gpu,
    .setup = nccl_absent,
};
