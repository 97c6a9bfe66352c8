from sim import *
import sim, re
import snowballstemmer
st = snowballstemmer.stemmer('english')
memo = {}
def snow(w):
    r = memo.get(w)
    if r is None: r = memo[w] = st.stemWord(w)
    return r
LINK = re.compile(r'\]\((?:[^()\s]|\([^()]*\))*(?:\s+"[^"]*")?\)')
orig_field_text = sim.field_text
def ft_nolinks(c, f):
    t = orig_field_text(c, f)
    if f == 'body' and c['kind'] != 'code':
        t = LINK.sub(']', t)
    return t.replace('¶', '').replace('\\_', '_')
def variant(name, cfg, key, patch=None, rank_fn=None, **kw):
    if patch: sim.field_text = patch
    summary(run(cfg, key, rank_fn=rank_fn), name)
    sim.field_text = orig_field_text
variant('base', {}, 'base')
variant('nolinks', {}, 'nolinks', ft_nolinks)
# test files
TEST = re.compile(r'(^|/)(tests?|__tests__|spec)(/|$)|(^|/)test_[^/]*$|_test\.[a-z]+$|\.(test|spec)\.[a-z]+$|Tests?\.java$')
def rf_test(ix, q, cfg, kind):
    s = ix.score(qterms_of(q, cfg), kind)
    if 'test' not in q['question'].lower():
        for i, c in enumerate(ix.chunks):
            if TEST.search(c['path']): s[i] *= 0.5
    return s
variant('test0.5', {}, 'base', rank_fn=rf_test)
def rf_nb(lam):
    def rf(ix, q, cfg, kind):
        s = ix.score(qterms_of(q, cfg), kind)
        out = list(s)
        ch = ix.chunks
        for i in range(len(s)):
            nb = 0
            if i > 0 and ch[i-1]['path'] == ch[i]['path']: nb = max(nb, s[i-1])
            if i + 1 < len(s) and ch[i+1]['path'] == ch[i]['path']: nb = max(nb, s[i+1])
            if out[i] > 0: out[i] += lam * nb
        return out
    return rf
for lam in (0.2, 0.4):
    variant(f'neighbour{lam}', {}, 'base', rank_fn=rf_nb(lam))
def rf_prf(k=3, nt=10, w=0.3):
    def rf(ix, q, cfg, kind):
        qt = qterms_of(q, cfg)
        s = ix.score(qt, kind)
        top = sorted(range(len(s)), key=lambda i: -s[i])[:k]
        n = len(ix.chunks)
        cand = Counter()
        for i in top:
            if s[i] <= 0: continue
            for t, tf in ix.tf[i].items():
                d = ix.df[t]
                cand[t] += (tf / ix.len[i]) * math.log((n - d + 0.5) / (d + 0.5) + 1)
        qt2 = Counter(qt)
        for t, v in cand.most_common(nt + len(qt)):
            if t not in qt: qt2[t] += w
        return ix.score(qt2, kind)
    return rf
variant('prf3x10w0.3', {}, 'base', rank_fn=rf_prf())
variant('prf5x20w0.2', {}, 'base', rank_fn=rf_prf(5, 20, 0.2))
# identifier parts at half weight
orig_terms = sim.terms
