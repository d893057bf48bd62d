# The user's side (issue 39): what a person meets following the README on a fresh clone.
#  - rows a user measures are data, not code: rows appended under results/ and figures drawn
#    into plots/out/ leave the code's revision (runs/code_rev.sh, the Makefile's GIT_REV)
#    clean, so `make run` does not make the next driver's points refused; a change to code
#    still makes it "-dirty". (The whole order, make run; make test; runs/table2.sh --quick,
#    runs in CI: .ci/readme_order.sh.)
user=$TEST_LOG_DIR/user
rm -rf "$user"; mkdir -p "$user"

# a throw-away repository with code, rows and a figure, committed; then rows and a figure
# added, then code changed. Runs anywhere (the mutants' copies have no .git)
_t37_code_rev() (
    set -e
    d=$user/repo
    mkdir -p "$d/runs" "$d/results/cpu-x" "$d/plots/out/mpl" "$d/common"
    cp runs/code_rev.sh "$d/runs/"
    cd "$d"
    git init -q . && echo 'int x;' >common/a.c && echo 'git_rev,tag' >results/cpu-x/default.csv &&
        echo '<svg/>' >plots/out/mpl/f.svg
    git add . && git -c user.name=t -c user.email=t@t commit -qm init
    echo 'abc,default-1' >>results/cpu-x/default.csv
    echo '<svg></svg>' >plots/out/mpl/f.svg
    r=$(runs/code_rev.sh)
    echo "rows and figure added: $r"
    case $r in *-dirty) exit 1 ;; esac
    echo 'int y;' >>common/a.c
    r=$(runs/code_rev.sh)
    echo "code changed: $r"
    case $r in *-dirty) ;; *) exit 1 ;; esac
    echo "code revision ok"
)
t_grep user-rows-leave-code-clean 'code revision ok' _t37_code_rev

# the Makefile takes its revision from runs/code_rev.sh: in a clone of HEAD with a row appended
# under results/, `make info` names the commit without -dirty (needs this checkout's .git)
_t37_make_rev() {
    local c=$user/clone head
    git clone -q --shared . "$c" || return 1
    head=$(git -C "$c" describe --always --abbrev=12)
    echo 'abc,default-1' >>"$c/results/cpu-amd-epyc/default.csv"
    make -s -C "$c" BUILD="$user/clone-build" info >"$user/info" || return 1
    head -1 "$user/info"
    [ "$(head -1 "$user/info")" = "nbrlab $head" ] && echo "make names $head"
}
if git rev-parse --show-toplevel >/dev/null 2>&1 && [ "$(git rev-parse --show-toplevel)" = "$PWD" ]; then
    t_grep user-make-rev-after-rows 'make names ' _t37_make_rev
else
    t_skip user-make-rev-after-rows "no git checkout here (a copy without .git)"
fi

# runs/table.sh on the Coulomb program's CSV prints its own columns (pairs_per_s, rel_error), not
# the MD ones, which it lacks (they were all "-")
_t37_table_coulomb() {
    local out
    out=$(runs/table.sh results/cpu-amd-epyc/coulomb.csv) || return 1
    head -2 <<<"$out"
    head -1 <<<"$out" | grep -qw pairs_per_s && ! head -1 <<<"$out" | grep -qw 'us/atom-st' && echo "coulomb's columns"
}
t_grep user-table-coulomb-columns "^coulomb's columns$" _t37_table_coulomb

# a GPU driver on a machine without a GPU: one line up front, exit 6 (was: every point into the
# program's exit 6, then "table.sh: no such file"). A CPU ELF named gpu-layer stands in for the
# CUDA program (need_bin tells the tests' script stand-ins by the ELF header)
if have_gpu; then
    t_skip user-gpu-driver-no-gpu "a GPU is here"
else
    mkdir -p "$user/nogpu/float" && cp "$BUILD/double/cpu-layer" "$user/nogpu/float/gpu-layer"
    t_error user-gpu-driver-no-gpu 6 'no GPU found .*gpu-layer cannot run here' \
        runs/table1.sh --build "$user/nogpu" --out-dir "$user/nogpu/out"
fi
# dd_scaling's plan without gpu-dd built: the plan, from the sources' backends
t_grep user-dd-plan-without-gpu-dd '^dd-sp-1gpu-ne36' runs/dd_scaling.sh --print-plan --dd-prog "$user/no-gpu-dd"
