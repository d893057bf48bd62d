# Bad input and capacity limits: one line on stderr naming the limit, a non-zero exit
# (2 = input, 3 = capacity or memory). Nothing may be truncated silently.
b=$BUILD/double
t_error err-unknown-flag 2 'unknown flag' $b/cpu-allpairs --frobnicate 1
t_error err-positional 2 'unexpected argument' $b/cpu-allpairs 12
t_error err-not-a-number 2 '--ne needs a number' $b/cpu-allpairs --ne abc
t_error err-not-whole 2 '--ne needs a whole number' $b/cpu-allpairs --ne 2.5
t_error err-negative-delta 2 '--delta = -0.1 is outside its limits' $b/cpu-allpairs --delta -0.1
t_error err-zero-density 2 '--rho = 0 is outside its limits' $b/cpu-allpairs --rho 0
t_error err-bad-enum 2 '--system must be one of sp\|lj' $b/cpu-allpairs --system argon
t_error err-missing-value 2 '--steps needs a value' $b/cpu-allpairs --steps
t_error err-equil-gt-steps 2 '--equil must not exceed --steps' $b/cpu-allpairs --steps 10 --equil 20
t_error err-knob-not-here 2 '--threads is not a knob of cpu-allpairs' $b/cpu-allpairs --threads 64
t_error err-rc-over-half-box 2 'below half the box edge' $b/cpu-allpairs --system lj --ne 4
t_error err-memory 3 'host memory' $b/cpu-allpairs --ne 1290 --steps 0 --equil 0
t_grep help-from-option-table '--avg-block' $b/cpu-allpairs --help
if [ -x $b/cpu-pairlist ]; then
    t_error err-small-box 2 'at least 3 per axis' $b/cpu-pairlist --ne 4
    t_error err-dense-box 2 'at least 3 per axis' $b/cpu-pairlist --ne 6 --rho 2.9
    t_error err-pair-capacity 3 'max-pairs' $b/cpu-pairlist --ne 8 --steps 0 --equil 0 --max-pairs 100
    t_error err-pairlist-index-bits 2 '2\^26|67108864' $b/cpu-pairlist --ne 407 --steps 0 --equil 0
fi
for v in cpu-grouped cpu-full cpu-layer; do
    [ -x $b/$v ] && t_error err-nbr-capacity-$v 3 'max-nbr' $b/$v --ne 8 --steps 0 --equil 0 --max-nbr 4
done
[ -x $b/cpu-layer ] && t_error err-layer-capacity 3 'max-layers' $b/cpu-layer --ne 8 --steps 0 --equil 0 --max-layers 2
csv=$TEST_LOG_DIR/schema.csv
printf 'some,other,header\n' >"$csv"
t_error err-csv-schema 2 'another header' $b/cpu-allpairs --ne 6 --steps 10 --equil 0 --quiet --csv "$csv"
