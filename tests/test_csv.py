"""tests/test_csv.py - the drivers' CSV reader (runs/csvq.py), the plots' pandas loader
(plots/nbrcsv.py), the figure data (plots/figdata.py: medians of one revision, knob defaults,
block rows joined to their runs), the report on missing and present data and the revision of
its numbers (plots/report.py), the cluster section's ratios and verdict (plots/cluster.py), the
LAMMPS-log parser (runs/lammps_row.py).  Needs pandas: run
by tests/cases_60_drivers.sh with the project's python (plots/venv.sh).
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
import cluster  # noqa: E402
import launch  # noqa: E402
import csvq  # noqa: E402
import figdata  # noqa: E402
import lammps_row  # noqa: E402
import nbrcsv  # noqa: E402
import report  # noqa: E402
import tables  # noqa: E402

# a few columns of the run schema are enough for the reader; rows that figdata selects
# need the columns the table definitions name
HEADER = ("timestamp,git_rev,variant,tag,system,ne,n,steps,equil,precision,delta,threads,reorder,reorder_at,read,wlayout,"
          "layer_assign,reduce,"
          "us_per_atom_step,frac_list,frac_force,frac_transfer,frac_reorder,nbr_per_atom,cells_per_axis,layers,"
          "steps_per_rebuild,bytes_per_atom,e_start,e_end,drift,status")


def row(**kw):
    base = dict(timestamp="2026-01-01T00:00:00Z", git_rev="abc1234", variant="gpu-layer", tag="t", system="sp", ne="48",
                n="110592", steps="3000", equil="500", precision="float", delta="0.6", threads="128",
                reorder="100", reorder_at="host", read="texture", wlayout="row", layer_assign="host", reduce="host", us_per_atom_step="0.01", frac_list="0.3",
                frac_force="0.5", frac_transfer="0.1", frac_reorder="0.01", nbr_per_atom="15.4",
                cells_per_axis="27", layers="9", steps_per_rebuild="12", bytes_per_atom="250",
                e_start="2.3", e_end="2.3001", drift="4e-5", status="ok")
    base.update(kw)
    return ",".join(base[c] for c in HEADER.split(","))


FIXTURE = os.path.join(ROOT, "tests", "fixtures", "wide_rows.csv")
# the core columns of the programs' rows (common/report.c), for the migration's NEW header
CORE = ("timestamp,git_rev,host,device,compiler,variant,tag,precision,n,system,ne,lattice,rho,temp,rc,delta,dt,"
        "potential,shift,config,seed,steps,equil,sample_every,verify_lists,rebuild_frac,stage_reps,us_per_atom_step,"
        "us_per_atom_step_mean,us_per_step,timing_blocks,total_s,t_list_us,t_force_us,t_integrate_us,t_reorder_us,"
        "t_other_us,gbs_list,gbs_force,gbs_integrate,gbs_reorder,gbs_other,frac_list,frac_force,frac_integrate,"
        "frac_reorder,frac_other,nbr_per_atom,cells_per_axis,layers,list_threads,rebuilds,steps_per_rebuild,reorders,"
        "bytes_per_atom,capacity_grows,e_start,e_end,drift,e_rms,pressure,temp_measured,lists_verified,steps_done,"
        "status,check,check_f_err,check_u_err,check_e_rel,check_w_err,check_last_f_err,check_pairs_bad").split(",")
CHECK_COLS = [c for c in CORE if c.startswith("check")]   # --check's columns (issue 36)


BLOCK_HEADER = ("git_rev,variant,tag,system,ne,n,precision,block,step,steps_in_block,timed_steps,e_mean,"
                "temp_mean,e_end,u_end,builds_total,us_per_atom_step")


def block(**kw):
    base = dict(git_rev="abc1234", variant="gpu-layer", tag="t", system="sp", ne="48", n="110592",
                precision="float", block="1", step="1000", steps_in_block="1000", timed_steps="1000",
                e_mean="2.3", temp_mean="1.0", e_end="2.3", u_end="0.8", builds_total="80", us_per_atom_step="0.001")
    base.update(kw)
    return ",".join(base[c] for c in BLOCK_HEADER.split(","))


class Base(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        figdata._cache.clear()
        figdata._defaults.clear()
        self.build = os.environ.get("BUILD")
        os.environ["BUILD"] = os.path.join(self.dir, "nobuild")   # knob defaults from the rows

    def tearDown(self):
        shutil.rmtree(self.dir)
        figdata._cache.clear()
        figdata._defaults.clear()
        if self.build is None:
            os.environ.pop("BUILD", None)
        else:
            os.environ["BUILD"] = self.build

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
        self.assertEqual(nbrcsv.num(t, "ne").iloc[1], 64.0)
        self.assertEqual(t["_line"].iloc[1], 3)
        self.assertEqual(t["threads"].iloc[1], "128")   # text as written

    def test_dash_is_missing(self):
        p = self.write("dash.csv", HEADER + "\n" + row(threads="-") + "\n")
        self.assertTrue(nbrcsv.num(nbrcsv.read(p), "threads").isna().all())

    def test_unknown_and_missing_columns(self):
        # a newer file has columns nobody reads yet; an older one lacks some: both are read by name
        p = self.write("new.csv", HEADER + ",pressure\n" + row() + ",1.5\n")
        self.assertEqual(nbrcsv.num(nbrcsv.read(p), "pressure").iloc[0], 1.5)
        q = self.write("old.csv", HEADER.replace(",frac_reorder", "") + "\n" +
                       ",".join(v for c, v in zip(HEADER.split(","), row().split(",")) if c != "frac_reorder") + "\n")
        t = nbrcsv.read(q)
        self.assertTrue(nbrcsv.num(t, "frac_reorder").isna().all())
        self.assertEqual(len(figdata.select(t, {"frac_reorder": "0.01"})), 0)

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
        with self.assertRaisesRegex(nbrcsv.CsvError, r"nan\.csv line 3: column 'us_per_atom_step'"):
            nbrcsv.num(t, "us_per_atom_step")

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
        self.assertEqual(figdata.refnum(refs["texture_off"], "value"), 1.85)
        for t in tables.TABLES:  # every id the tables name exists
            for p in t["panels"]:
                for m in p.get("refs", []):
                    self.assertIn(m["id"], refs, t["id"])
            for c in t.get("compare", []):
                self.assertIn(c["ref"], refs, t["id"])


class InResults(Base):
    """The temporary folder is results/ for figdata, the report and its sections."""
    def setUp(self):
        super().setUp()
        os.environ["NBR_RESULTS"] = self.dir

    def tearDown(self):
        del os.environ["NBR_RESULTS"]
        super().tearDown()


class Figures(InResults):
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
        self.assertRegex(text, r"\| texture \| .* \| 1\.85 \| 1\.85 \| agrees \(within 10%\) \| abc1234 \|")

    def test_one_revision_per_point(self):
        """A point is the median of the newest revision's repeats: rows of older code are never
        mixed in, and the point says which revision it is."""
        self.write(f"{tables.GPU}/table6.csv", HEADER + "\n" + "\n".join([
            row(threads="64", us_per_atom_step="0.05", git_rev="old1", timestamp="2026-01-01T00:00:00Z"),
            row(threads="64", us_per_atom_step="0.06", git_rev="old1", timestamp="2026-01-01T00:00:01Z"),
            row(threads="64", us_per_atom_step="0.01", git_rev="new2", timestamp="2026-01-02T00:00:00Z"),
            row(threads="64", us_per_atom_step="0.03", git_rev="new2", timestamp="2026-01-02T00:00:01Z"),
        ]) + "\n")
        td = figdata.table_data(tables.BY_ID["table6"])
        (q,) = td["panels"][0]["series"][0]["points"]
        self.assertEqual((q.y, q.lo, q.hi, q.revs), (0.02, 0.01, 0.03, {"new2"}))
        self.assertEqual(td["revs"], ["new2"])
        self.assertIn("revision new2", figdata.figure_note(td))

    def test_knob_defaults_from_the_program(self):
        """The paper's settings come from the GPU program's --print-config; without one, from
        the value most rows share."""
        self.write(f"{tables.GPU}/table6.csv", HEADER + "\n" + "\n".join([
            row(threads="64", read="texture", us_per_atom_step="0.01"),
            row(threads="128", read="texture", us_per_atom_step="0.02"),
            row(threads="128", read="ldg", us_per_atom_step="0.03")]) + "\n")
        td = figdata.table_data(tables.BY_ID["table6"])
        self.assertEqual([(q.x, q.y) for q in td["panels"][0]["series"][0]["points"]], [(64, 0.01), (128, 0.02)])
        self.assertIn("the value most rows share", "; ".join(td["notes"]))
        prog = self.write("build/float/gpu-layer", "#!/bin/sh\n[ \"$1\" = --print-config ] || exit 2\n"
                          "printf 'threads=128\\nread=ldg\\nreorder=100\\nreorder-at=host\\nwlayout=row\\n"
                          "layers=host\\nreduce=host\\ngit_rev=x\\n'\n")
        os.chmod(prog, 0o755)
        os.environ["BUILD"] = os.path.join(self.dir, "build")
        figdata._defaults.clear()
        td = figdata.table_data(tables.BY_ID["table6"])
        self.assertEqual([(q.x, q.y) for q in td["panels"][0]["series"][0]["points"]], [(128, 0.03)])
        self.assertNotIn("the value most rows share", "; ".join(td["notes"]))

    def test_blocks_joined_to_their_run(self):
        """--blocks-csv rows join their run's row by tag and revision; a rerun's blocks replace
        the earlier ones; untimed blocks are not drawn as times."""
        self.write(f"{tables.GPU}/table8.csv", HEADER + "\n" + "\n".join([
            row(tag="t8a", reorder="100", steps="3500"), row(tag="t8b", reorder="0", steps="3500")]) + "\n")
        blocks = [block(tag="t8a", block="1", step="1000", timed_steps="500", us_per_atom_step="0.5"),
                  block(tag="t8a", block="2", step="2000", us_per_atom_step="9"),     # replaced by the rerun
                  block(tag="t8a", block="1", step="1000", timed_steps="500", us_per_atom_step="0.5"),
                  block(tag="t8a", block="2", step="2000", us_per_atom_step="1.0"),
                  block(tag="t8a", block="3", step="3000", us_per_atom_step="1.0"),
                  block(tag="t8b", block="1", step="1000", timed_steps="0", us_per_atom_step="0"),
                  block(tag="t8b", block="2", step="2000", us_per_atom_step="1.5"),
                  block(tag="t8b", block="3", step="3000", us_per_atom_step="2.0"),
                  block(tag="t8c", block="1", step="1000", us_per_atom_step="7")]    # no run row: not drawn
        self.write(f"{tables.GPU}/table8_blocks.csv", BLOCK_HEADER + "\n" + "\n".join(blocks) + "\n")
        td = figdata.table_data(tables.BY_ID["table8"])
        pts = {s["label"]: [(q.x, q.y) for q in s["points"]] for s in td["panels"][0]["series"]}
        self.assertEqual(pts["S, reorder every 100"], [(1000, 0.5), (2000, 1.0), (3000, 1.0)])
        self.assertEqual(pts["S, never reordered"], [(2000, 1.5), (3000, 2.0)])
        ratio = [(q.x, q.y) for q in td["panels"][1]["series"][0]["points"]]
        self.assertEqual(ratio, [(2000, 1.5), (3000, 2.0)])

    def test_chain_verdict_both_reorder_settings(self):
        out = os.path.join(self.dir, "REPORT.md")
        for name, reorder, times in (("cpu_chain.csv", "100", (1.0, 1.26, 1.66, 2.0)),
                                     ("cpu_chain_reorder0.csv", "0", (1.0, 1.34, 1.74, 2.08))):
            self.write(f"{tables.CPU}/{name}", HEADER + "\n" + "\n".join(
                row(variant=v, precision="double", reorder=reorder, us_per_atom_step=str(u), git_rev="rev" + reorder)
                for v, u in zip(["cpu-pairlist", "cpu-grouped", "cpu-full", "cpu-layer"], times)) + "\n")
        with redirect_stdout(io.StringIO()):
            report.render(out)
        with open(out) as f:
            text = f.read()
        self.assertRegex(text, r"\| grouped / pair list \| 1\.16 \| 1\.34 \| 1\.16 \| rev0 \| 1\.26 \| 1\.09 \| rev100 \|")
        self.assertRegex(text, r"\| layer matrix / pair list \(cumulative\) \| 1\.92 \| 2\.08 \| 1\.08 \| rev0 \| 2 \| 1\.04 \| rev100 \|")

    def test_every_gnuplot_spec_is_written(self):
        for t in tables.TABLES:
            figdata.write_gnuplot(figdata.table_data(t), os.path.join(self.dir, "gp"))
            self.assertTrue(os.path.exists(os.path.join(self.dir, "gp", t["id"], "spec.gp")))


class Csvq(Base):
    """runs/csvq.py: what the drivers read, by column name."""

    def q(self, *argv, stdin=None):
        out, err = io.StringIO(), io.StringIO()
        old = sys.stdin
        if stdin is not None:
            sys.stdin = io.StringIO(stdin)
        try:
            with redirect_stdout(out), redirect_stderr(err):
                rc = csvq.main(list(argv))
        finally:
            sys.stdin = old
        return rc, out.getvalue(), err.getvalue()

    def test_get_last_matching_row(self):
        p = self.write("r.csv", HEADER + ",newcol\n" + "\n".join([
            row(tag="a", us_per_atom_step="1", git_rev="r1") + ",x",
            row(tag="a", us_per_atom_step="2", git_rev="r2") + ",x",
            row(tag="a", us_per_atom_step="3", git_rev="r2", status="check-failed") + ",x",
            row(tag="b", us_per_atom_step="4", git_rev="r2") + ",x"]) + "\n")
        self.assertEqual(self.q("get", p, "us_per_atom_step", "tag=a", "status=ok"), (0, "2\n", ""))
        self.assertEqual(self.q("get", p, "us_per_atom_step", "tag=a", "status=ok", "git_rev=r1")[:2], (0, "1\n"))
        self.assertEqual(self.q("get", p, "us_per_atom_step", "tag=a", "git_rev=r9")[:2], (1, ""))
        self.assertEqual(self.q("get", p, "us_per_atom_step", "tag=a", "git_rev=r9", "--or", "-")[:2], (0, "-\n"))
        self.assertEqual(self.q("get", p, "pressure", "tag=a", "--or", "-")[:2], (0, "-\n"))   # older file
        self.assertEqual(self.q("has", p, "tag=b", "git_rev=r2")[0], 0)
        self.assertEqual(self.q("has", p, "tag=b", "nosuchcolumn=x")[0], 1)   # an older file: no match
        self.assertEqual(self.q("values", p, "tag", "status=ok")[1], "a\nb\n")
        self.assertEqual(self.q("has", os.path.join(self.dir, "none.csv"), "tag=a")[0], 1)   # not run yet

    def test_columns_by_name_not_position(self):
        cols = HEADER.split(",")
        vals = row(tag="a", us_per_atom_step="7").split(",")
        p = self.write("rev.csv", ",".join(reversed(cols)) + "\n" + ",".join(reversed(vals)) + "\n")
        self.assertEqual(self.q("get", p, "us_per_atom_step", "tag=a")[1], "7\n")

    def test_damaged_and_missing_column(self):
        p = self.write("bad.csv", HEADER + "\n" + row() + ",x\n")
        rc, out, err = self.q("get", p, "us_per_atom_step", "tag=t")
        self.assertEqual(rc, 2)
        self.assertRegex(err, r"^csvq: .*bad\.csv line 2: \d+ fields, the header has \d+")
        q = self.write("cut.csv", HEADER + "\n" + row())
        self.assertRegex(self.q("has", q, "tag=t")[2], r"cut\.csv line 2: .*no end of line")
        g = self.write("good.csv", HEADER + "\n" + row() + "\n")
        rc, out, err = self.q("get", g, "speed", "tag=t")
        self.assertEqual(rc, 2)
        self.assertIn("good.csv line 1: no column 'speed'", err)

    def test_table_shows_missing_columns_as_dash(self):
        p = self.write("t.csv", "tag,variant,us_per_atom_step\nx-1,cpu-layer,0.1234567\ny-1,cpu-full,2\n")
        rc, out, _ = self.q("table", p, "--prefix", "x-")
        self.assertEqual(rc, 0)
        self.assertIn("cpu-layer", out)
        self.assertNotIn("cpu-full", out)
        self.assertIn("0.1235", out)
        self.assertRegex(out.splitlines()[1], r" - ")

    def test_config_get(self):
        conf = "threads=128\nread=texture\ngit_rev=abc1234-dirty\nn=4096\n"
        self.assertEqual(self.q("config-get", "git_rev", stdin=conf)[:2], (0, "abc1234-dirty\n"))
        self.assertEqual(self.q("config-get", "tag", stdin=conf)[0], 1)

    def test_hyperfine_row(self):
        hf = self.write("hf.csv", "command,mean,stddev,median,user,system,min,max\n"
                                  "t1,1.5,0.1,1.4,1.0,0.2,1.3,1.7\n")
        out = os.path.join(self.dir, "out_hyperfine.csv")
        self.assertEqual(self.q("hyperfine-row", hf, out, "t1", "3", "1000", "500", "r1", "prog --ne 10")[0], 0)
        t = csvq.read(out)
        self.assertEqual((t.rows[0]["git_rev"], t.rows[0]["mean_s"], t.rows[0]["us_per_atom_step_whole"]),
                         ("r1", "1.5", "3"))
        # an older file without git_rev: its rows get "-", the new row its revision
        old = self.write("old_hyperfine.csv", "tag,runs,mean_s\nt0,3,2.0\n")
        self.assertEqual(self.q("hyperfine-row", hf, old, "t1", "3", "1000", "500", "r1", "p")[0], 0)
        t = csvq.read(old)
        self.assertEqual([r["git_rev"] for r in t.rows], ["-", "r1"])


class Knobs(Base):
    """The knobs column (docs/csv.md): both readers expand it to the same table, which is the
    wide table of before (tests/fixtures/wide_rows.csv through runs/migrate_csv.py)."""

    def migrated(self):
        import migrate_csv
        new = self.write("new.csv", ",".join(CORE) + ",knobs\n")
        text, old = migrate_csv.migrated_text(FIXTURE, csvq.read(new).file_header[:-1])
        return self.write("migrated.csv", text), old

    def test_both_readers_give_the_wide_table(self):
        path, old = self.migrated()
        df = nbrcsv.read(path)
        t = csvq.read(path)
        self.assertEqual([c for c in df.columns if not c.startswith("_")], t.header)
        self.assertEqual(df[t.header].values.tolist(), [[r[c] for c in t.header] for r in t.rows])
        for c in old.header:   # every old column, "-" where no row has it
            got = df[c].tolist() if c in df.columns else ["-"] * len(df)
            self.assertEqual(got, [r[c] for r in old.rows], c)
        self.assertEqual(df.loc[df["ranks"] == "2", "dd_grid"].tolist(), ["2x1x1"])
        self.assertEqual(df["wlayout"].tolist()[-1], "-")   # gpu-onchip has no --wlayout
        self.assertNotIn("tier", df.columns)   # no row has a tier pair: reads "-" by csvq get, needed: stops
        self.assertEqual(t.missing("tier"), "-")
        with self.assertRaisesRegex(csvq.CsvError, "no column 'tier'"):
            nbrcsv.read(path, need=["tier"])

    def test_knobbed_file_gets_the_check_columns(self):
        """A file of the knobs schema written before the --check columns: csvq reads '-' there;
        migrate_csv.py adds them ('-' in its rows, knobs and values untouched), then leaves it as it is;
        a core column today's header lacks stops it."""
        import migrate_csv
        old_core = [c for c in CORE if c not in CHECK_COLS]
        vals = lambda v: ["x" if c not in ("variant", "status") else v for c in old_core]
        text = "\n".join([",".join(old_core + ["knobs"]), ",".join(vals("cpu-grouped") + ["reorder=100 max_nbr=0"]),
                          ",".join(vals("cpu-cells") + [""])]) + "\n"
        path = self.write("old.csv", text)
        self.assertEqual(csvq.read(path).where(check="-")[0][1]["variant"], "cpu-grouped")
        new = self.write("new.csv", ",".join(CORE) + ",knobs\n")
        out = io.StringIO()
        with redirect_stdout(out):
            self.assertEqual(migrate_csv.main(["migrate_csv.py", new, path]), 0)
        self.assertIn("read back exactly", out.getvalue())
        with open(path) as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[0], ",".join(CORE) + ",knobs")
        t = csvq.read(path)
        self.assertEqual([[r[c] for c in CHECK_COLS] for r in t.rows], [["-"] * len(CHECK_COLS)] * 2)
        self.assertEqual([r["reorder"] for r in t.rows], ["100", "-"])
        self.assertEqual(nbrcsv.read(path)["check"].tolist(), ["-", "-"])
        old = self.write("before.csv", text)
        self.assertEqual(migrate_csv.differences(csvq.read(old), t), None)
        with redirect_stdout(out):
            self.assertEqual(migrate_csv.main(["migrate_csv.py", new, path]), 0)   # today's header: left as it is
        self.assertIn("left as it is", out.getvalue())
        with open(path) as f:
            self.assertEqual(f.read().splitlines(), lines)
        extra = self.write("extra.csv", "\n".join(l.replace(",knobs", ",retired,knobs") if k == 0 else
                                                  l.rsplit(",", 1)[0] + ",-," + l.rsplit(",", 1)[1]
                                                  for k, l in enumerate(text.splitlines())) + "\n")
        err = io.StringIO()
        with redirect_stderr(err):
            self.assertEqual(migrate_csv.main(["migrate_csv.py", new, extra]), 2)
        self.assertIn("column retired is not a core column of the new schema: not migrated", err.getvalue())

    def test_bad_pairs_stop_both_readers(self):
        path, _ = self.migrated()
        with open(path) as f:
            lines = f.read().split("\n")
        for bad, why in (("tp", "is not column=value"), ("tp=1 tp=2", "comes twice"), ("n=3", "names a column of its own"),
                         ("tp=1  pb=2", "is not column=value")):
            p = self.write("bad.csv", "\n".join(lines[:2] + [lines[2].rsplit(",", 1)[0] + "," + bad] + lines[3:]))
            for reader in (csvq.read, nbrcsv.read):
                with self.assertRaisesRegex(csvq.CsvError, rf"bad\.csv line 3: knobs pair .* {why}"):
                    reader(p)


class Parsers(Base):
    def test_lammps_log(self):
        p = lammps_row.parse(os.path.join(ROOT, "tests", "data", "lammps_sp6.log"))
        self.assertEqual((p["n"], p["timed"], p["equil"]), (216, 200, 50))
        self.assertAlmostEqual(p["rc"], 2 ** (1 / 6), places=6)
        self.assertAlmostEqual(p["delta"], 0.6)
        self.assertGreater(p["neighs"], 5)
        self.assertGreater(p["builds"], 0)
        self.assertIn("Pair", p["sections"])
        self.assertAlmostEqual(p["e_start"], 2.248, places=2)
        # the mean Press of the 20 thermo lines after step 0 of the timed run
        self.assertAlmostEqual(p["pressure"], 6.4325505, places=6)

    def test_lammps_cut_log(self):
        with open(os.path.join(ROOT, "tests", "data", "lammps_sp6.log")) as f:
            text = f.read()
        cut = self.write("cut.log", text[:text.rindex("Loop time of")])
        with self.assertRaisesRegex(lammps_row.LogError, "1 completed runs"):
            lammps_row.parse(cut)


class ClusterSection(InResults):
    """cpu-cluster over cpu-grouped at one point: the mean of the newest revision's rounds on
    both sides (an older revision's rows left out, its series too), the target's verdict at every
    N >= 32 768 and there only."""
    HDR = "timestamp,git_rev,device,variant,tag,system,precision,n,us_per_atom_step,status,knobs"

    def rows(self, *rs):
        lines = [",".join(["2026-01-01T00:00:00Z", rev, "Some CPU", v, f"cc-{v}-{k}", sysn, "float", str(n), str(t),
                           st, f"simd={simd}" if simd else "x=0"])
                 for k, (rev, v, simd, sysn, n, t, st) in enumerate(rs)]
        self.write("m/cpu_cluster.csv", self.HDR + "\n" + "\n".join(lines) + "\n")

    def test_ratio_and_verdict(self):
        self.rows(("old", "cpu-cluster", "avx2", "lj", 32768, 9.0, "ok"),     # older revision: left out
                  ("old", "cpu-cluster", "avx512", "lj", 32768, 0.1, "ok"),   # a series only there: too
                  ("new", "cpu-grouped", "", "lj", 32768, 1.0, "ok"),
                  ("new", "cpu-grouped", "", "lj", 32768, 1.2, "ok"),
                  ("new", "cpu-cluster", "avx2", "lj", 32768, 0.5, "ok"),
                  ("new", "cpu-cluster", "avx2", "lj", 32768, 0.6, "ok"),
                  ("new", "cpu-cluster", "avx2", "lj", 32768, 5.0, "check-failed"),   # not ok: left out
                  ("new", "cpu-grouped", "", "lj", 4000, 1.0, "ok"),
                  ("new", "cpu-cluster", "avx2", "lj", 4000, 0.1, "ok"))            # below the target's N
        text = cluster.section(os.path.join(self.dir, "REPORT.md"))
        self.assertIn("| cpu-cluster avx2 | 0.1000 (0.10) | 0.5500 (0.50) |", text)
        self.assertIn("best ratio 0.50 at N = 32768; met", text)
        self.assertNotIn("avx512", text)
        self.rows(("new", "cpu-grouped", "", "sp", 32768, 1.0, "ok"),
                  ("new", "cpu-cluster", "avx512", "sp", 32768, 0.51, "ok"))
        self.assertIn("best ratio 0.51 at N = 32768; not met", cluster.section(os.path.join(self.dir, "REPORT.md")))
        # at every N from 32 768 up: one N above the ratio is enough to miss it
        self.rows(("new", "cpu-grouped", "", "sp", 32768, 1.0, "ok"),
                  ("new", "cpu-cluster", "avx512", "sp", 32768, 0.4, "ok"),
                  ("new", "cpu-grouped", "", "sp", 262144, 1.0, "ok"),
                  ("new", "cpu-cluster", "avx512", "sp", 262144, 0.6, "ok"))
        self.assertIn("best ratio 0.40 at N = 32768, 0.60 at N = 262144; not met",
                      cluster.section(os.path.join(self.dir, "REPORT.md")))

    def test_generic_build_medians(self):
        self.rows(("new", "cpu-grouped", "", "lj", 32768, 1.0, "ok"),
                  ("new", "cpu-cluster", "avx512", "lj", 32768, 0.5, "ok"))
        self.write("m/generic_build.csv", self.HDR + "\n" + "\n".join(
            f"2026-01-01T00:00:00Z,g,Some CPU,{v},gen-{k},lj,double,32768,{t},ok,x=0"
            for k, (v, t) in enumerate([("cpu-cluster", 0.1), ("cpu-cluster", 0.3), ("cpu-cluster", 0.2),
                                        ("lammps", 0.8), ("cpu-grouped", 0.9)])) + "\n")
        text = cluster.section(os.path.join(self.dir, "REPORT.md"))
        self.assertIn("| lj | double | 32768 | 0.2000 | 0.9000 | 0.8000 | 4.00 |", text)

    def test_no_rows_says_so(self):
        self.assertIn("**No rows yet**", cluster.section(os.path.join(self.dir, "REPORT.md")))


class LaunchSection(InResults):
    """The launch structures at one N: the median of the newest revision's ok rounds per mode, the
    ratios between them; an older revision, a failed row and a tag of no mode left out."""
    HDR = "timestamp,git_rev,device,variant,tag,n,us_per_step,status,knobs"

    def rows(self, *rs):
        lines = [",".join(["2026-01-01T00:00:00Z", rev, "Some GPU", "gpu-rumd", tag, str(n), str(t), st, "x=0"])
                 for rev, tag, n, t, st in rs]
        self.write("m/launch/launch-x.csv", self.HDR + "\n" + "\n".join(lines) + "\n")

    def test_medians_and_ratios(self):
        self.rows(("old", "launch-ne8-chunk-r1", 512, 1.0, "ok"),            # older revision: left out
                  ("new", "launch-ne8-stage-r1", 512, 40.0, "ok"),
                  ("new", "launch-ne8-stage-r2", 512, 50.0, "ok"),
                  ("new", "launch-ne8-stage-r3", 512, 44.0, "ok"),
                  ("new", "launch-ne8-graph-r1", 512, 30.0, "ok"),
                  ("new", "launch-ne8-chunk-r1", 512, 22.0, "ok"),
                  ("new", "launch-ne8-chunk-r2", 512, 2.0, "check-failed"),   # not ok: left out
                  ("new", "tour-launch-a", 512, 3.0, "ok"))                   # no mode: left out
        text = launch.section(os.path.join(self.dir, "REPORT.md"))
        self.assertIn("| 512 | 44.00 (3) | 30.00 (1) | 22.00 (1) | 0.50 | 0.73 |", text)

    def test_no_rows_says_so(self):
        self.assertIn("**No rows yet**", launch.section(os.path.join(self.dir, "REPORT.md")))


if __name__ == "__main__":
    unittest.main(verbosity=1)
