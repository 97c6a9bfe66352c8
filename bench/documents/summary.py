"""Summarises pdf_corpus.py's TSV: totals, single- vs two-column, speed, memory, failures."""
import sys

rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])][1:]
ok = [r for r in rows if r[3] not in ("-", "0") and r[5] != "-"]
bad = [r for r in rows if r not in ok]


def line(name, rs):
    if not rs:
        return f"{name}: none"
    n = len(rs)
    pages = sum(int(r[1]) for r in rs)
    mean = sum(float(r[3]) for r in rs) / n
    at98 = sum(float(r[3]) >= 0.98 for r in rs)
    order = sum(float(r[4]) for r in rs) / n
    chunks = sum(int(r[5]) for r in rs)
    page_ok = sum(int(r[6]) for r in rs)
    out = (f"{name}: {n} PDFs, {pages} pages; word recall mean {100*mean:.1f} %, "
           f"{at98}/{n} documents ≥ 98 %; reading-order similarity {order:.3f}; "
           f"page correctness {page_ok}/{chunks} chunks = {100*page_ok/max(chunks,1):.1f} %")
    if len(rs[0]) > 14:
        g = [float(r[11]) for r in rs]
        lat = [float(r[12]) for r in rs]
        ok_g = sum(int(r[13]) for r in rs)
        real = sum(int(r[14]) for r in rs)
        out += (f"\n  3-gram recall mean {100*sum(g)/n:.1f} %, {sum(x >= 0.98 for x in g)}/{n} documents ≥ 98 %; "
                f"Latin-word recall mean {100*sum(lat)/n:.1f} %, {sum(x >= 0.98 for x in lat)}/{n} ≥ 98 %; "
                f"page correctness (words or 3-grams) {ok_g}/{chunks} = {100*ok_g/max(chunks,1):.1f} %, "
                f"real page misses {real}")
    return out


print(line("all", ok))
print(line("single-column", [r for r in ok if r[2] == "1"]))
print(line("two-column", [r for r in ok if r[2] == "2"]))
pages = sum(int(r[1]) for r in ok)
t_pop = sum(float(r[7]) for r in ok)
t_cl = sum(float(r[8]) for r in ok)
print(f"speed: pdftotext {pages/t_pop:.0f} pages/s, cleave extract {pages/t_cl:.0f} pages/s "
      f"(ratio {t_pop/t_cl:.2f}; one process per file, wall time, same run)")
rss = sorted(((int(r[9]), int(r[1]), r[0]) for r in ok), reverse=True)
print("peak RSS of cleave extract, largest: " + "; ".join(f"{k/1024:.0f} MiB ({p} pages, {f.rsplit('/',1)[-1]})" for k, p, f in rss[:3]))
print(f"not measured ({len(bad)}):")
for r in bad:
    print(f"  {r[0].rsplit('/',1)[-1]}: {r[-1] or 'no chunks'}")
worst = sorted(ok, key=lambda r: float(r[3]))[:10]
print("lowest word recall:")
for r in worst:
    print(f"  {float(r[3])*100:.1f} %  order {float(r[4]):.2f}  {r[1]} p, {r[2]} col  {r[0].rsplit('/',1)[-1]}  {r[10]}")
mism = [r for r in ok if r[10]]
print(f"page count differs from pdftotext: {len(mism)}")
for r in mism[:10]:
    print(f"  {r[0].rsplit('/',1)[-1]}: {r[10]}")
