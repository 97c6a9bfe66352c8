"""Heading recovery for issue 18: Markdown whose headings are known, converted by pandoc to
DOCX, EPUB and HTML, decoded by cleave; the share of source headings that come back as
Markdown headings of cleave's text view (so the prose atomizer makes sections of them).

usage: python3 headings.py CLEAVE_BINARY LIST_OF_MD_FILES WORKDIR

Headings are read with pandoc on both sides (`-t json`, Header blocks, text stringified and
reduced to lower-case letters and digits), compared as multisets; levels are reported too.
"""
import collections, json, os, re, subprocess, sys


def stringify(inlines):
    out = []
    for i in inlines:
        t = i.get("t")
        if t == "Str":
            out.append(i["c"])
        elif t in ("Space", "SoftBreak", "LineBreak"):
            out.append(" ")
        elif t == "Code":
            out.append(i["c"][1])
        elif t in ("Emph", "Strong", "Strikeout", "Superscript", "Subscript", "SmallCaps", "Underline"):
            out.append(stringify(i["c"]))
        elif t in ("Link", "Image", "Span", "Quoted", "Cite"):
            c = i["c"]
            out.append(stringify(c[1] if t != "Quoted" else c[1]))
    return "".join(out)


def headings(path, fmt):
    p = subprocess.run(["pandoc", "-f", fmt, "-t", "json", path], capture_output=True)
    if p.returncode != 0:
        return None
    doc = json.loads(p.stdout)
    out = []

    def walk(blocks):
        for b in blocks:
            if b.get("t") == "Header":
                key = re.sub(r"[\W_]+", "", stringify(b["c"][2]).lower())
                if key:
                    out.append((b["c"][0], key))
            elif b.get("t") in ("BlockQuote", "Div"):
                walk(b["c"] if b["t"] == "BlockQuote" else b["c"][1])
    walk(doc["blocks"])
    return out


def main():
    cleave, listing, work = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(work, exist_ok=True)
    totals = collections.defaultdict(lambda: [0, 0, 0])  # format -> [source, found, same level]
    misses = collections.defaultdict(list)
    for n, md in enumerate(l.strip() for l in open(listing) if l.strip()):
        src = headings(md, "gfm")
        if not src:
            continue
        for fmt in ("docx", "epub", "html"):
            out = os.path.join(work, f"{n}.{fmt}")
            args = ["pandoc", "-f", "gfm", md, "-o", out]
            if fmt == "html":
                args.insert(1, "-s")
            if fmt == "epub":
                args += ["--metadata", f"title=doc {n}"]
            if subprocess.run(args, capture_output=True).returncode != 0:
                continue
            view = subprocess.run([cleave, "extract", out], capture_output=True)
            vpath = out + ".view.md"
            open(vpath, "wb").write(view.stdout)
            got = headings(vpath, "markdown") or []
            pool = collections.Counter(k for _, k in got)
            levels = collections.Counter(got)
            t = totals[fmt]
            for level, key in src:
                t[0] += 1
                if pool[key] > 0:
                    pool[key] -= 1
                    t[1] += 1
                    if levels[(level, key)] > 0:
                        levels[(level, key)] -= 1
                        t[2] += 1
                else:
                    misses[fmt].append(f"{md}: {key}")
    for fmt, (s, f, l) in sorted(totals.items()):
        print(f"{fmt}\tsource headings {s}\trecovered {f} ({100*f/max(s,1):.1f} %)\tsame level {l} ({100*l/max(s,1):.1f} %)")
    for fmt, m in sorted(misses.items()):
        print(f"# {fmt}: {len(m)} missed, first ones:")
        for x in m[:8]:
            print(f"#   {x}")


if __name__ == "__main__":
    main()
