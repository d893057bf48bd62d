/* comp_reduce.cuh - group "reduce" of test-components: the warp and block reductions of every GPU
 * program (reduce.cuh: warp_reduce, block_reduce with SumOp and MaxOp) in a kernel that reduces
 * each block's values twice in a row, the sum then the maximum (as the force and integration
 * kernels call block_reduce repeatedly), against the host's per-block sums and maxima, exactly:
 * the values are multiples of 1/4 below 2^12 in magnitude, so every order of summation gives the
 * same sum in double and in float. Types as the programs use them: double (energies, v^2, the
 * virial), unsigned long long (the list's N_p) and int (N_l, the largest m_i), and `real`.
 *
 * Inputs: random values with both signs; all negative (a maximum below the identity 0 of the
 * programs' calls, so here the identity is the type's lowest); a single non-zero lane (the last of
 * a warp, the last of the block, the first); sizes that are not multiples of the warp or the block
 * (the identity past the last value); blocks of 32, 64, 96, 128, 256 and 1024 threads. */

template <class T>
__global__ void reduce_kernel(const T *x, int n, T sum_id, T max_id, T *sums, T *maxes, T *warp_sums)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const T v = i < n ? x[i] : sum_id;
    const T w = i < n ? x[i] : max_id;
    const T ws = warp_reduce(v, SumOp());
    if ((threadIdx.x & 31) == 0) warp_sums[i >> 5] = ws;
    const T s = block_reduce(v, SumOp(), sum_id);
    const T m = block_reduce(w, MaxOp(), max_id);
    if (threadIdx.x == 0) {
        sums[blockIdx.x] = s;
        maxes[blockIdx.x] = m;
    }
}

template <class T>
static const char *type_name(void)
{
    return std::is_same<T, double>::value ? "double" : std::is_same<T, float>::value ? "float"
         : std::is_same<T, int>::value    ? "int"
                                          : "unsigned long long";
}

template <class T>
static double as_double(T x) { return (double)x; }

template <class T>
static void reduce_case(const char *what, const std::vector<T> &x, int threads, T max_id)
{
    char line[400];
    const int n = (int)x.size(), blocks = blocks_for(n, threads), nwarps = blocks * threads / 32;
    const T zero = 0;
    T *d_x = to_device(x);
    T *d_sums = to_device(std::vector<T>(blocks)), *d_maxes = to_device(std::vector<T>(blocks));
    T *d_warps = to_device(std::vector<T>(nwarps));
    reduce_kernel<T><<<blocks, threads>>>(d_x, n, zero, max_id, d_sums, d_maxes, d_warps);
    const std::vector<T> sums = from_device(d_sums, blocks, "reduce_kernel");
    const std::vector<T> maxes = from_device(d_maxes, blocks, "reduce_kernel");
    const std::vector<T> warps = from_device(d_warps, nwarps, "reduce_kernel");
    cudaFree(d_x); cudaFree(d_sums); cudaFree(d_maxes); cudaFree(d_warps);

    /* the host: each block's (and warp's) values in order, the identity past the last */
    const char *bad = NULL;
    int where = -1;
    T got = 0, want = 0;
    for (int w = 0; w < nwarps && !bad; w++) {
        T s = 0;
        for (int k = 32 * w; k < 32 * w + 32 && k < n; k++) s += x[k];
        if (warps[w] != s) { bad = "warp sum"; where = w; got = warps[w]; want = s; }
    }
    for (int b = 0; b < blocks && !bad; b++) {
        T s = 0, m = max_id;
        for (int k = b * threads; k < (b + 1) * threads && k < n; k++) {
            s += x[k];
            m = x[k] > m ? x[k] : m;
        }
        if (sums[b] != s) { bad = "block sum"; where = b; got = sums[b]; want = s; }
        else if (maxes[b] != m) { bad = "block maximum"; where = b; got = maxes[b]; want = m; }
    }
    if (bad)
        snprintf(line, sizeof line, "reduce %s, %s, %d values, blocks of %d: %s %d is %.17g on the device, %.17g on the host",
                 type_name<T>(), what, n, threads, bad, where, as_double(got), as_double(want));
    else
        snprintf(line, sizeof line, "reduce %s, %s, %d values, blocks of %d: %d block sums and maxima, %d warp sums as on the host",
                 type_name<T>(), what, n, threads, blocks, nwarps);
    expect(!bad, line);
}

/* n values k / 4 (k uniform in [-4096, 4096), or in [0, 8192) where !signed_) as T */
template <class T>
static std::vector<T> reduce_values(Rng &g, int n, bool signed_, double scale)
{
    std::vector<T> x(n);
    for (int i = 0; i < n; i++) x[i] = (T)((double)(g.below(8192) - (signed_ ? 4096 : 0)) * scale);
    return x;
}

template <class T>
static void reduce_type(T lowest, bool signed_, double scale, uint64_t seed)
{
    Rng g = {seed};
    const int sizes[][2] = {{1000, 128}, {37, 32}, {1, 64}, {3067, 1024}, {100, 96}, {4096, 256}, {65, 64}};
    for (const auto &sz : sizes) reduce_case<T>("random", reduce_values<T>(g, sz[0], signed_, scale), sz[1], lowest);
    if (signed_) {
        std::vector<T> x = reduce_values<T>(g, 777, true, scale);
        for (T &v : x) v = v > 0 ? -v : (v == 0 ? (T)-1 : v);
        reduce_case<T>("all negative", x, 256, lowest);
    }
    const int lanes[] = {31, 255, 0, 32, 200};   /* the last of a warp, of the block, the first, ... */
    for (int lane : lanes) {
        std::vector<T> x(256, (T)0);
        x[lane] = (T)(signed_ ? -3 : 3);
        char what[60];
        snprintf(what, sizeof what, "only value %d non-zero", lane);
        reduce_case<T>(what, x, 256, lowest);
        x[lane] = (T)7;
        snprintf(what, sizeof what, "only value %d non-zero, positive", lane);
        reduce_case<T>(what, x, 256, lowest);
    }
}

static void test_reduce(void)
{
    reduce_type<double>(-INFINITY, true, 0.25, 31);
    reduce_type<real>(-(real)INFINITY, true, 0.25, 32);
    reduce_type<int>(INT_MIN, true, 1, 33);
    reduce_type<unsigned long long>(0ull, false, 1, 34);
}
