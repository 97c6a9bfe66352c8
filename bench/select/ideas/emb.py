"""all-MiniLM-L6-v2 in numpy (BERT, 6 layers, mean pooling, L2 normalised)."""
import json, struct, numpy as np
from tokenizers import Tokenizer
D = '/tmp/recall/dl/model'
def load_st(path):
    with open(path, 'rb') as f:
        n = struct.unpack('<Q', f.read(8))[0]
        hdr = json.loads(f.read(n)); buf = f.read()
    out = {}
    for k, v in hdr.items():
        if k == '__metadata__': continue
        s, e = v['data_offsets']
        dt = {'F32': np.float32, 'I64': np.int64}[v['dtype']]
        out[k] = np.frombuffer(buf[s:e], dtype=dt).reshape(v['shape'])
    return out
W = load_st(f'{D}/model.safetensors')
P = '' if 'embeddings.word_embeddings.weight' in W else 'bert.'
tok = Tokenizer.from_file(f'{D}/tokenizer.json')
tok.enable_truncation(int(__import__("os").environ.get("EMB_MAXLEN", "256")))
tok.enable_padding()
def ln(x, g, b, eps=1e-12):
    m = x.mean(-1, keepdims=True); v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * g + b
def gelu(x):
    from math import sqrt
    import numpy as np
    return 0.5 * x * (1 + erf(x / np.sqrt(2)))
try:
    from scipy.special import erf
except ImportError:
    def erf(x):
        # Abramowitz-Stegun 7.1.26 is too coarse; use tanh approx of gelu instead
        raise
def gelu(x):
    return 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))
def w(name): return W[P + name]
def encode(texts, bs=32):
    outs = []
    for i in range(0, len(texts), bs):
        enc = tok.encode_batch(texts[i:i+bs])
        ids = np.array([e.ids for e in enc]); mask = np.array([e.attention_mask for e in enc]).astype(np.float32)
        tt = np.array([e.type_ids for e in enc])
        B, T = ids.shape
        x = w('embeddings.word_embeddings.weight')[ids] + w('embeddings.position_embeddings.weight')[np.arange(T)][None] + w('embeddings.token_type_embeddings.weight')[tt]
        x = ln(x, w('embeddings.LayerNorm.weight'), w('embeddings.LayerNorm.bias'))
        am = (1 - mask)[:, None, None, :] * -1e4
        H = 12; dh = 384 // H
        for l in range(6):
            p = f'encoder.layer.{l}.'
            q = x @ w(p+'attention.self.query.weight').T + w(p+'attention.self.query.bias')
            k = x @ w(p+'attention.self.key.weight').T + w(p+'attention.self.key.bias')
            v = x @ w(p+'attention.self.value.weight').T + w(p+'attention.self.value.bias')
            sh = lambda t: t.reshape(B, T, H, dh).transpose(0, 2, 1, 3)
            a = sh(q) @ sh(k).transpose(0, 1, 3, 2) / np.sqrt(dh) + am
            a = np.exp(a - a.max(-1, keepdims=True)); a /= a.sum(-1, keepdims=True)
            c = (a @ sh(v)).transpose(0, 2, 1, 3).reshape(B, T, 384)
            c = c @ w(p+'attention.output.dense.weight').T + w(p+'attention.output.dense.bias')
            x = ln(x + c, w(p+'attention.output.LayerNorm.weight'), w(p+'attention.output.LayerNorm.bias'))
            h = gelu(x @ w(p+'intermediate.dense.weight').T + w(p+'intermediate.dense.bias'))
            h = h @ w(p+'output.dense.weight').T + w(p+'output.dense.bias')
            x = ln(x + h, w(p+'output.LayerNorm.weight'), w(p+'output.LayerNorm.bias'))
        e = (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
        e /= np.linalg.norm(e, axis=1, keepdims=True)
        outs.append(e.astype(np.float32))
    return np.concatenate(outs)
if __name__ == '__main__':
    import time
    t = time.time()
    e = encode(['How do I sort a list?', 'Sorting a list in Python uses sorted()', 'The weather is nice today'])
    print(e @ e.T, time.time() - t)
