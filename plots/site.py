#!/usr/bin/env python3
"""site.py - make site: the results as static HTML pages that open from the file system (no
server, no network; plots/site.sh runs it).

  python3 plots/site.py --report REPORT.md --out SITE_DIR --machines GPU CPU --rev REV
          [--results DIR] [--order REVS_FILE]

Pages (each names the machines, the revision the site was built at and the revisions of its
rows):
  index.html     what is here
  <paper>.html   one per paper: REPORT.md's sections of that paper (each table beside the
                 paper's numbers, its figures; RUMD's Fig. 6 with every code) as HTML
  history.html   the regression history per benchmark: make history's figure and table (medians
                 and ranges of results/<cpu>/bench.csv against the commit order) per suite
  compare.html   every comparison report of results/*/compare/ (ratios with their intervals)
                 and its figure
Images are copied into SITE_DIR/img/; links to other files of the checkout stay relative to it.
REPORT.md's markdown is rendered by python-markdown (plots/requirements.txt).
"""
import argparse
import html
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# REPORT.md's "## " sections by paper: the first heading prefix that matches wins; the rest
# (the introduction, the summary, the caveats) belong to Rapaport's page, the report's frame
PAPERS = [
    ("sirny", "Sirný 2010: the all-pairs Coulomb energy", ["Sirný 2010"]),
    ("doijade", "Doijade et al. 2025: multi-GPU domain decomposition", ["Doijade et al. 2025"]),
    ("bailey", "Bailey et al. 2017 (RUMD): Fig. 6 with every code, Fig. 7, the molten salt",
     ["Bailey et al. 2017", "RUMD's molten salt"]),
    ("rapaport", "Rapaport 2011: Tables 1-8, the CPU chain, LAMMPS", [""]),
]

ORDER = ["rapaport", "bailey", "sirny", "doijade"]   # as the README lists the papers
STYLE = """body { font-family: sans-serif; max-width: 1200px; margin: 1em auto; padding: 0 1em; line-height: 1.4 }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: left }
img { max-width: 100%; border: 1px solid #eee }
pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto; font-size: 0.8em }
nav { margin-bottom: 1em } nav a { margin-right: 1em }
.meta { color: #555; font-size: 0.9em }"""


def sections(report):
    """REPORT.md as (heading, text) by "## " heading; the text before the first is heading ""."""
    out, head, buf = [], "", []
    for line in open(report, encoding="utf-8"):
        if line.startswith("## "):
            out.append((head, "".join(buf)))
            head, buf = line[3:].strip(), []
        buf.append(line)
    out.append((head, "".join(buf)))
    return out


def papers():
    """(page, title) in the README's order."""
    return sorted(((p, t) for p, t, _ in PAPERS), key=lambda pt: ORDER.index(pt[0]))


def paper_of(head):
    for pid, _, prefixes in PAPERS:
        if any(head.startswith(p) for p in prefixes):
            return pid
    return "rapaport"


class Site:
    def __init__(self, out, machines, rev):
        self.out, self.machines, self.rev = out, machines, rev
        self.img = os.path.join(out, "img")
        os.makedirs(self.img, exist_ok=True)

    def image(self, path):
        """Copy a figure into img/ (its folder's name as prefix: mpl-, gp-), return its src."""
        name = f"{os.path.basename(os.path.dirname(path))}-{os.path.basename(path)}"
        shutil.copyfile(path, os.path.join(self.img, name))
        return "img/" + name

    def relink(self, body, base):
        """Images into img/; links to files of the checkout relative to the site's folder
        (a link that names no existing file is left as it is: the site's check reports it)."""
        def fix(m):
            attr, url = m.group(1), html.unescape(m.group(2))
            if re.match(r"^[a-z]+:|^#", url):
                return m.group(0)
            path, frag = (url.split("#", 1) + [""])[:2]
            full = os.path.normpath(os.path.join(base, path))
            if not os.path.exists(full):
                return m.group(0)
            new = self.image(full) if attr == "src" else os.path.relpath(full, self.out)
            return f'{attr}="{html.escape(new + ("#" + frag if frag else ""))}"'
        return re.sub(r'(src|href)="([^"]*)"', fix, body)

    def page(self, name, title, body, revs=()):
        nav = " ".join(f'<a href="{p}.html">{html.escape(t)}</a>' for p, t in
                       [("index", "index")] + [(p, t.split(":")[0]) for p, t in papers()] +
                       [("history", "regression history"), ("compare", "comparisons")])
        gpu, cpu = self.machines
        meta = (f"machines: {html.escape(gpu)} (GPU), {html.escape(cpu)} (CPU); site built at revision "
                f"{html.escape(self.rev)}" + (f"; rows of revisions {html.escape(', '.join(revs))}" if revs else ""))
        with open(os.path.join(self.out, name + ".html"), "w", encoding="utf-8") as f:
            f.write(f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
                    f"<style>{STYLE}</style></head><body>\n<nav>{nav}</nav>\n<h1>{html.escape(title)}</h1>\n"
                    f'<p class="meta">{meta}</p>\n{body}\n</body></html>\n')


def revisions(text):
    """The revisions a text names: 12-hex-digit hashes (the report's and the rows' form)."""
    return sorted(set(re.findall(r"\b[0-9a-f]{12}\b", text)))


def markdown_html(text):
    import markdown
    return markdown.markdown(text, extensions=["tables", "fenced_code"])


def paper_pages(site, report):
    by = {}
    for head, text in sections(report):
        by.setdefault(paper_of(head), []).append(text)
    base = os.path.dirname(os.path.abspath(report))
    for pid, title, _ in PAPERS:
        text = "".join(by.get(pid, [])) or "Not measured yet.\n"
        site.page(pid, title, site.relink(markdown_html(text), base), revisions(text))


def history_page(site, results, cpu, order, py):
    bench = os.path.join(results, cpu, "bench.csv")
    if not os.path.exists(bench):
        site.page("history", "Regression history", "<p>No bench rows yet: <code>make bench</code> writes "
                  f"{html.escape(os.path.relpath(bench, ROOT))}.</p>")
        return
    sys.path.insert(0, os.path.join(ROOT, "runs"))
    import perfstat
    _, rows = perfstat.read_csv(bench)
    suites = sorted({r["tag"].split("/")[0] for r in rows if "/" in r.get("tag", "")})
    body, revs = [f"<p>{html.escape(os.path.relpath(bench, ROOT))}: per benchmark and revision the median "
                  "of its repeats and their range, against the commit order (oldest first); "
                  "<code>make history</code>.</p>"], set()
    for suite in suites:
        fig = os.path.join(site.img, f"history-{cpu}-{suite}.png")
        cmd = [py, os.path.join(HERE, "history.py"), bench, "--suite", suite, "--out", fig]
        if order:
            cmd += ["--order", order]
        run = subprocess.run(cmd, capture_output=True, text=True)
        body.append(f"<h2>suite {html.escape(suite)}</h2>")
        if os.path.exists(fig):
            body.append(f'<p><img src="img/{os.path.basename(fig)}" alt="history of suite {html.escape(suite)}"></p>')
        body.append(f"<pre>{html.escape(run.stdout + run.stderr)}</pre>")
        revs.update(revisions(run.stdout))
    site.page("history", "Regression history per benchmark", "\n".join(body), sorted(revs))


def compare_page(site, results):
    body, revs = [], set()
    for m in sorted(os.listdir(results)):
        d = os.path.join(results, m, "compare")
        if not os.path.isdir(d):
            continue
        for txt in sorted(f for f in os.listdir(d) if f.endswith(".txt")):
            text = open(os.path.join(d, txt), encoding="utf-8").read()
            stem = txt[:-4]
            body.append(f'<h2 id="{html.escape(m + "-" + stem)}">{html.escape(m)}: {html.escape(stem)}</h2>')
            png = os.path.join(d, stem + ".png")
            if os.path.exists(png):
                body.append(f'<p><img src="{site.image(png)}" alt="{html.escape(stem)}"></p>')
            body.append(f"<pre>{html.escape(text)}</pre>")
            for ab in re.findall(r"A = ([^,;\s]+), B = ([^,;\s]+)", text)[:1]:
                revs.update(ab)
    if not body:
        body = ["<p>No comparison reports yet: <code>runs/compare.sh A B</code> writes them.</p>"]
    site.page("compare", "Comparison reports (runs/compare.sh)",
              "<p>Each report: per benchmark the ratio B/A with its interval and the verdict, then "
              "the stages.</p>\n" + "\n".join(body), sorted(revs))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--report", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--machines", nargs=2, required=True, metavar=("GPU", "CPU"))
    ap.add_argument("--rev", required=True)
    ap.add_argument("--results", default=os.path.join(ROOT, "results"))
    ap.add_argument("--order")
    a = ap.parse_args(argv)
    if not os.path.exists(a.report):
        print(f"site.py: no {a.report} (make report writes it)", file=sys.stderr)
        return 2
    try:
        import markdown  # noqa: F401
    except ImportError:
        print("site.py: python-markdown is not installed (plots/venv.sh installs plots/requirements.txt)",
              file=sys.stderr)
        return 3
    if os.path.isdir(a.out):
        shutil.rmtree(a.out)
    site = Site(a.out, a.machines, a.rev)
    paper_pages(site, a.report)
    history_page(site, a.results, a.machines[1], a.order, sys.executable)
    compare_page(site, a.results)
    items = "".join(f'<li><a href="{p}.html">{html.escape(t)}</a></li>' for p, t in papers())
    site.page("index", "nbrlab results", f"<ul>{items}<li><a href=\"history.html\">Regression history per "
              "benchmark</a></li><li><a href=\"compare.html\">Comparison reports</a></li></ul>\n"
              f"<p>From {html.escape(os.path.relpath(os.path.abspath(a.report), ROOT))} and the CSVs under "
              "results/; <code>make site</code> writes these pages again.</p>",
              revisions(open(a.report, encoding="utf-8").read()))
    print(f"site: {os.path.join(a.out, 'index.html')} ({len(os.listdir(a.out)) - 1} pages)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
