"""Python replica of cleave select's ranking and choice over `cleave chunk --budget 1000` records,
for trying ranking ideas fast. Checks against the real binary's numbers."""
import json, math, os, re, sys
from collections import defaultdict, Counter
sys.path.insert(0, '/work/wt/recall/bench/select')
import recall as R

CH = '/tmp/recall/chunks'
QS = [json.loads(l) for l in open('/work/wt/recall/bench/select/questions.jsonl')]
STOP = sorted("a about all an and are as at be by can do does for from has have how if in into is it its of on or our should so that the their them then there these this to was we what when where which who why will with would you".split())
STOPS = set(STOP)

def stem_light(w):
    for s in ["ing", "ies", "es", "s", "ed"]:
        if w.endswith(s) and len(w) - len(s) >= 3:
            b = w[:-len(s)]
            return b + 'y' if s == 'ies' else b
    return w

CAMEL = re.compile(r'[A-Z]')
def split_piece(piece):
    parts = []; start = 0
    for w in range(1, len(piece)):
        c = piece[w]; prev = piece[w-1]
        nxt_lower = w + 1 < len(piece) and piece[w+1].islower()
        if c.isupper() and (prev.islower() or prev.isdigit() or (prev.isupper() and nxt_lower)):
            parts.append(piece[start:w].lower()); start = w
    parts.append(piece[start:].lower())
    return parts

TOK = re.compile(r'[^\W]+', re.U)  # alnum or _
def terms(text, stem=stem_light, whole_w=True, parts_out=None):
    out = []
    for raw in TOK.findall(text):
        whole = raw.lower()
        parts = []
        for piece in raw.split('_'):
            if piece:
                parts += split_piece(piece)
        split = len(parts) > 1
        for p in parts:
            if p not in STOPS and len(p) > 1:
                out.append(stem(p))
        if split and whole not in STOPS:
            out.append(whole)
    return out

def load(f):
    return [json.loads(l) for l in open(f'{CH}/' + f.replace('/', '_') + '.jsonl')]

OVERVIEW = {"abstract","conclusion","conclusions","discussion","introduction","overview","results","summary"}
def traits(c):
    cl = c.get('classification') or {}
    content = cl.get('content_type', '')
    ov = False
    if c.get('provenance'):
        for s in c['provenance']['section']:
            s2 = s.lstrip('0123456789. ').lower()
            if s2 in OVERVIEW: ov = True
    return dict(overview=ov, alg=content in ("algorithm","proof","definition","theory","calculation"),
                math=cl.get('has_math', False), code=c['kind'] == 'code' or cl.get('has_code', False))

def prior(t, kind):
    if kind == 'concept' and t['overview']: return 1.3
    if kind == 'algorithm' and t['alg']: return 1.4
    if kind == 'algorithm' and t['math']: return 1.2
    if kind == 'code' and t['code']: return 1.3
    return 1.0

def is_camel(w):
    return w[:1].isalpha() and any(ch.isupper() for ch in w[1:]) and any(ch.islower() for ch in w)

def guess(q):
    words = [w.lower() for w in q.split()]
    has = lambda lst: any(w.startswith(k) for w in words for k in lst)
    if has(["algorithm","proof","prove","theorem","lemma","formula","equation","derive","complexity"]): return 'algorithm'
    ident = any('_' in w or '::' in w or '()' in w or is_camel(w) for w in q.split())
    if ident or has(["function","method","class","implement","code","api","call","struct","module"]): return 'code'
    return 'concept'

def tag(c):
    if c.get('provenance'): return c['provenance']['tag']
    t = f"[source:{c['path']} | L{c['line_start']}–{c['line_end']}"
    if c['scope']: t += ' | ' + ' > '.join(c['scope'])
    return t + ']'

def title(c):
    if c.get('provenance') and c['provenance']['section']: return c['provenance']['section'][-1]
    if c['scope']: return c['scope'][-1]
    if c['symbols']: return c['symbols'][0]
    return c['path']

def render1(c, cfg):
    if cfg.get('render') == 'short':
        return render_short(c)
    s = f"=== {title(c)} {tag(c)} ===\n" + c['header'] + c['text']
    if not c['text'].endswith('\n'): s += '\n'
    return s

def render_short(c):
    s = f"=== {tag(c)} ===\n" + c['text']
    if not c['text'].endswith('\n'): s += '\n'
    return s

FIELDS = [('body', 1.0), ('header', 1.5), ('symbols', 2.5), ('section', 2.5)]
def field_text(c, f):
    if f == 'body': return c['text']
    if f == 'header': return c['path'] + ' ' + ' '.join(c['scope'])
    if f == 'symbols': return ' '.join(c['symbols'])
    return ' '.join(c['provenance']['section']) if c.get('provenance') else ''

class Index:
    def __init__(self, chunks, cfg):
        self.chunks = chunks
        self.cfg = cfg
        stem = cfg.get('stem', stem_light)
        fields = cfg.get('fields', FIELDS)
        self.tf = []; self.len = []
        for c in chunks:
            tf = Counter(); ln = 0.0
            for f, w in fields:
                for t in terms(field_text(c, f), stem):
                    tf[t] += w; ln += w
            self.tf.append(tf); self.len.append(ln)
        self.df = Counter()
        for tf in self.tf:
            for t in tf: self.df[t] += 1
        self.avg = max(1.0, sum(self.len) / max(1, len(chunks)))
        self.traits = [traits(c) for c in chunks]

    def score(self, qterms, kind, k1=1.2, b=0.75):
        n = len(self.chunks)
        scores = [0.0] * n
        for t, w in qterms.items():
            d = self.df.get(t, 0)
            if not d: continue
            idf = math.log((n - d + 0.5) / (d + 0.5) + 1)
            for i in range(n):
                tf = self.tf[i].get(t)
                if tf:
                    scores[i] += w * idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * self.len[i] / self.avg))
        for i in range(n):
            if scores[i] > 0: scores[i] *= prior(self.traits[i], kind)
        return scores

def choose(chunks, scores, budget, cfg, max_seg=20):
    order = sorted((i for i in range(len(scores)) if scores[i] > 0), key=lambda i: (-scores[i], i))
    used = 0; chosen = []; misfits = 0
    for i in order[:2000]:
        if len(chosen) >= max_seg or used >= budget or misfits >= 64: break
        sz = len(render1(chunks[i], cfg))
        if used + sz <= budget:
            chosen.append(i); used += sz; misfits = 0
        else:
            misfits += bool(chosen)
    return sorted(chosen), used

VIEWS = R.Views('/tmp/recall/cleave-base')
def hit(q, chunks, chosen):
    base = os.path.join(R.CORPUS, q['file'])
    by = defaultdict(list)
    for i in chosen:
        c = chunks[i]; by[c['path']].append((c['byte_start'], c['byte_end']))
    texts = []
    for rel, rs in by.items():
        full = base if os.path.isfile(base) else os.path.join(base, rel)
        v = VIEWS.get(full)
        texts += [v[s:e].decode('utf-8', 'replace') for s, e in R.stretches(rs)]
    return R.contains(texts, q['passage'])

_cache = {}
def index_for(f, cfg, key):
    k = (f, key)
    if k not in _cache:
        _cache[k] = Index(load(f), cfg)
    return _cache[k]

def qterms_of(q, cfg):
    stem = cfg.get('stem', stem_light)
    w = Counter()
    for t in terms(q['question'], stem): w[t] += 1.0
    return w

def run(cfg, key='base', verbose=False, rank_fn=None):
    res = {}
    for q in QS:
        ix = index_for(q['file'], cfg, key)
        kind = guess(q['question'])
        if rank_fn:
            scores = rank_fn(ix, q, cfg, kind)
        else:
            scores = ix.score(qterms_of(q, cfg), kind)
        for b in (2000, 4000):
            ch, used = choose(ix.chunks, scores, b, cfg)
            res[(q['id'], b)] = hit(q, ix.chunks, ch)
    return res

def groups():
    return [('all', lambda q: True), ('para', lambda q: q['paraphrased']), ('lit', lambda q: not q['paraphrased']),
            ('docs', lambda q: q['file'].startswith('docs/')), ('repos', lambda q: q['file'].startswith('repos/'))]

def summary(res, name=''):
    row = f'{name:<28}'
    for b in (2000, 4000):
        for g, p in groups():
            sub = [q for q in QS if p(q)]
            row += f' {g}{b//1000}k={sum(res[(q["id"], b)] for q in sub)/len(sub):.2f}'
    print(row, flush=True)

if __name__ == '__main__':
    r = run({})
    summary(r, 'base')

def render_dedup(c):
    t = tag(c); ti = title(c)
    head = f"=== {t} ===\n" if ti in t else f"=== {ti} {t} ===\n"
    s = head + c['header'] + c['text']
    if not c['text'].endswith('\n'): s += '\n'
    return s
_old_render1 = render1
def render1(c, cfg):
    if cfg.get('render') == 'dedup':
        return render_dedup(c)
    return _old_render1(c, cfg)
