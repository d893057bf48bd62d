# tests/cases_29_reference.sh - the paper's numbers as typed in reference/paper.csv, checked
# against a second transcription and against their own consistency (issue 38, point 6), and the
# report's agreement wording at its boundaries.
#  - every value, lo and hi appears as a number in its table's sentences (the paper's words,
#    transcribed separately) or notes: a digit swap (89 typed 98) has no sentence to match;
#  - ratios and units: N_p/N_a against the neighbour sphere (4/3) pi r_n^3 rho of each system
#    (within 20%), the chain's cumulative ratio the product of its steps, N_a = Ne^3, bytes per
#    atom x N_a = the paper's "200 Mbytes" for both systems (within 5%), the drift 1/5000;
#  - plots/report.py's verdict: "agrees (within 10%)" at ratios 0.9 and 1.1, not at 0.89 or 1.11.
# Sourced by tests/run.sh (tests/lib.sh loaded).
_t29_paper() {   # [CSV]
    python3 - "${1:-reference/paper.csv}" <<'PY'
import csv, math, re, sys
rows = {r["id"]: r for r in csv.DictReader(open(sys.argv[1], newline=""))}
bad = []
for r in rows.values():
    # the row's sentence and note, and the other sentences of its table (Table 4's run length
    # is stated in the drift's sentence)
    words = " ".join(q["sentence"] + " " + q["note"] for q in rows.values() if q["table"] == r["table"])
    nums = {float(x) for x in re.findall(r"\d+(?:\.\d+)?", words.replace(",", ""))}
    nums |= {a * 10 ** int(e) for a, e in ((float(m[0]), m[1]) for m in re.findall(r"(\d+(?:\.\d+)?) x 10\^(\d+)", words))}
    nums |= {10.0 ** int(e) for e in re.findall(r"10\^(\d+)", words)}
    nums |= {float(x) for x in re.findall(r"\d+(?:\.\d+)?e-?\d+", words)}
    for col in ("value", "lo", "hi"):
        v = r[col]
        if v and not any(math.isclose(float(v), n, rel_tol=1e-9) for n in nums):
            bad.append(f"{r['id']}: {col} {v} is not in its sentence or note")
v = lambda k: float(rows[k]["value"])
# the neighbour sphere: SP rho 0.8, r_n = 2^(1/6) + 0.6; LJ rho 0.38, r_n = 3 + 0.8 (README's presets)
for k, rho, rn in (("np_sp", 0.8, 2 ** (1 / 6) + 0.6), ("np_lj", 0.38, 3.8)):
    sphere = 4 / 3 * math.pi * rn ** 3 * rho
    if abs(v(k) / sphere - 1) > 0.2:
        bad.append(f"{k}: {v(k)} entries/atom, the sphere holds {sphere:.1f}")
prod = v("chain_grouped") * v("chain_full") * v("chain_layer")
if abs(prod / v("chain_total") - 1) > 0.01:
    bad.append(f"chain_total {v('chain_total')} is not the product {prod:.3f}")
if v("nmax_sp") != 96 ** 3 or v("nmax_lj") != 64 ** 3:
    bad.append("nmax: not 96^3 and 64^3")
for s in ("sp", "lj"):
    mb = v("bytes_" + s) * v("nmax_" + s) / 1e6
    if abs(mb / 200 - 1) > 0.05:
        bad.append(f"bytes_{s} x nmax_{s} = {mb:.0f} MB, the paper says 200")
if not math.isclose(v("drift_s"), 1 / 5000):
    bad.append("drift_s is not 1/5000")
if bad:
    sys.exit("\n".join(bad))
print(f"paper.csv consistent: {len(rows)} rows")
PY
}
t_grep reference-paper-consistent 'paper.csv consistent' _t29_paper
# typos planted in a copy are caught (the check can fail): LJ's N_p/N_a 89 typed 98, the
# chain's total 1.92 typed 1.29
_t29_typo() {   # ID FROM TO
    local tmp; tmp=$(mktemp)
    sed "s/^\($1,[^,]*,[^,]*,[^,]*,[^,]*,\)$2,/\1$3,/" reference/paper.csv >"$tmp"
    cmp -s "$tmp" reference/paper.csv && { rm -f "$tmp"; echo "the typo was not planted"; return 1; }
    _t29_paper "$tmp"; local rc=$?
    rm -f "$tmp"
    [ $rc != 0 ] && echo "typo $3 caught"
}
t_grep reference-paper-typo-np-caught 'typo 98 caught' _t29_typo np_lj 89 98
t_grep reference-paper-typo-chain-caught 'typo 1.29 caught' _t29_typo chain_total 1.92 1.29

_t29_py=$(plots/venv.sh 2>/dev/null) || _t29_py=""   # the plots' python (pandas)
_t29_wording() {
    "$_t29_py" - <<'PY'
import sys
sys.path.insert(0, "plots")
import report
want = {0.9: True, 1.1: True, 1.0: True, 0.89: False, 1.11: False, 0.5: False, 1.5: False}
for ratio, agrees in want.items():
    got = report.verdict(ratio * 100, ratio * 100, 100, None, None)
    assert (got == "agrees (within 10%)") == agrees, (ratio, got)
assert report.verdict(5, 5, None, 4, 6) == "within the paper's range"
assert report.verdict(3, 3.9, None, 4, 6) == "outside the paper's range"
assert report.verdict(3, 5, None, 4, 6) == "overlaps the paper's range"
print("wording ok at 0.89 0.9 1.1 1.11")
PY
}
if [ -n "$_t29_py" ]; then t_grep reference-report-wording-boundaries 'wording ok' _t29_wording
else t_skip reference-report-wording-boundaries "no python with pandas (plots/venv.sh)"; fi
