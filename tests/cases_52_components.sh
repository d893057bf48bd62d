# Device components on their own (tests/test_components.cu): each wrapped in a small kernel and
# compared with its host counterpart, bit for bit, both precisions.
#   components-*-rebuild   the rebuild rule (kernels/rebuild_rule.h) on crafted steps
#                          (tests/rebuild_cases.h: a threshold met exactly, one ulp short, a sum
#                          that a fused multiply-add would round onto the threshold), a run to its
#                          first rebuild, the build hash and the prune test; the host side of the
#                          same cases is tests/test_core.c's
# Without a GPU: SKIP (CI compiles the program).
for prec in double float; do
    b=$BUILD/$prec/test-components
    if [ ! -x "$b" ]; then t_skip "components-$prec-rebuild" "$b not built (nvcc missing?)"
    elif ! have_gpu; then t_skip "components-$prec-rebuild" "no GPU found"
    else t_ok "components-$prec-rebuild" "$b"
    fi
done
