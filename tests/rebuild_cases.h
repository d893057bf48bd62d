/* rebuild_cases.h - crafted steps for the rebuild rule (kernels/rebuild_rule.h), read by its host
 * test (tests/test_core.c) and its device test (tests/test_components.cu): both must give these
 * answers, bit for bit. */
#ifndef NBR_REBUILD_CASES_H
#define NBR_REBUILD_CASES_H

typedef struct {
    double disp, vv, dt, threshold;
    int due;
    const char *what;
} RebuildCase;

/* 0x1.ddf9...p-4 + sqrt(0x1.e324...p+1) x 0.005 is 0x1.02e1cfb66351ap-3 rounded twice (a product,
 * then a sum) and ...351bp-3 fused into one multiply-add: the first case separates the two. */
static const RebuildCase rebuild_cases[] = {
    {0x1.ddf9a53071413p-4, 0x1.e32491e783296p+1, 0.005, 0x1.02e1cfb66351bp-3, 0,
     "a sum a fused multiply-add rounds up onto the threshold stays below it"},
    {0x1.ddf9a53071413p-4, 0x1.e32491e783296p+1, 0.005, 0x1.02e1cfb66351ap-3, 1,
     "the same sum exactly at the threshold rebuilds"},
    {0.25, 4.0, 0.125, 0.5, 1, "0.25 + 2 x 0.125 = 0.5 exactly: due at the threshold (>=)"},
    {0.25, 4.0, 0.125, 0x1.0000000000001p-1, 0, "one ulp below the threshold: not due"},
    {0.0, 0.0, 0.005, 0.15, 0, "atoms at rest: nothing moves"},
};
enum { REBUILD_NCASES = sizeof rebuild_cases / sizeof rebuild_cases[0] };

/* A run of steps whose largest v^2 grows: the step that first crosses 0.15, and the sum there. */
static inline double rebuild_run_vv(int k) { return 0.37 + 0.011 * k; }
enum { REBUILD_RUN_STEPS = 400 };

/* The hash of builds at steps 7, 19 and 40, from 0 (mod 2^64). */
static const long long rebuild_hash_steps[] = {7, 19, 40};
#define REBUILD_HASH_WANT 7000061000160ull

#endif
