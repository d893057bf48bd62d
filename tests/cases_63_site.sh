# tests/cases_63_site.sh - make site (plots/site.sh): the results as static HTML opened from the
# file system, checked in a headless browser, Debian's chromium (tests/site_check.py): every
# page loads, every image decodes, no link is broken; the index page's screenshot is kept as
# $TEST_LOG_DIR/site-index.png. The site is built from the committed report, figures and rows
# into a temporary folder by `make site` (NBR_SITE_OUT). SKIPs without the project's python (plots/venv.sh) or chromium.
T63=$(mktemp -d "${TMPDIR:-/tmp}/nbrlab-t63.XXXXXX")
T63_PY=$(plots/venv.sh 2>"$T63/venv.log") || T63_PY=""
T63_BROWSER=$(command -v chromium || command -v chromium-browser || true)

# the pages: one per paper (figures beside the tables), the history, the comparisons; each
# names the machines and revisions
_t63_pages() {
    NBR_PYTHON=$T63_PY NBR_SITE_OUT=$T63/site make --no-print-directory site || return 1
    "$T63_PY" - "$T63/site" <<'PY'
import os, re, sys
site = sys.argv[1]
def page(p): return open(os.path.join(site, p), encoding="utf-8").read()
for p in ["index", "rapaport", "bailey", "sirny", "doijade", "history", "compare"]:
    t = page(p + ".html")
    assert "machines: h200 (GPU), cpu-amd-epyc (CPU); site built at revision" in t, p
imgs = lambda t: re.findall(r'<img [^>]*src="([^"]+)"', t)
assert len(imgs(page("rapaport.html"))) >= 12 and "<table>" in page("rapaport.html"), "rapaport: figures, tables"
assert "img/mpl-rumd_fig6.png" in imgs(page("bailey.html")), "bailey: Fig. 6 with every code"
assert any("history-" in i for i in imgs(page("history.html"))), "history: its figure"
assert page("compare.html").count("<pre>") >= 2 and "interval" in page("compare.html"), "compare: the reports"
print("site pages ok")
PY
}

# the browser check fails where a reader would see a fault: an image that does not decode (its
# file there, its bytes not a PNG), a link to a page that is not there
_t63_planted() {   # what: image | link
    local d=$T63/planted-$1 page
    rm -rf "$d"; cp -r "$T63/site" "$d"
    case $1 in
        image) printf 'not a png' >"$d/img/mpl-table2.png"; page=rapaport.html ;;
        link) sed -i 's|</body>|<a href="missing.html">a page not written</a></body>|' "$d/index.html"; page=index.html ;;
    esac
    local rc=0
    tests/site_check.py "$d" "$page" || rc=$?
    [ $rc -eq 1 ] || { echo "site_check exit $rc on a planted $1 fault, expected 1"; return 1; }
    echo "planted $1 fault caught"
}

if [ -z "$T63_PY" ]; then
    t_skip site "no python with pandas, matplotlib and markdown (plots/venv.sh: $(tail -1 "$T63/venv.log"))"
else
    t_grep site-pages '^site pages ok$' _t63_pages
    if [ -z "$T63_BROWSER" ]; then
        t_skip site-browser "no chromium (apt-get install chromium): the pages were not opened in a browser"
    elif [ -f "$T63/site/index.html" ]; then
        rm -f "$TEST_LOG_DIR/site-index.png"
        t_ok site-browser-every-page tests/site_check.py "$T63/site" --browser "$T63_BROWSER" \
            --screenshot "$TEST_LOG_DIR/site-index.png"
        t_grep site-browser-planted-image '^planted image fault caught$' _t63_planted image
        t_grep site-browser-planted-link '^planted link fault caught$' _t63_planted link
    fi
fi
rm -rf "$T63"
