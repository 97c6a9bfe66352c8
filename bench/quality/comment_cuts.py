#!/usr/bin/env python3
"""Where chunk cuts fall inside comments: at a sentence's end or a blank comment line, or in
mid-sentence. Reads `cleave chunk` JSON Lines on stdin; a cut counts when the last non-blank
line before it and the first after it are both comment lines (`*`, `//`, `#`, `--`, and not
the opening line of a comment).

    cleave chunk DIR --budget 1000 --no-ignore -q | python3 bench/quality/comment_cuts.py
"""
import sys,json,re
# Lines that start with `#` but are code: Rust attributes and C preprocessor directives
# (counted as comments before 2026-11-29's second session, which inflated Rust's and C's
# mid-sentence figures: most of those "cuts" fell between a doc comment and `#[inline]`, or
# between two `#define` lines).
RUST_ATTR=re.compile(r'#!?\[')
C_DIRECTIVE=re.compile(r'#\s*(define|undef|if|ifdef|ifndef|elif|else|endif|include|pragma|error|warning|line)\b')
C_FAMILY=('.c','.h','.cc','.cpp','.hpp','.hh','.cxx')
def is_comment(l,path=''):
    t=l.strip()
    if path.endswith('.rs') and RUST_ATTR.match(t): return False
    if path.endswith(C_FAMILY) and C_DIRECTIVE.match(t): return False
    return t.startswith(('*','//','#','/*','--')) or t.startswith('"""')
def blank(l): return l.strip().lstrip('/*#-;!').strip()==''
def ends(l):
    e=l.rstrip().removesuffix('*/').rstrip().rstrip('"\')]*_`'); return e.endswith(('.','!','?'))
prev=None; good=bad=0
for line in sys.stdin:
    c=json.loads(line)
    if prev and prev['path']==c['path']:
        pl=[l for l in prev['text'].split('\n') if l.strip()!='']
        nl=[l for l in c['text'].split('\n') if l.strip()!='']
        if pl and nl and is_comment(pl[-1],c['path']) and is_comment(nl[0],c['path']) and not nl[0].strip().startswith(('/**','/*','///','"""')):
            if blank(pl[-1]) or blank(nl[0]) or ends(pl[-1]): good+=1
            else: bad+=1
    prev=c
print(f"cuts inside comments: {good+bad}, at a sentence end or blank line {good}, mid-sentence {bad}")
