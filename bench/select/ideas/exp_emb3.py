"""Dense scores over every chunk of each document (not the repositories): the ceiling of an
embedding ranker where chunk vectors were computed ahead (at index time)."""
from sim import *
import sim, numpy as np, pickle, sys, time
import emb
from exp5 import snow, ft_nolinks
cache, _, qemb = pickle.load(open('/tmp/recall/emb2_20.pkl', 'rb'))
cfg = {'stem': snow}
sim.field_text = ft_nolinks
def ctext(c): return title(c) + '\n' + c['text']
t0 = time.time()
files = sorted({q['file'] for q in QS if q['file'].startswith('docs/')})
for k, f in enumerate(files):
    ix = index_for(f, cfg, 'sn')
    need = [c for c in ix.chunks if c['id'] + c['path'] not in cache]
    if need:
        for c, e in zip(need, emb.encode([ctext(c) for c in need], bs=16)): cache[c['id'] + c['path']] = e
    print(f'{k+1}/{len(files)} {time.time()-t0:.0f}s', file=sys.stderr, flush=True)
DQ = [q for q in QS if q['file'].startswith('docs/')]
sim.QS[:] = DQ
def rf_factory(alpha):
    def rf(ix, q, cfg, kind):
        s = ix.score(qterms_of(q, cfg), kind)
        E = np.stack([cache[c['id'] + c['path']] for c in ix.chunks])
        cos = E @ qemb[q['id']]
        mx = max(s) or 1
        return [alpha * (a / mx) + (1 - alpha) * max(float(c), 0) + 1e-9 for a, c in zip(s, cos)]
    return rf
def fmt(res, name):
    cells = []
    for b in (2000, 4000):
        for g, p in [('docs', lambda q: True), ('para', lambda q: q['paraphrased']), ('lit', lambda q: not q['paraphrased'])]:
            sub = [q for q in DQ if p(q)]
            h = sum(res[(q['id'], b)] for q in sub)
            cells.append(f'{g}@{b} {h/len(sub):.2f} ({h}/{len(sub)})')
    print(f'{name:<40}' + '  '.join(cells), flush=True)
for a in (1.0, 0.5, 0.3, 0.0):
    fmt(run(cfg, 'sn', rank_fn=rf_factory(a)), f'documents, all chunks, {a} bm25 + {1-a:.1f} cos')
