# Coulomb input (issue 24, item 5): numbers are decimal (strtod alone reads 0x10 as 16 and takes
# inf and nan), an atom line cut without its newline is refused (the reader sees the line's end),
# and two atoms at one place (1/r infinite: E = -inf, exit 0 before) are refused naming both.
# Each: one line on stderr naming the file and the line, exit 2.
c=$BUILD/double/coulomb
d=tests/data/coulomb
ci=$TEST_LOG_DIR/coulomb-input
mkdir -p "$ci"

# numbers: decimal only
printf '0 0 0 1\n0x10 0 0 -1\n' >"$ci/hex.xyzq"
printf '0 0 0 1\n2 0 0 0x1p-1\n' >"$ci/hexfloat.xyzq"
printf '0 0 0 1\ninf 0 0 -1\n' >"$ci/inf.xyzq"
printf '0 0 0 1\n2 0 0 nan\n' >"$ci/nan.xyzq"
printf '0 0 0 1\n2 0 0 1e\n' >"$ci/exponent.xyzq"
sed 's/0.900   1.200   0.000  0.5000/0.900   1.200   0.000  0x1/' $d/two.pqr >"$ci/hex.pqr"
sed 's/ 0.5000 1.0000$/ 0.5000 infinity/' $d/two.pqr >"$ci/inf.pqr"
t_error coulomb-input-hex 2 "hex.xyzq:2: field 1 \\(x\\) is not a number: '0x10' \\(decimal numbers only" \
    $c --input "$ci/hex.xyzq" --reps 1 --quiet
t_error coulomb-input-hex-float 2 "hexfloat.xyzq:2: field 4 \\(q\\) is not a number: '0x1p-1'" \
    $c --input "$ci/hexfloat.xyzq" --reps 1 --quiet
t_error coulomb-input-inf 2 "inf.xyzq:2: field 1 \\(x\\) is not a number: 'inf'" $c --input "$ci/inf.xyzq" --reps 1 --quiet
t_error coulomb-input-nan 2 "nan.xyzq:2: field 4 \\(q\\) is not a number: 'nan'" $c --input "$ci/nan.xyzq" --reps 1 --quiet
t_error coulomb-input-bare-exponent 2 "exponent.xyzq:2: field 4 \\(q\\) is not a number: '1e'" \
    $c --input "$ci/exponent.xyzq" --reps 1 --quiet
t_error coulomb-input-pqr-hex 2 "hex.pqr:4: PQR field 9 \\(charge\\) is not a number: '0x1'" \
    $c --input "$ci/hex.pqr" --reps 1 --quiet
t_error coulomb-input-pqr-inf 2 "inf.pqr:3: PQR field 11 \\(radius\\) is not a non-negative number: 'infinity'" \
    $c --input "$ci/inf.pqr" --reps 1 --quiet
# every decimal form is still read: sign, no leading or trailing digits, exponents; E by hand:
# 332.0636 * (1 * -1 / 2) = -166.0318 (the third atom has no charge)
printf '+0.0 0. .0 1.\n2e0 -0 +0 -1E+0\n1.5 25e-1 -.5e1 0\n' >"$ci/forms.xyzq"
t_grep coulomb-input-decimal-forms 'reference -166\.0318[0-9]* ' $c --input "$ci/forms.xyzq" --reps 1 --quiet

# the last line without its newline: an atom line there may be cut (here "-1" of "-1.5")
printf '0 0 0 1\n2 0 0 -1' >"$ci/cut.xyzq"
printf '0 0 0 1\n2 0 0 -1\n# no newline after this comment' >"$ci/comment.xyzq"
head -n 4 $d/two.pqr | head -c -4 >"$ci/cut.pqr"    # HETATM ... 0.5000 1.0 (radius cut, no newline)
printf '0 0 0 1\n2 0 0 -1' | gzip -c >"$ci/cut.xyzq.gz"
t_error coulomb-input-cut-last-field 2 "cut.xyzq:2: the last line has no end \\(no newline\\)" \
    $c --input "$ci/cut.xyzq" --reps 1 --quiet
t_error coulomb-input-cut-pqr 2 "cut.pqr:4: the last line has no end" $c --input "$ci/cut.pqr" --reps 1 --quiet
t_error coulomb-input-cut-gz 2 "cut.xyzq.gz:2: the last line has no end" $c --input "$ci/cut.xyzq.gz" --reps 1 --quiet
# a comment (or a PQR END) without its newline holds no atom: read as before
t_grep coulomb-input-unterminated-comment 'reference -166\.0318[0-9]* ' $c --input "$ci/comment.xyzq" --reps 1 --quiet

# two atoms at one place: refused by index and line, whichever their distance in the file
printf '0 0 0 1\n1 1 1 0.5\n2 0 0 -1\n1 1 1 -0.5\n' >"$ci/same.xyzq"
printf '0 0 0 1\n-0 0 0 -1\n' >"$ci/signed-zero.xyzq"
sed 's/0.900   1.200   0.000/0.000   0.000   0.000/' $d/two.pqr >"$ci/same.pqr"
t_error coulomb-input-coincident 2 \
    'same.xyzq:4: atom 4 is at the same place as atom 2 \(line 2\), x y z = 1 1 1' \
    $c --input "$ci/same.xyzq" --reps 1 --quiet
t_error coulomb-input-coincident-signed-zero 2 'signed-zero.xyzq:2: atom 2 is at the same place as atom 1 \(line 1\)' \
    $c --input "$ci/signed-zero.xyzq" --reps 1 --quiet
t_error coulomb-input-coincident-pqr 2 'same.pqr:4: atom 2 is at the same place as atom 1 \(line 3\)' \
    $c --input "$ci/same.pqr" --reps 1 --quiet
# the real input (47 681 atoms, closest pair 0.137 A) is read, with one atom moved onto another
# refused: the test is exact, not a distance threshold, and covers the whole file
zcat reference/adk_oplsaa/adk_oplsaa.xyzq.gz | awk 'NR == 2 { x = $1; y = $2; z = $3 } NR == 47682 { $1 = x; $2 = y; $3 = z } { print }' \
    >"$ci/adk_same.xyzq"
t_ok coulomb-input-adk-reads $c --input reference/adk_oplsaa/adk_oplsaa.xyzq.gz --write "$ci/adk.xyzq"
t_error coulomb-input-coincident-adk 2 'adk_same.xyzq:47682: atom 47681 is at the same place as atom 1 \(line 2\)' \
    $c --input "$ci/adk_same.xyzq" --e-ref 0 --reps 1 --quiet
