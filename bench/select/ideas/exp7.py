from exp5 import *
import sim
def bigrams_of(c, stem):
    ts = terms(ft_nolinks(c, 'body'), stem)
    return set(zip(ts, ts[1:]))
bg_cache = {}
def rf_prox(wt, stem_key):
    def rf(ix, q, cfg, kind):
        stem = cfg.get('stem', stem_light)
        qt = qterms_of(q, cfg)
        s = ix.score(qt, kind)
        qs = terms(q['question'], stem)
        qb = set(zip(qs, qs[1:]))
        n = len(ix.chunks)
        key = (q['file'], stem_key)
        if key not in bg_cache:
            bg_cache[key] = [bigrams_of(c, stem) for c in ix.chunks]
        bgs = bg_cache[key]
        idf = lambda t: math.log((n - ix.df.get(t, 0) + 0.5) / (ix.df.get(t, 0) + 0.5) + 1)
        for i in range(n):
            if s[i] <= 0: continue
            m = qb & bgs[i]
            if m:
                s[i] += wt * sum(0.5 * (idf(a) + idf(b_)) for a, b_ in m) * prior(ix.traits[i], kind)
        return s
    return rf
for wt in (0.5, 1.0):
    variant(f'snow+nolinks+bigram{wt}', {'stem': snow}, 'sn', ft_nolinks, rank_fn=rf_prox(wt, 'sn'))
