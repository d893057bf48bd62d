# A bare machine (issue 25): only a C11 compiler and make. Every optional part (CUDA, OpenCL,
# MPI, NCCL, NVSHMEM) has a make switch WITH_<PART>=0 that leaves it out even where it is
# found, and $BUILD/features says what the build has (yes, off, or empty: not found).
#   bare-make-*        the switches, on make -n into a scratch BUILD (nothing compiled): each
#                      WITH_<PART>=0 drops its compile lines and flags and says so in features;
#                      make run compiles CUDA only where a GPU is found (nvidia-smi stood in for
#                      by a script on PATH, so both answers are tested on any machine)
#   bare-features-*    the programs agree with $BUILD/features (coulomb's --print-config impls=,
#                      the gpu-* programs built or not)
#   bare-gpu-nodevice-* every CUDA program built here, on a machine without a GPU: exit 6
#                      (EXIT_NO_DEVICE), one line naming the situation on stderr, nothing on
#                      stdout before it (SKIP on a GPU machine)
bare=$TEST_LOG_DIR/bare
rm -rf "$bare"
mkdir -p "$bare/gpu" "$bare/nogpu"
# the value of PART in a features file ("" where absent)
_bare_feature() { sed -n "s/^$1=//p" "${2:-$BUILD/features}" 2>/dev/null; }

# stand-ins for nvidia-smi: one that lists a GPU, one that finds none
printf '#!/bin/sh\necho "GPU 0: stand-in (UUID: GPU-0)"\n' >"$bare/gpu/nvidia-smi"
printf '#!/bin/sh\necho "No devices were found" >&2\nexit 6\n' >"$bare/nogpu/nvidia-smi"
chmod +x "$bare/gpu/nvidia-smi" "$bare/nogpu/nvidia-smi"

# make -n into a scratch BUILD (MAKEFLAGS cleared: the outer make's -j and variables stay out)
_bare_dry() {   # NAME ARGS...: the commands make would run, in $bare/NAME.n; features in $bare/NAME/
    local name=$1; shift
    MAKEFLAGS= make -n --no-print-directory BUILD="$bare/$name" "$@" >"$bare/$name.n" 2>&1
}
# WITH_<PART>=0: the part's compile lines are gone (nvcc; -DNBR_OPENCL and -lOpenCL; the gpu-dd
# link; the NCCL and NVSHMEM halo backends, kernels/cuda/dd_halo_<comm>.cu, whose stubs are
# compiled instead), features says off, and the build line says switched off
_bare_switch_off() {   # PART FORBIDDEN-REGEX TARGETS...
    local part=$1 forbid=$2 lower
    shift 2
    lower=$(tr A-Z a-z <<<"$part")
    _bare_dry "off-$lower" "WITH_$part=0" "$@" || { tail -5 "$bare/off-$lower.n"; return 1; }
    if grep -E -- "$forbid" "$bare/off-$lower.n" | head -3 | grep .; then
        echo "WITH_$part=0 still compiles it (/$forbid/ above)"; return 1
    fi
    [ "$(_bare_feature "$lower" "$bare/off-$lower/features")" = off ] ||
        { echo "features: $lower=$(_bare_feature "$lower" "$bare/off-$lower/features"), expected off"; return 1; }
    echo "WITH_$part=0: no /$forbid/ in $(grep -c '' "$bare/off-$lower.n") commands; features $lower=off"
}
t_ok bare-make-with-cuda-off _bare_switch_off CUDA '(^|/)nvcc ' all
t_ok bare-make-with-opencl-off _bare_switch_off OPENCL '-DNBR_OPENCL( |$)|-lOpenCL' all
t_ok bare-make-with-mpi-off _bare_switch_off MPI ' -o [^ ]*/gpu-dd( |$)' all
t_ok bare-make-with-nccl-off _bare_switch_off NCCL 'dd_halo_nccl\.cu( |$)' all
t_ok bare-make-with-nvshmem-off _bare_switch_off NVSHMEM 'dd_halo_nvshmem\.cu( |$)' all
# switched off, the build names the switch (not "not found, install ...")
_bare_says_off() {
    _bare_dry says-off WITH_CUDA=0 WITH_OPENCL=0 cpu gpu || { tail -5 "$bare/says-off.n"; return 1; }
    grep -E 'OpenCL switched off \(WITH_OPENCL=0\)|CUDA switched off \(WITH_CUDA=0\)' "$bare/says-off.n"
    [ "$(grep -cE 'switched off \(WITH_(OPENCL|CUDA)=0\)' "$bare/says-off.n")" = 2 ] &&
        ! grep -E 'apt-get|not found' "$bare/says-off.n"
}
t_ok bare-make-says-switched-off _bare_says_off
# make info lists every part and its state
t_grep bare-make-info-parts '^parts: +CUDA=off OPENCL=(on|off|absent) MPI=(on|off|absent) NCCL=(on|off|absent) NVSHMEM=(on|off|absent)' \
    env MAKEFLAGS= make --no-print-directory BUILD="$bare/info" WITH_CUDA=0 info

# make run: CUDA compiled only where a GPU is listed (the GPU branch needs nvcc to show it)
_bare_run_builds() {   # gpu|nogpu
    PATH="$bare/$1:$PATH" _bare_dry "run-$1" run || { tail -5 "$bare/run-$1.n"; return 1; }
    local ncu; ncu=$(grep -cE '(^|/)nvcc ' "$bare/run-$1.n")
    echo "make run ($1): $ncu nvcc commands"
    grep -q 'runs/default.sh' "$bare/run-$1.n" || { echo "make run does not run runs/default.sh"; return 1; }
    if [ "$1" = nogpu ]; then
        [ "$ncu" = 0 ] && grep -q 'no GPU found: the CUDA programs are not built for make run' "$bare/run-$1.n"
    else
        [ "$ncu" -gt 0 ]
    fi
}
t_ok bare-make-run-no-gpu-no-cuda _bare_run_builds nogpu
if [ "$(_bare_feature cuda "$bare/run-nogpu/features")" = yes ]; then
    t_ok bare-make-run-gpu-builds-cuda _bare_run_builds gpu
else
    t_skip bare-make-run-gpu-builds-cuda "CUDA not in this build (nvcc $(_bare_feature cuda "$bare/run-nogpu/features" | sed 's/^$/not found/'))"
fi

# the programs agree with the build's features
_bare_impls_match() {
    local impls want
    impls=$("$BUILD/double/coulomb" --random 8 --print-config | sed -n 's/^impls=//p')
    want=ref; [ "$(_bare_feature opencl)" = yes ] && want=ref,opencl
    echo "coulomb impls=$impls, features opencl=$(_bare_feature opencl) -> $want"
    [ "$impls" = "$want" ]
}
if [ -f "$BUILD/features" ] && [ -x "$BUILD/double/coulomb" ]; then
    t_ok bare-features-coulomb-impls _bare_impls_match
else
    t_skip bare-features-coulomb-impls "no $BUILD/features or coulomb (make)"
fi

# A CUDA program where no GPU can run it: exit 6, one line, nothing printed before it
_bare_no_device() {   # CMD...
    local out=$bare/nodev.out err=$bare/nodev.err rc
    "$@" >"$out" 2>"$err"; rc=$?
    cat "$err"
    [ $rc = 6 ] || { echo "exit code $rc, expected 6 (EXIT_NO_DEVICE)"; return 1; }
    [ "$(grep -c '' "$err")" = 1 ] || { echo "stderr has $(grep -c '' "$err") lines, expected one"; return 1; }
    grep -Eq '^[a-z-]+: (no GPU here: no NVIDIA driver found|no GPU here: the NVIDIA driver \(CUDA [0-9.]+\) finds no CUDA device|the NVIDIA driver supports CUDA [0-9.]+, older than)' "$err" ||
        { echo "the line does not name the situation"; return 1; }
    [ ! -s "$out" ] || { echo "stdout before the message ($(grep -c '' "$out") lines):"; head -3 "$out"; return 1; }
}
if have_gpu; then
    t_skip bare-gpu-nodevice "a GPU is here: the no-device message cannot be shown"
else
    n_cu=0
    for prec in double float; do
        for b in "$BUILD/$prec"/gpu-layer "$BUILD/$prec"/gpu-old "$BUILD/$prec"/gpu-rumd "$BUILD/$prec"/gpu-onchip; do
            [ -x "$b" ] || continue
            n_cu=$((n_cu + 1))
            t_ok "bare-gpu-nodevice-${b##*/}-$prec" _bare_no_device "$b" --ne 8 --steps 10 --equil 0
        done
        if [ -x "$BUILD/$prec/gpu-rumd" ]; then
            t_ok "bare-gpu-nodevice-gpu-rumd-autotune-$prec" _bare_no_device "$BUILD/$prec/gpu-rumd" --autotune --ne 8
        fi
        if [ -x "$BUILD/$prec/coulomb-cuda" ]; then
            t_ok "bare-gpu-nodevice-coulomb-cuda-$prec" _bare_no_device "$BUILD/$prec/coulomb-cuda" --random 100
            # its C reference runs without a GPU
            t_ok "bare-gpu-coulomb-cuda-ref-runs-$prec" "$BUILD/$prec/coulomb-cuda" --impl ref --random 100 --reps 1 --quiet
        fi
    done
    # --print-config (the drivers' revision probe) needs no device
    [ -x "$BUILD/double/gpu-layer" ] && t_grep bare-gpu-print-config-no-device '^git_rev=' "$BUILD/double/gpu-layer" --print-config
    [ $n_cu -gt 0 ] || t_skip bare-gpu-nodevice "no CUDA program built (features: cuda=$(_bare_feature cuda))"
fi
