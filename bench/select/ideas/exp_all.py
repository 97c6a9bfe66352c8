from exp5 import *
from exp4 import rf_test, rf_nb, rf_prf
from exp7 import rf_prox
import sim
def fmt(res, name):
    cells = []
    for b in (2000, 4000):
        for g, p in groups():
            sub = [q for q in QS if p(q)]
            h = sum(res[(q['id'], b)] for q in sub)
            cells.append(f'{h/len(sub):.2f} ({h}/{len(sub)})')
    print(f'{name:<34}' + ''.join(f'{c:>14}' for c in cells), flush=True)
def V(name, cfg, key, patch=None, rank_fn=None):
    if patch: sim.field_text = patch
    r = run(cfg, key, rank_fn=rank_fn)
    sim.field_text = orig_field_text
    fmt(r, name)
print(f'{"variant (python replica)":<34}' + ''.join(f'{g+" @"+str(b):>14}' for b in (2000,4000) for g,_ in groups()))
V('0 baseline (main)', {}, 'base')
V('b1 snowball stemmer', {'stem': snow}, 'snow')
V('b2 link targets, escapes out', {}, 'nolinks', ft_nolinks)
V('b1+b2', {'stem': snow}, 'sn', ft_nolinks)
V('a1 identifier parts x0.3', {'part_w': 0.3}, 'p03')
V('a2 test files x0.5', {}, 'base', rank_fn=rf_test)
V('c1 PRF 3 chunks, 10 terms, 0.3', {}, 'base', rank_fn=rf_prf())
V('c2 neighbour score +0.2 max', {}, 'base', rank_fn=rf_nb(0.2))
V('c3 b1+b2 + bigram bonus 0.5', {'stem': snow}, 'sn', ft_nolinks, rank_fn=rf_prox(0.5, 'sn'))
V('d1 title once (dedup)', {'render': 'dedup'}, 'base')
V('d2 tag line only, no header', {'render': 'short'}, 'base')
V('b1+b2+d1', {'stem': snow, 'render': 'dedup'}, 'sn', ft_nolinks)
V('b1+b2+d2', {'stem': snow, 'render': 'short'}, 'sn', ft_nolinks)
