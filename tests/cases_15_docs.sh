# README and docs/ against the code: every --flag they name exists in the program or script
# the text attributes it to (tests/docs_flags.py says how: the command it is part of, else its
# table row's or section's program, else any program or script). A flag renamed or removed in
# the code, or put with the wrong program, fails here. Programs not built here (gpu-dd without
# MPI, coulomb without OpenCL) are checked against their option table's source instead.
docs_files=(README.md docs/*.md)
t_grep docs-flags-known 'every flag the docs name is known' tests/docs_flags.py "$BUILD" "${docs_files[@]}"

# planted: a flag another program has (gpu-layer's --read) given to cpu-grouped in a docs
# file, once in a command and once in that program's section, must fail naming both
docs_flags_planted() {
    local d=$TEST_LOG_DIR/docs-planted
    rm -rf "$d"; mkdir -p "$d"
    { cat docs/programs.md
      printf '\n## cpu-grouped\n\nIts `--read` knob.\n\n```sh\nbuild/double/cpu-grouped --ne 8 --read ldg\n```\n'
    } >"$d/programs.md"
    local out rc
    out=$(tests/docs_flags.py "$BUILD" README.md "$d/programs.md" 2>&1); rc=$?
    echo "$out"
    [ $rc -eq 1 ] && [ "$(grep -c -- '--read: not a flag of cpu-grouped' <<<"$out")" -eq 2 ] &&
        echo "planted flags caught"
}
t_grep docs-flags-planted-caught 'planted flags caught' docs_flags_planted

# README is a user's guide, not a notebook: at most 15 KB, lines of at most 100 characters,
# no commit hashes (those belong in results/ and REPORT.md); it links every docs/ file
readme_is_guide() {
    local bytes long hashes f missing=()
    bytes=$(wc -c <README.md)
    long=$(awk 'length > 100' README.md | wc -l)
    hashes=$(grep -oE '\b[0-9a-f]{7,40}\b' README.md | grep '[a-f]' | grep '[0-9]' | sort -u | tr '\n' ' ')
    for f in docs/*.md; do grep -qF "($f)" README.md || missing+=("$f"); done
    echo "README: $bytes bytes, $long lines over 100 characters, hashes: ${hashes:-none}," \
        "docs not linked: ${missing[*]:-none}"
    [ "$bytes" -le 15360 ] && [ "$long" -eq 0 ] && [ -z "$hashes" ] && [ ${#missing[@]} -eq 0 ]
}
t_grep readme-is-a-guide 'README: ' readme_is_guide

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
