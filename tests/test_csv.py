"""tests/test_csv.py - the CSV reader (plots/nbrcsv.py), the figure data (plots/figdata.py),
the report on missing and present data (plots/report.py), the block-line and LAMMPS-log
parsers (runs/blocks.py, runs/lammps_row.py).  Standard library only; run by
tests/cases_60_drivers.sh as `python3 tests/test_csv.py`.
"""
import io
import os
import shutil
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "plots"))
sys.path.insert(0, os.path.join(ROOT, "runs"))
import blocks  # noqa: E402
import figdata  # noqa: E402
import lammps_row  # noqa: E402
import nbrcsv  # noqa: E402
import report  # noqa: E402
import tables  # noqa: E402

# a few columns of the run schema are enough for the reader; rows that figdata selects
# need the columns the table definitions name
HEADER = ("timestamp,variant,tag,system,ne,n,steps,equil,precision,delta,threads,reorder,reorder_at,read,wlayout,"
          "layer_assign,reduce,"
          "us_per_atom_step,frac_list,frac_force,frac_transfer,frac_reorder,nbr_per_atom,cells_per_axis,layers,"
          "steps_per_rebuild,bytes_per_atom,e_start,e_end,drift,status")


def row(**kw):
    base = dict(timestamp="2026-01-01T00:00:00Z", variant="gpu-layer", tag="t", system="sp", ne="48",
                n="110592", steps="3000", equil="500", precision="float", delta="0.6", threads="128",
                reorder="100", reorder_at="host", read="texture", wlayout="row", layer_assign="host", reduce="host", us_per_atom_step="0.01", frac_list="0.3",
                frac_force="0.5", frac_transfer="0.1", frac_reorder="0.01", nbr_per_atom="15.4",
                cells_per_axis="27", layers="9", steps_per_rebuild="12", bytes_per_atom="250",
                e_start="2.3", e_end="2.3001", drift="4e-5", status="ok")
    base.update(kw)
    return ",".join(base[c] for c in HEADER.split(","))


class Base(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        figdata._cache.clear()

    def tearDown(self):
        shutil.rmtree(self.dir)
        figdata._cache.clear()

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path


class Reader(Base):
    def test_good(self):
        p = self.write("good.csv", HEADER + "\n" + row() + "\n" + row(ne="64") + "\n")
        t = nbrcsv.read(p, need=["us_per_atom_step"], numeric=["us_per_atom_step", "ne"])
        self.assertEqual(len(t), 2)
        self.assertEqual(t.rows[1].num("ne"), 64.0)
        self.assertEqual(t.rows[1].line, 3)

    def test_dash_is_missing(self):
        p = self.write("dash.csv", HEADER + "\n" + row(threads="-") + "\n")
        self.assertIsNone(nbrcsv.read(p).rows[0].num("threads"))

    def test_extra_field(self):
        p = self.write("bad.csv", HEADER + "\n" + row() + "\n" + row() + ",x\n")
        with self.assertRaisesRegex(nbrcsv.CsvError, r"bad\.csv line 3: \d+ fields, the header has \d+"):
            nbrcsv.read(p)

    def test_truncated(self):
        full = HEADER + "\n" + row() + "\n" + row() + "\n"
        p = self.write("cut.csv", full[:len(full) - 40])
        with self.assertRaisesRegex(nbrcsv.CsvError, r"cut\.csv line 3: .*truncated"):
            nbrcsv.read(p)

    def test_cut_at_line_end_is_not_silently_short(self):
        p = self.write("cut2.csv", HEADER + "\n" + row())  # no final newline
        with self.assertRaisesRegex(nbrcsv.CsvError, r"cut2\.csv line 2: .*no end of line"):
            nbrcsv.read(p)

    def test_not_a_number(self):
        p = self.write("nan.csv", HEADER + "\n" + row() + "\n" + row(us_per_atom_step="fast") + "\n")
        with self.assertRaisesRegex(nbrcsv.CsvError, r"nan\.csv line 3: column 'us_per_atom_step' = 'fast'"):
            nbrcsv.read(p, numeric=["us_per_atom_step"])
        t = nbrcsv.read(p)  # only checked when asked, or when used:
        with self.assertRaisesRegex(nbrcsv.CsvError, r"line 3"):
            t.rows[1].num("us_per_atom_step")

    def test_missing_column(self):
        p = self.write("col.csv", HEADER + "\n" + row() + "\n")
        with self.assertRaisesRegex(nbrcsv.CsvError, r"col\.csv line 1: no column 'speed'"):
            nbrcsv.read(p, need=["speed"])

    def test_empty(self):
        p = self.write("empty.csv", "")
        with self.assertRaisesRegex(nbrcsv.CsvError, r"empty\.csv line 1: empty file"):
            nbrcsv.read(p)

    def test_reference_file(self):
        refs = figdata.reference()
        self.assertEqual(refs["texture_off"].num("value"), 1.85)
        for t in tables.TABLES:  # every id the tables name exists
            for p in t["panels"]:
                for m in p.get("refs", []):
                    self.assertIn(m["id"], refs, t["id"])
            for c in t.get("compare", []):
                self.assertIn(c["ref"], refs, t["id"])


class Figures(Base):
    def setUp(self):
        super().setUp()
        os.environ["NBR_RESULTS"] = self.dir

    def tearDown(self):
        del os.environ["NBR_RESULTS"]
        super().tearDown()

    def test_missing_table_says_so(self):
        td = figdata.table_data(tables.BY_ID["table5"])
        self.assertFalse(td["has_data"])
        self.assertIn("table5.csv", "; ".join(td["notes"]))

    def test_series_best_row_per_x(self):
        self.write(f"{tables.GPU}/table5.csv", HEADER + "\n" + "\n".join([
            row(delta="0.4", us_per_atom_step="0.02"),
            row(delta="0.6", us_per_atom_step="0.01", steps="1500"),   # QUICK run
            row(delta="0.6", us_per_atom_step="0.03", steps="3000"),   # longer run: wins
            row(delta="0.8", us_per_atom_step="0.05", status="check-failed"),  # not ok: ignored
            row(delta="0.8", us_per_atom_step="0.04", ne="32"),        # another system
        ]) + "\n")
        td = figdata.table_data(tables.BY_ID["table5"])
        pts = [(x, y) for x, y, r in td["panels"][0]["series"][0]["points"]]
        self.assertEqual(pts, [(0.4, 0.02), (0.6, 0.03)])

    def test_norm_and_categories(self):
        self.write(f"{tables.GPU}/texture.csv", HEADER + "\n" + "\n".join([
            row(read="texture", us_per_atom_step="0.01"), row(read="plain", us_per_atom_step="0.02")]) + "\n")
        td = figdata.table_data(tables.BY_ID["texture"])
        pts = [(x, y) for x, y, r in td["panels"][1]["series"][0]["points"]]
        self.assertEqual(pts, [(1, 1.0), (3, 2.0)])

    def test_bad_csv_names_file_and_line(self):
        self.write(f"{tables.GPU}/table6.csv", HEADER + "\n" + row() + "\n" + row()[:30] + "\n")
        with self.assertRaisesRegex(nbrcsv.CsvError, r"table6\.csv line 3"):
            figdata.table_data(tables.BY_ID["table6"])

    def test_report_without_and_with_data(self):
        out = os.path.join(self.dir, "REPORT.md")
        with redirect_stdout(io.StringIO()):
            report.render(out)
        with open(out) as f:
            text = f.read()
        self.assertIn("**Not measured yet**: run runs/table1.sh on the GPU machine", text)
        self.write(f"{tables.GPU}/texture.csv", HEADER + "\n" + "\n".join([
            row(read="texture", us_per_atom_step="0.01"), row(read="plain", us_per_atom_step="0.0185")]) + "\n")
        figdata._cache.clear()
        report.render(out)
        with open(out) as f:
            text = f.read()
        self.assertRegex(text, r"\| texture \| .* \| 1\.85 \| 1\.85 \| agrees")

    def test_every_gnuplot_spec_is_written(self):
        for t in tables.TABLES:
            figdata.write_gnuplot(figdata.table_data(t), os.path.join(self.dir, "gp"))
            self.assertTrue(os.path.exists(os.path.join(self.dir, "gp", t["id"], "spec.gp")))


class Parsers(Base):
    LOG = """# nbrlab gpu-layer: test
# tag            = t8-x
# equil          = 500
# avg-block      = 1000
# step 0: E/N = 2.3  U/N = 0.8  T = 1.0  G = 27  layers = 9  nbr/atom = 15.4
# step 1000: <E/N> = 2.31  <T> = 1.0  E/N = 2.31  U/N = 0.8  builds = 80  block_us_per_atom_step = 0.011
# step 2000: <E/N> = 2.31  <T> = 1.0  E/N = 2.31  U/N = 0.8  builds = 160  block_us_per_atom_step = 0.012
# step 2500: <E/N> = 2.31  <T> = 1.0  E/N = 2.31  U/N = 0.8  builds = 200  block_us_per_atom_step = 0.013
"""

    def test_blocks(self):
        log = self.write("logs/t8-x.log", self.LOG)
        out = os.path.join(self.dir, "b.csv")
        with redirect_stderr(io.StringIO()):
            self.assertEqual(blocks.main([out, log]), 0)
        t = nbrcsv.read(out, numeric=["step", "block_us_per_atom_step"])
        self.assertEqual([(r["step"], r["timed"], r["full"]) for r in t],
                         [("1000", "1", "0"), ("2000", "1", "1"), ("2500", "1", "1")])

    def test_blocks_not_a_log(self):
        log = self.write("logs/x.log", "hello\n")
        with redirect_stderr(io.StringIO()) as err:
            self.assertEqual(blocks.main([os.path.join(self.dir, "b.csv"), log]), 2)
        self.assertIn("x.log: no '# tag = ...' line", err.getvalue())

    def test_lammps_log(self):
        p = lammps_row.parse(os.path.join(ROOT, "tests", "data", "lammps_sp6.log"))
        self.assertEqual((p["n"], p["timed"], p["equil"]), (216, 200, 50))
        self.assertAlmostEqual(p["rc"], 2 ** (1 / 6), places=6)
        self.assertAlmostEqual(p["delta"], 0.6)
        self.assertGreater(p["neighs"], 5)
        self.assertGreater(p["builds"], 0)
        self.assertIn("Pair", p["sections"])
        self.assertAlmostEqual(p["e_start"], 2.248, places=2)

    def test_lammps_cut_log(self):
        with open(os.path.join(ROOT, "tests", "data", "lammps_sp6.log")) as f:
            text = f.read()
        cut = self.write("cut.log", text[:text.rindex("Loop time of")])
        with self.assertRaisesRegex(lammps_row.LogError, "1 completed runs"):
            lammps_row.parse(cut)


if __name__ == "__main__":
    unittest.main(verbosity=1)
