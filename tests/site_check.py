#!/usr/bin/env python3
"""tests/site_check.py SITE_DIR [PAGE...] [--browser CMD] [--screenshot FILE] - make site's pages as a
reader's browser shows them (issue 39, "results a person can look at").

Every page of SITE_DIR (or the PAGEs named):
  links  every relative href and src names an existing file, and a #fragment an id of its
         target page (a static walk: a browser does not report a broken link)
  load   opened from the file system in a headless browser (Debian's chromium), the page loads
         and every <img> decodes (naturalWidth > 0): a copy of the page beside it, with a script
         that writes the result into <body data-site-check="..."> once the page has loaded,
         read back from the browser's --dump-dom
--screenshot FILE: the index page as the browser draws it (kept as a test artifact).
Prints one line per page; exit 0 when all pass, 1 otherwise, 3 without the browser.
"""
import argparse
import html.parser
import os
import re
import shutil
import subprocess
import sys

PROBE = """<script>
window.addEventListener("load", function () {
  var bad = [];
  for (var i = 0; i < document.images.length; i++) {
    var im = document.images[i];
    if (!im.complete || im.naturalWidth === 0) bad.push(im.getAttribute("src"));
  }
  document.body.setAttribute("data-site-check", bad.length ? "missing images: " + bad.join(" ") : "ok");
});
</script>"""


class Refs(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        for k in ("href", "src"):
            if a.get(k):
                self.refs.append(a[k])


def parse(path):
    p = Refs()
    p.feed(open(path, encoding="utf-8").read())
    return p


def broken_links(site, page):
    bad = []
    for ref in parse(os.path.join(site, page)).refs:
        if re.match(r"^[a-z][a-z0-9+.-]*:", ref):
            bad.append(f"{ref} (not a local file: the site must open without a network)")
            continue
        path, _, frag = ref.partition("#")
        target = os.path.normpath(os.path.join(site, path)) if path else os.path.join(site, page)
        if not os.path.exists(target):
            bad.append(f"{ref} (no such file)")
        elif frag and target.endswith(".html") and frag not in parse(target).ids:
            bad.append(f"{ref} (no id {frag} there)")
    return bad


def browser_check(browser, site, page):
    src = os.path.join(site, page)
    probe = os.path.join(site, ".check-" + page)
    text = open(src, encoding="utf-8").read()
    with open(probe, "w", encoding="utf-8") as f:
        f.write(text.replace("</body>", PROBE + "</body>", 1))
    try:
        run = subprocess.run(browser + ["--virtual-time-budget=10000", "--dump-dom", "file://" + os.path.abspath(probe)],
                             capture_output=True, text=True, timeout=120)
    finally:
        os.remove(probe)
    m = re.search(r'data-site-check="([^"]*)"', run.stdout)
    if run.returncode != 0 or not m:
        return f"did not load (exit {run.returncode}): {run.stderr.strip().splitlines()[-1:]}"
    return None if m.group(1) == "ok" else m.group(1)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("site")
    ap.add_argument("pages", nargs="*")
    ap.add_argument("--browser", default="chromium")
    ap.add_argument("--screenshot")
    a = ap.parse_args(argv)
    exe = shutil.which(a.browser)
    if not exe:
        print(f"site_check: no browser '{a.browser}' (apt-get install chromium)", file=sys.stderr)
        return 3
    # headless, no sandbox (CI runs as root), no GPU, nothing fetched from the network
    browser = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
               "--disable-background-networking", "--disable-dev-shm-usage"]
    pages = sorted(p for p in os.listdir(a.site) if p.endswith(".html") and not p.startswith("."))
    if "index.html" not in pages:
        print(f"site_check: {a.site} has no index.html", file=sys.stderr)
        return 1
    failed = 0
    for page in a.pages or pages:
        problems = broken_links(a.site, page)
        err = browser_check(browser, a.site, page)
        if err:
            problems.append(err)
        failed += bool(problems)
        print(f"{page}: " + ("ok" if not problems else "; ".join(problems)))
    if a.screenshot:
        subprocess.run(browser + ["--window-size=1280,1600", f"--screenshot={os.path.abspath(a.screenshot)}",
                                  "file://" + os.path.abspath(os.path.join(a.site, "index.html"))],
                       capture_output=True, timeout=120)
        if not os.path.exists(a.screenshot):
            print(f"index.html: no screenshot written to {a.screenshot}")
            failed += 1
    print(f"site_check: {len(pages)} pages, {failed} with problems")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
