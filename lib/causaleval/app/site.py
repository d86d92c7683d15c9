"""``causaleval report`` (``make report``): one static HTML site for every executed study.

The site lives in ``runs/report/`` (an ``index.html``, one HTML export per notebook, the
studies' figures copied beside them) and needs no server: open ``index.html``. The front page
is built from what the studies wrote, never from prose:

* the notebook's title and its first paragraph (what it reproduces);
* the verdicts of the study's ``claims`` table (``<figures>/<study>/claims.csv``): one row per
  paper claim with a ``statement``, a ``verdict`` of :mod:`causaleval.verdicts`' vocabulary and
  its ``evidence``. The count that leads a study's section is of the evidence alone (*holds*,
  *does not hold*, *undecided*); *by construction*, *paper vs itself* and *not tested* rows are
  counted on a line of their own;
* the agreement with the paper's cells from ``agreement.csv`` when the study writes one (a
  ``status`` column whose values are counted, e.g. *matches*, *differs, explained*,
  *unexplained*);
* run time (papermill's), and provenance (the code hashes and commit of the stamps).

A study that writes no ``claims`` or ``agreement`` table says so on the page instead of
showing nothing.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from causaleval import paths, verdicts
from causaleval.studies import studies

VERDICT_COLUMNS = ("verdict", "holds here")


@dataclass
class StudyPage:
    """What the front page says of one study."""

    name: str
    notebook: Path
    title: str
    summary: str
    duration_s: float | None
    claims: pd.DataFrame | None
    agreement: Counter | None
    provenance: dict[str, Any] | None
    figures: list[Path] = field(default_factory=list)


def verdict(value: Any) -> str:
    """``holds`` / ``does not hold`` / ``undecided`` / ``not tested`` from a claims table's
    verdict cell (other words are kept, in lower case)."""
    if value is None or (isinstance(value, float) and pd.isna(value)) or value is pd.NA:
        return "not tested"
    text = str(value).strip().lower()
    if text in ("true", "holds", "yes", "1", "1.0"):
        return "holds"
    if text in ("false", "does not hold", "does not", "no", "0", "0.0"):
        return "does not hold"
    if text in ("", "nan", "not tested", "untested", "none"):
        return "not tested"
    return text


def read_claims(folder: Path) -> pd.DataFrame | None:
    """The study's claims as ``statement``, ``verdict``, ``evidence`` (None without a table)."""
    path = folder / "claims.csv"
    if not path.exists():
        return None
    table = pd.read_csv(path)
    column = next((c for c in VERDICT_COLUMNS if c in table.columns), None)
    missing = [c for c in ("statement", "evidence") if c not in table.columns] + ([] if column else ["verdict"])
    if missing:
        raise ValueError(f"{paths.display(path)}: claims table lacks column(s) {missing}; "
                         f"expected statement, evidence and one of {VERDICT_COLUMNS}")
    return pd.DataFrame({"statement": table["statement"].astype(str),
                         "verdict": table[column].map(verdict),
                         "evidence": table["evidence"].fillna("").astype(str)})


def read_agreement(folder: Path) -> Counter | None:
    path = folder / "agreement.csv"
    if not path.exists():
        return None
    table = pd.read_csv(path)
    if "status" not in table.columns:
        raise ValueError(f"{paths.display(path)}: agreement table lacks a 'status' column")
    return Counter(table["status"].astype(str))


def study_page(name: str, notebook: Path, figures_root: Path | None = None) -> StudyPage:
    """Collect the front-page facts of one executed study notebook (its outputs in
    ``figures_root/<stem>``, by default where the study writes: :func:`causaleval.paths.study_figures`)."""
    nb = json.loads(notebook.read_text())
    title, summary = _title_and_summary(nb)
    folder = figures_root / notebook.stem if figures_root is not None else paths.study_figures(notebook)
    stamps = sorted(folder.glob("*.provenance.json"))
    return StudyPage(
        name=name, notebook=notebook, title=title, summary=summary,
        duration_s=nb.get("metadata", {}).get("papermill", {}).get("duration"),
        claims=read_claims(folder), agreement=read_agreement(folder),
        provenance=json.loads(stamps[0].read_text()) if stamps else None,
        figures=sorted(folder.glob("*.png")),
    )


def _title_and_summary(nb: dict[str, Any]) -> tuple[str, str]:
    first = next((c for c in nb["cells"] if c["cell_type"] == "markdown"), None)
    lines = "".join(first["source"]).splitlines() if first else []
    title = next((ln.lstrip("# ").strip() for ln in lines if ln.startswith("#")), "untitled")
    body = "\n".join(ln for ln in lines if not ln.startswith("#")).strip()
    return title, _plain(body.split("\n\n")[0].strip())


def _plain(markdown: str) -> str:
    """Markdown of a notebook's first paragraph as plain text: link text without its target
    (links are relative to the notebook, not the site), no emphasis or code marks."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    return re.sub(r"(\*\*|\*|`)", "", text)


def build(out: Path | None = None, notebooks: dict[str, Path] | None = None,
          figures_root: Path | None = None) -> Path:
    """Write the site and return its ``index.html``. Notebooks default to the committed
    study notebooks (executed at their defaults), figures to ``figures/``."""
    from nbconvert import HTMLExporter


    out = out or paths.RUNS / "report"
    notebooks = notebooks if notebooks is not None else studies()
    if out.exists():
        shutil.rmtree(out)
    (out / "figures").mkdir(parents=True)
    pages = [study_page(name, nb, figures_root) for name, nb in notebooks.items()]
    exporter = HTMLExporter()
    for page in pages:
        body, _ = exporter.from_filename(str(page.notebook))
        (out / f"{page.notebook.stem}.html").write_text(body)
        for fig in page.figures:
            target = out / "figures" / page.notebook.stem / fig.name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(fig, target)
    index = out / "index.html"
    index.write_text(_front_page(pages))
    return index


def _front_page(pages: list[StudyPage]) -> str:
    sections = "\n".join(_section(p) for p in pages)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>causaleval: reproduced studies</title>
<style>
body {{ font-family: sans-serif; max-width: 70em; margin: 2em auto; padding: 0 1em; }}
table {{ border-collapse: collapse; margin: 0.5em 0; }} td, th {{ border: 1px solid #bbb; padding: 0.2em 0.5em; vertical-align: top; }}
.holds {{ color: #176117; }} .does-not-hold {{ color: #a11; }} .undecided {{ color: #8a5a00; }} .not-tested {{ color: #666; }}
.by-construction {{ color: #555; font-style: italic; }} .paper-vs-itself {{ color: #335; font-style: italic; }}
img {{ max-width: 22em; border: 1px solid #ddd; margin: 0.2em; }}
</style></head><body>
<h1>causaleval: reproduced studies</h1>
<p>{len(pages)} studies. Every verdict below is read from the tables the notebooks wrote.</p>
{sections}
</body></html>
"""


def _section(page: StudyPage) -> str:
    e = html.escape
    stem = page.notebook.stem
    minutes = f"{page.duration_s / 60:.1f} min" if page.duration_s is not None else "not recorded"
    code = (page.provenance or {}).get("code", {})
    prov = (f"kit {e(str(code.get('kit_sha256', ''))[:12])}, notebook {e(str(code.get('notebook_sha256', ''))[:12])}, "
            f"commit {e(str(code.get('commit') or 'none (tree differs from HEAD)'))}") if code else "no stamp"
    if page.claims is None:
        claims = "<p>This study writes no claims table (<code>claims.csv</code>).</p>"
    else:
        counts = Counter(page.claims["verdict"])
        evidence = Counter({v: counts.get(v, 0) for v in verdicts.EVIDENCE})
        apart = Counter({v: n for v, n in counts.items() if v not in verdicts.EVIDENCE})
        rows = "".join(
            f"<tr><td>{e(r.statement)}</td><td class=\"{_css(r.verdict)}\">{e(r.verdict)}</td><td>{e(r.evidence)}</td></tr>"
            for r in page.claims.itertuples())
        claims = (f"<p>Claims tested against the evidence: {_counts(evidence)}.</p>"
                  f"<p>Not counted as evidence: {_counts(apart) or 'none'}.</p><table><tr><th>claim</th><th>verdict</th>"
                  f"<th>evidence</th></tr>{rows}</table>")
    agreement = (f"<p>Cells against the paper: {_counts(page.agreement)}.</p>" if page.agreement
                 else "<p>Cells against the paper: this study writes no agreement table "
                      "(<code>agreement.csv</code>).</p>")
    figures = "".join(f'<a href="figures/{e(stem)}/{e(f.name)}"><img src="figures/{e(stem)}/{e(f.name)}" '
                      f'alt="{e(f.stem)}"></a>' for f in page.figures)
    return f"""<section id="{e(page.name)}">
<h2><a href="{e(stem)}.html">{e(page.title)}</a></h2>
<p>{e(page.summary)}</p>
<p>Study <code>{e(page.name)}</code>; run time {minutes}; provenance: {prov}.</p>
{claims}
{agreement}
<div>{figures}</div>
</section>"""


def _counts(counts: Counter) -> str:
    return ", ".join(f"{n} {k}" for k, n in counts.items())


def _css(text: str) -> str:
    return re.sub(r"[^a-z]+", "-", text.lower()).strip("-")
