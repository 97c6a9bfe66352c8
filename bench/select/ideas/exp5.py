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
def terms_w(text, stem, part_w):
    out = []
    for raw in TOK.findall(text):
        whole = raw.lower()
        parts = []
        for piece in raw.split('_'):
            if piece: parts += split_piece(piece)
        split = len(parts) > 1
        for p in parts:
            if p not in STOPS and len(p) > 1:
                out.append((stem(p), part_w if split else 1.0))
        if split and whole not in STOPS:
            out.append((whole, 1.0))
    return out
class Index2(Index):
    def __init__(self, chunks, cfg):
        self.chunks = chunks; self.cfg = cfg
        stem = cfg.get('stem', stem_light); pw = cfg.get('part_w', 1.0)
        self.tf = []; self.len = []
        for c in chunks:
            tf = Counter(); ln = 0.0
            for f, w in FIELDS:
                for t, tw in terms_w(sim.field_text(c, f), stem, pw):
                    tf[t] += w * tw; ln += w * tw
            self.tf.append(tf); self.len.append(ln)
        self.df = Counter()
        for tf in self.tf:
            for t in tf: self.df[t] += 1
        self.avg = max(1.0, sum(self.len) / max(1, len(chunks)))
        self.traits = [traits(c) for c in chunks]
sim.Index = Index2
import sim as S
def variant(name, cfg, key, patch=None, rank_fn=None):
    if patch: sim.field_text = patch
    r = run(cfg, key, rank_fn=rank_fn)
    summary(r, name)
    sim.field_text = orig_field_text
    return r
#variant('part0.5', {'part_w': 0.5}, 'p05')
#variant('part0.3', {'part_w': 0.3}, 'p03')
#variant('snow+nolinks', {'stem': snow}, 'sn', ft_nolinks)
#variant('snow+nolinks+short', {'stem': snow, 'render': 'short'}, 'sn', ft_nolinks)
#variant('snow+nolinks+short+part0.5', {'stem': snow, 'render': 'short', 'part_w': 0.5}, 'snp', ft_nolinks)
#variant('nolinks+short', {'render': 'short'}, 'nl', ft_nolinks)
