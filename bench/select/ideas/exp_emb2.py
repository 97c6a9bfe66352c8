from sim import *
import sim, re, numpy as np, pickle, os, sys, time
import emb
from exp5 import snow, ft_nolinks, orig_field_text
N = int(sys.argv[1])
cache = {}
def ctext(c):
    return title(c) + '\n' + c['text']
def embed_chunks(cs):
    need = [c for c in cs if c['id'] + c['path'] not in cache]
    if need:
        es = emb.encode([ctext(c) for c in need], bs=16)
        for c, e in zip(need, es): cache[c['id'] + c['path']] = e
    return np.stack([cache[c['id'] + c['path']] for c in cs]) if cs else np.zeros((0, 384), np.float32)
# the kept configuration (b1+b2), as the binary ranks
cfg = {'stem': snow}
sim.field_text = ft_nolinks
cands = {}; qemb = {}
t0 = time.time()
for k, q in enumerate(QS):
    ix = index_for(q['file'], cfg, 'sn')
    s = ix.score(qterms_of(q, cfg), guess(q['question']))
    order = sorted((i for i in range(len(s)) if s[i] > 0), key=lambda i: (-s[i], i))[:N]
    cands[q['id']] = (order, [s[i] for i in order])
    embed_chunks([ix.chunks[i] for i in order])
    qemb[q['id']] = emb.encode([q['question']])[0]
    print(f'{k+1}/90 {time.time()-t0:.0f}s', file=sys.stderr, flush=True)
pickle.dump((cache, cands, qemb), open(f'/tmp/recall/emb2_{N}.pkl', 'wb'))
def rf_factory(alpha):
    def rf(ix, q, cfg, kind):
        order, bs = cands[q['id']]
        E = embed_chunks([ix.chunks[i] for i in order])
        cos = E @ qemb[q['id']]
        mx = max(bs) if bs else 1
        out = [0.0] * len(ix.chunks)
        for i, b_, c in zip(order, bs, cos):
            out[i] = alpha * (b_ / mx) + (1 - alpha) * max(float(c), 0) + 1e-9
        return out
    return rf
def fmt(res, name):
    cells = []
    for b in (2000, 4000):
        for g, p in groups():
            sub = [q for q in QS if p(q)]
            h = sum(res[(q['id'], b)] for q in sub)
            cells.append(f'{h/len(sub):.2f} ({h}/{len(sub)})')
    print(f'{name:<34}' + ''.join(f'{c:>14}' for c in cells), flush=True)
for a in (1.0, 0.7, 0.5, 0.3, 0.0):
    fmt(run(cfg, 'sn', rank_fn=rf_factory(a)), f'rerank top {N}, {a} bm25 + {1-a:.1f} cos')
