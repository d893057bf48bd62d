# README against the code: every --flag README.md names is a flag some program's --help lists
# (generated from the option tables that parse them), or one a script under runs/ or plots/
# reads (its text names it), or mpirun's. A flag renamed or removed in the code but left in
# the README fails here.
readme_flags_known() {
    local known unknown=() f b
    known=$(for b in "$BUILD"/double/* "$BUILD"/float/*; do
                case ${b##*/} in test-*) continue ;; esac
                [ -f "$b" ] && [ -x "$b" ] && "$b" --help 2>&1
            done | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u)
    [ -n "$known" ] || { echo "no program's --help read (nothing built?)"; return 1; }
    for f in $(grep -oE -- '--[a-z][a-z0-9-]+' README.md | sort -u); do
        grep -qxF -- "$f" <<<"$known" && continue
        case $f in --help | --allow-run-as-root | --bind-to | --oversubscribe) continue ;; esac
        grep -qF -- "$f" runs/*.sh runs/*.py runs/device/*.sh plots/*.py && continue
        unknown+=("$f")
    done
    [ ${#unknown[@]} -eq 0 ] || { echo "README names flags no program or script has: ${unknown[*]}"; return 1; }
    echo "every README flag is known ($(wc -w <<<"$known") program flags)"
}
# README documents every program; where an optional one is not built here (gpu-dd without MPI,
# coulomb without OpenCL: the Makefile says so) its flags cannot be read, and CI, which installs
# both, runs the check
if [ ! -x "$BUILD/double/gpu-dd" ] && command -v nvcc >/dev/null 2>&1; then
    t_skip readme-flags-known "gpu-dd not built here (no mpi.h): its flags cannot be read"
elif ! "$BUILD/double/coulomb" --help 2>&1 | grep -q -- '--wg'; then
    t_skip readme-flags-known "coulomb built without OpenCL here: its --wg and --cl-device cannot be read"
else
    t_grep readme-flags-known 'every README flag is known' readme_flags_known
fi

# gpu-dd's environment variables (read in its sources, not parsed by the option table): each
# one its --help names, so that a variable added or renamed in the code cannot go undocumented
dd_env_documented() {
    local help missing=() v
    help=$("$BUILD/double/gpu-dd" --help 2>&1) || { echo "gpu-dd --help failed"; return 1; }
    for v in $(grep -ohE '"NBR_DD_[A-Z_]+"' variants/gpu-dd.cu kernels/cuda/dd*.cu kernels/cuda/dd*.cuh | tr -d '"' | sort -u); do
        grep -qw -- "$v" <<<"$help" || missing+=("$v")
    done
    [ ${#missing[@]} -eq 0 ] || { echo "gpu-dd reads, --help does not name: ${missing[*]}"; return 1; }
    echo "every NBR_DD_ variable gpu-dd reads is in its --help"
}
if [ -x "$BUILD/double/gpu-dd" ]; then
    t_grep dd-env-documented 'every NBR_DD_ variable' dd_env_documented
else
    t_skip dd-env-documented "gpu-dd not built here (no mpi.h or no nvcc)"
fi
