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

# Durations measured, not remembered (issue 39 point 4): the README's "Durations" table is what
# runs/timings.sh --table makes of the committed log, results/cpu-amd-epyc/timings.csv
durations_from_the_log() {
    local want got
    want=$(runs/timings.sh --table results/cpu-amd-epyc/timings.csv) || return 1
    got=$(sed -n '/^## Durations/,/^## /p' README.md | grep '^|')
    [ "$got" = "$want" ] || { diff <(echo "$want") <(echo "$got"); return 1; }
    echo "durations are the log's"
}
t_grep readme-durations-from-the-log "^durations are the log's$" durations_from_the_log

# Written for a user's own GPU machine (issue 39 point 8), not for the batch machine the project's
# GPU runs used: docs/device.md and the suite's SKIP reasons speak of no device call, nothing
# carried to it, no limit on the files a call returns, no output folder only that machine has
docs_for_users() {
    local pat='device (call|tool)|\b(a|one|the) call\b|\bcarr(y|ied|ies)\b|returns at most [0-9]+ files|the device tool'
    local hits
    hits=$( { grep -nHiE "$pat" docs/device.md; grep -nHE 't_skip ' tests/cases_*.sh | grep -iE "$pat"; } || true)
    [ -z "$hits" ] || { echo "$hits"; return 1; }
    echo "written for a user's machine"
}
t_grep docs-for-a-users-machine "^written for a user's machine$" docs_for_users

# Configuration in the open (issue 26): every getenv in the programs' sources (common/, kernels/,
# variants/) reads a literal variable that docs/programs.md's "Environment" section names, so a
# new environment switch fails here until it is documented there (and argued to change no result,
# or to be a test build's planted fault). getenv_documented [ROOT]: ROOT's sources (default .).
getenv_documented() {
    python3 - "${1:-.}" docs/programs.md <<'PY'
import pathlib, re, sys
root, doc = pathlib.Path(sys.argv[1]), sys.argv[2]
m = re.search(r"^## Environment\n(.*?)^## ", open(doc).read(), re.S | re.M)
if not m:
    sys.exit(f"{doc}: no '## Environment' section")
listed = set(re.findall(r"`([A-Z][A-Z0-9_]*)(?:=[^`]*)?`", m.group(1)))
bad, calls = [], 0
for d in ("common", "kernels", "variants"):
    for f in sorted((root / d).rglob("*")):
        if f.suffix not in (".c", ".h", ".cu", ".cuh"):
            continue
        for i, line in enumerate(f.read_text().splitlines(), 1):
            for g in re.finditer(r"\b(?:secure_)?getenv\s*\(([^)]*)\)", line):
                calls += 1
                name = re.fullmatch(r'\s*"([A-Za-z0-9_]+)"\s*', g.group(1))
                where = f"{f.relative_to(root)}:{i}"
                if not name:
                    bad.append(f"{where}: getenv({g.group(1)}): not a literal name")
                elif name.group(1) not in listed:
                    bad.append(f"{where}: {name.group(1)} is not in {doc}'s Environment section")
print("\n".join(bad) if bad else f"getenv: {calls} calls, every variable documented ({len(listed)} listed)")
sys.exit(1 if bad else 0)
PY
}
t_grep getenv-documented 'every variable documented' getenv_documented
# planted: a copy of the sources with an undocumented switch, and one with a name read from a
# variable, must each fail, naming the file and line
getenv_planted() {
    local d=$TEST_LOG_DIR/getenv-planted out
    rm -rf "$d"; mkdir -p "$d"; cp -r common kernels variants "$d/"
    printf 'static int nbr_new_switch(void) { return getenv("NBR_NEW_SWITCH") != 0; }\n' >>"$d/common/report.c"
    out=$(getenv_documented "$d") && { echo "an undocumented getenv passed"; return 1; }
    echo "$out" | grep -q 'common/report.c:[0-9]*: NBR_NEW_SWITCH is not in' || { echo "$out"; return 1; }
    cp common/report.c "$d/common/report.c"
    printf 'static const char *nbr_by_name(const char *v) { return getenv(v); }\n' >>"$d/variants/cpu-layer.c"
    out=$(getenv_documented "$d") && { echo "a getenv of a non-literal name passed"; return 1; }
    echo "$out" | grep -q 'variants/cpu-layer.c:[0-9]*: getenv(v): not a literal name' || { echo "$out"; return 1; }
    echo "planted getenvs caught"
}
t_grep getenv-planted-caught 'planted getenvs caught' getenv_planted

# docs/mutants.md says how many faults tests/mutants.txt holds: its lines that are neither blank
# nor comments (issue 38, point 9). Planted: a table with one fault more must fail.
mutants_count() {   # TABLE
    local n said
    n=$(grep -cv '^[[:space:]]*\(#\|$\)' "$1")
    said=$(sed -n 's/.*The table holds \([0-9]*\) faults.*/\1/p' docs/mutants.md)
    echo "tests/mutants.txt: $n faults; docs/mutants.md says ${said:-nothing}"
    [ "$n" = "$said" ]
}
mutants_count_planted() {
    local t=$TEST_LOG_DIR/mutants-planted.txt
    { cat tests/mutants.txt; echo 'planted-fault common/pbc.h 10_core ^core-unit-double$ double/test-core s|a|b|'; } >"$t"
    mutants_count "$t" && { echo "a table one fault longer passed"; return 1; }
    echo "planted count caught"
}
t_grep docs-mutants-count 'docs/mutants.md says' mutants_count tests/mutants.txt
t_grep docs-mutants-count-planted-caught 'planted count caught' mutants_count_planted
