"""tests/test_figures.py - what a reader of the committed figures sees (issue 39 point 7), checked
on the figures drawn from the committed rows: no legend over a data point, a log x axis that
spans the data and not decades below it, one legend entry per source of paper points, gnuplot's
log ticks as plain numbers and non-negative axes from 0, RUMD's n2 | sort mark clear of the
legend, CUDA's Coulomb times visible beside OpenCL's.  Needs matplotlib: run by
tests/cases_60_drivers.sh with the project's python (plots/venv.sh).
"""
import os
import re
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "plots"))
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import figdata  # noqa: E402
import mpl_render  # noqa: E402
import tables  # noqa: E402

# the figures the issue named and one of each other kind of panel (six panels with the paper's
# bands and lines, four with points, a ratio from 0 over steps): the drawing is generic, and
# all fourteen take 20 s on 2 cores
TABLES = [tables.BY_ID[i] for i in ("table2", "chain", "table1", "table3", "table8")]


def data_points(ax):
    """Display coordinates of every marker and vertex of the axes' data lines inside the axes."""
    box = ax.get_window_extent()
    pts = []
    for line in ax.get_lines():
        xy = line.get_xydata()
        if len(xy):
            pts.extend(p for p in ax.transData.transform(xy) if box.contains(*p))
    return pts


class Figures(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # each table's data and figure once (drawing them is most of the time)
        cls.drawn = []
        for t in TABLES:
            td = figdata.table_data(t)
            fig = mpl_render.figure(td)
            fig.canvas.draw()
            cls.drawn.append((t, td, fig))

    @classmethod
    def tearDownClass(cls):
        plt.close("all")

    def test_no_legend_over_a_point(self):
        for t, _, fig in self.drawn:
            r = fig.canvas.get_renderer()
            for ax in fig.axes:
                leg = ax.get_legend()
                if leg is None:
                    continue
                box = leg.get_window_extent(r)
                hidden = [p for p in data_points(ax) if box.contains(*p)]
                self.assertEqual(hidden, [], f"{t['id']}, {ax.get_title()}: {len(hidden)} point(s) under the legend")

    def test_titles_inside_the_figure(self):
        for t, _, fig in self.drawn:
            r = fig.canvas.get_renderer()
            box = fig.bbox
            for ax in fig.axes:
                e = ax.title.get_window_extent(r)
                self.assertTrue(e.x0 >= box.x0 - 1 and e.x1 <= box.x1 + 1,
                                f"{t['id']}: the title {ax.get_title()!r} runs off the figure")

    def test_log_y_axis_has_numbers(self):
        # a log axis spanning less than a decade showed one number (table3 (a): 0.001 alone)
        for t, td, fig in self.drawn:
            for ax, p in zip([a for a in fig.axes if a.get_visible()], td["panels"]):
                if not (p["spec"].get("logy") and p["has_data"]):
                    continue
                lo, hi = sorted(ax.get_ylim())
                shown = [x for x in ax.yaxis.get_majorticklabels() + ax.yaxis.get_minorticklabels()
                         if x.get_text() and lo <= x.get_position()[1] <= hi]
                self.assertGreaterEqual(len(shown), 2, f"{t['id']}, {ax.get_title()!r}: y numbers {[x.get_text() for x in shown]}")

    def test_log_x_axis_spans_the_data(self):
        for t, td, fig in self.drawn:
            for ax, p in zip([a for a in fig.axes if a.get_visible()], td["panels"]):
                xs = [q.x for s in p["series"] for q in s["points"]]
                if not (p["spec"].get("logx") and xs):
                    continue
                lo, hi = ax.get_xlim()
                self.assertGreaterEqual(lo, min(xs) / 2, f"{t['id']}: x axis from {lo:g}, data from {min(xs):g}")
                self.assertLessEqual(hi, max(xs) * 2, f"{t['id']}: x axis to {hi:g}, data to {max(xs):g}")

    def test_one_legend_entry_per_label(self):
        for t, _, fig in self.drawn:
            for ax in fig.axes:
                labels = [x.get_text() for x in ax.get_legend().get_texts()] if ax.get_legend() else []
                self.assertEqual(len(labels), len(set(labels)), f"{t['id']}: legend repeats: {labels}")
                # the paper's points (stars): one entry per source, "paper SP" (chain's panel (b)
                # listed "paper SP: 1.16", "paper SP: 1.42", "paper SP: 1.17")
                stars = [lab.split(":")[0] for h, lab in zip(*ax.get_legend_handles_labels())
                         if getattr(h, "get_marker", lambda: None)() == "*"]
                self.assertEqual(len(stars), len(set(stars)), f"{t['id']}: paper points listed apart: {stars}")

    def test_gnuplot_axes(self):
        with tempfile.TemporaryDirectory() as d:
            for t, td, _ in self.drawn:
                figdata.write_gnuplot(td, d)
                spec = open(os.path.join(d, t["id"], "spec.gp")).read()
                setups = [ln for ln in spec.splitlines() if ln.startswith("setup[")]
                for p, setup in zip(td["panels"], setups):
                    ys = [v for s in p["series"] for q in s["points"] for v in (q.lo, q.hi)]
                    if not ys:
                        continue
                    if p["spec"].get("logy"):
                        # gnuplot's default log tick labels read "10.000000"
                        self.assertIn("set format y '%g'", setup, f"{t['id']}: {setup}")
                    elif min(ys) >= 0 and not p["refs"]:
                        # the headroom (set offsets) took a speed-up axis down to -100
                        self.assertIn("set yrange [0:*]", setup, f"{t['id']}: {setup}")


class Special(unittest.TestCase):
    """The figures drawn outside plots/tables.py: RUMD's Fig. 6, Sirny's Fig. 10."""

    def tearDown(self):
        plt.close("all")

    def drawn(self, module, name):
        figs = []
        real = plt.Figure.savefig

        def keep(fig, *a, **kw):   # the figures as saved, for their artists
            figs.append(fig)
            return real(fig, *a, **kw)
        with tempfile.TemporaryDirectory() as d:
            plt.Figure.savefig = keep
            try:
                module.draw(d)
            finally:
                plt.Figure.savefig = real
        for fig in figs:
            if any(name in (a.get_title() or "") for a in fig.axes):
                return fig
        self.fail(f"no figure with a panel titled {name!r}")

    def test_rumd_switch_mark_clear_of_the_legend(self):
        import rumd
        fig = self.drawn(rumd, "Fig. 6")
        fig.canvas.draw()
        r = fig.canvas.get_renderer()
        for ax in fig.axes:
            marks = [x for x in ax.texts if "n2 | sort" in x.get_text()]
            if not marks or ax.get_legend() is None:
                continue
            box = ax.get_legend().get_window_extent(r)
            self.assertFalse(marks[0].get_window_extent(r).overlaps(box), "the n2 | sort mark is under the legend")

    def test_coulomb_cuda_drawn_apart_from_opencl(self):
        import coulomb
        fig = self.drawn(coulomb, "Fig. 10")
        for ax in fig.axes[:2]:
            lines = {ln.get_label(): ln for ln in ax.get_lines()}
            cuda = [ln for k, ln in lines.items() if k.startswith("CUDA float")]
            ocl = [ln for k, ln in lines.items() if k.startswith("OpenCL float") and "NVIDIA" in k]
            if not (cuda and ocl):
                continue
            a, b = cuda[0], ocl[0]
            # colour aside (one a series), drawn alike: the later line covers the earlier one
            style = lambda ln: (ln.get_linestyle(), ln.get_markersize(), ln.get_markerfacecolor() == "none")  # noqa: E731
            self.assertNotEqual(style(a), style(b), "CUDA float is drawn as OpenCL float, under it")


class Readme(unittest.TestCase):
    """The README names the figures a driver's rows give: each is drawn (plots/out/mpl), and a
    gnuplot version exactly where plots/out/gp has one (it named gp versions of salt_mats,
    coulomb_fig10 and dd_sp, which are never drawn)."""

    def test_named_figures_are_drawn(self):
        text = open(os.path.join(ROOT, "README.md")).read()
        out = os.path.join(ROOT, "plots", "out")
        table = [ln for ln in text.splitlines() if ln.startswith("| ") and ".csv`; `" in ln]
        names = [ln.rsplit("; `", 1)[1].split("`")[0] for ln in table]
        self.assertGreater(len(names), 10, "the README's table of drivers and figures not found")
        for n in names:
            self.assertTrue(os.path.exists(os.path.join(out, "mpl", n + ".png")), f"README names {n}: not drawn")
        only = re.search(r"((?:`\w+`,?\s(?:and\s)?)+)are drawn by matplotlib only", text)
        self.assertIsNotNone(only, "the README does not say which figures have no gnuplot version")
        for n in re.findall(r"`(\w+)`", only.group(1)):
            self.assertFalse(os.path.exists(os.path.join(out, "gp", n + ".png")), f"{n} has a gnuplot version")
        for n in names:
            if n not in only.group(1):
                self.assertTrue(os.path.exists(os.path.join(out, "gp", n + ".png")),
                                f"README implies a gnuplot {n}: plots/out/gp has none")


if __name__ == "__main__":
    unittest.main()
