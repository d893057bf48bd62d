# Unit tests of the common core (tests/test_core.c), both precisions.
for prec in double float; do
    t_grep "core-unit-$prec" ' 0 failed' "$BUILD/$prec/test-core"
done
