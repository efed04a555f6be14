"""The page skeleton and style sheet of the HTML report (no scripts, no external files)."""

from __future__ import annotations

CSS = """
:root { --ink: #1d232b; --muted: #5b6773; --rule: #d8dee4; --bg: #ffffff; --band: #f5f7f9;
        --accent: #1f5fa8; --bad: #a4262c; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink);
       font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue",
             Arial, sans-serif; }
header { background: #15324f; color: #fff; padding: 1.4rem 2rem 1.1rem; }
header h1 { margin: 0 0 .25rem; font-size: 1.6rem; font-weight: 600; }
header p { margin: 0; color: #c9d6e3; font-size: .9rem; overflow-wrap: anywhere; }
header p.lead { color: #fff; font-size: 1rem; max-width: 60rem; margin: .2rem 0 .5rem;
                overflow-wrap: normal; }
nav { position: sticky; top: 0; z-index: 1; background: var(--band);
      border-bottom: 1px solid var(--rule); padding: .45rem 2rem; font-size: .9rem;
      line-height: 1.8; }
/* a narrow window wraps the bar between labels, never inside one */
nav a { color: var(--accent); text-decoration: none; margin-right: 1.1rem;
        white-space: nowrap; display: inline-block; }
nav a:hover { text-decoration: underline; }
main { max-width: 1240px; margin: 0 auto; padding: 1rem 2rem 4rem; }
/* a jump (nav link, dataset link, glossary link) lands below the sticky bar, not under it */
section, details, dt, [id] { scroll-margin-top: 5rem; }
details > div[id] { scroll-margin-top: 8rem; }  /* its summary line stays in view too */
h2 { font-size: 1.3rem; border-bottom: 2px solid var(--rule); padding-bottom: .2rem;
     margin-top: 2.2rem; }
h3 { font-size: 1.08rem; margin: 1.6rem 0 .4rem; }
h4 { font-size: .98rem; margin: 1.2rem 0 .3rem; color: var(--muted); }
p.note, p.caption { color: var(--muted); font-size: .88rem; margin: .2rem 0 .8rem; }
p.problem { color: var(--bad); font-size: .9rem; }
.cards { display: flex; flex-wrap: wrap; gap: .8rem; margin: .8rem 0 1rem; }
.card { background: var(--band); border: 1px solid var(--rule); border-radius: 6px;
        padding: .55rem .95rem; min-width: 9rem; }
.card b { display: block; font-size: 1.45rem; }
.card span { color: var(--muted); font-size: .82rem; }
.card.bad b { color: var(--bad); }
table { border-collapse: collapse; margin: .4rem 0 1rem; font-size: .86rem; }
th, td { border-bottom: 1px solid var(--rule); padding: .22rem .65rem; text-align: right; }
th { background: var(--band); font-weight: 600; }
td.text, th.text { text-align: left; }
td.best { font-weight: 700; color: #0b6b2f; }
td.error { text-align: left; color: var(--bad); max-width: 40rem; word-break: break-word; }
/* a table wider than the window scrolls, and says so: a shadow at the edge that hides
   columns (the white covers move with the table, the shadows stay with the box) */
.scroll { overflow-x: auto; width: fit-content; max-width: 100%;
          background: linear-gradient(to right, #fff 30%, rgba(255, 255, 255, 0)),
                      linear-gradient(to left, #fff 30%, rgba(255, 255, 255, 0)) 100% 0,
                      radial-gradient(farthest-side at 0 50%, rgba(0, 0, 0, .28),
                                      rgba(0, 0, 0, 0)),
                      radial-gradient(farthest-side at 100% 50%, rgba(0, 0, 0, .28),
                                      rgba(0, 0, 0, 0)) 100% 0;
          background-repeat: no-repeat;
          background-size: 2.5rem 100%, 2.5rem 100%, .9rem 100%, .9rem 100%;
          background-attachment: local, local, scroll, scroll; }
figure { margin: .6rem 0 1.4rem; }
/* figures side by side where they fit, one under the other where they don't: at full size */
.row { display: flex; flex-wrap: wrap; gap: 0 1.4rem; align-items: flex-start; }
.row > figure { flex: 0 1 auto; min-width: 0; max-width: 100%; }
figure svg, figure img { display: block; max-width: 100%; height: auto; }
/* the font matplotlib names in each SVG text element, given once (see figure_to_svg) */
figure svg text { font-family: 'DejaVu Sans', 'Bitstream Vera Sans',
  'Computer Modern Sans Serif', 'Lucida Grande', 'Verdana', 'Geneva', 'Lucid', 'Arial',
  'Helvetica', 'Avant Garde', sans-serif; }
figcaption { color: var(--muted); font-size: .85rem; margin-top: .25rem;
             contain: inline-size; }
details { border: 1px solid var(--rule); border-radius: 6px; margin: .55rem 0;
          background: #fff; }
details > summary { cursor: pointer; padding: .5rem .9rem; background: var(--band);
                    font-weight: 600; }
details > summary span { color: var(--muted); font-weight: 400; font-size: .88rem;
                         margin-left: .6rem; }
details[open] > summary { border-bottom: 1px solid var(--rule); }
details > div { padding: .2rem 1rem 1rem; }
ul.findings li { margin: .25rem 0; }
code { background: var(--band); padding: 0 .25rem; border-radius: 3px; }
footer { color: var(--muted); font-size: .8rem; text-align: center; padding: 2rem; }
p.jump { line-height: 1.9; }
p.jump a { color: var(--accent); text-decoration: none; margin-right: .9rem;
           white-space: nowrap; }
dl.glossary { display: grid; grid-template-columns: minmax(4rem, max-content) 1fr;
              gap: .2rem 1rem; font-size: .9rem; }
dl.glossary dt { font-weight: 700; }
dl.glossary dd { margin: 0; }
/* narrow windows: less padding, so figures keep their full size */
@media (max-width: 900px) {
  header, nav { padding-left: .8rem; padding-right: .8rem; }
  main { padding: .8rem .6rem 3rem; }
  details > div { padding: .2rem .4rem .8rem; }
  section, details, dt, [id] { scroll-margin-top: 7.5rem; }
  details > div[id] { scroll-margin-top: 10.5rem; }
}
"""

#: the first screen's two sentences: what the report is, and how to read it
INTRO = ("This report shows, from the scores a study stored, how hard each instance and "
         "dataset is for a pool of algorithms, how alike the algorithms behave, and how "
         "they rank when accuracy and run time both count. Start with the summary and its "
         "findings, then follow the bar below to a section; each dataset's section opens "
         "on a click, and the glossary at the end explains every term and abbreviation.")

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="metaeval {version}">
<title>{title}</title>
<style>{css}</style>
</head>
<body>
<header><h1>{title}</h1><p class="lead">{intro}</p><p>{subtitle}</p></header>
<nav>{nav}</nav>
<main>
{body}
</main>
<footer>Generated by metaeval {version}. One self-contained file: no scripts, no network.</footer>
</body>
</html>
"""
