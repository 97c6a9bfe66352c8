#!/usr/bin/env python3
"""Where chunk cuts fall inside comments: at a sentence's end or a blank comment line, or in
mid-sentence. Reads `cleave chunk` JSON Lines on stdin; a cut counts when the last non-blank
line before it and the first after it are both comment lines (`*`, `//`, `#`, `--`, and not
the opening line of a comment).

    cleave chunk DIR --budget 1000 --no-ignore -q | python3 bench/quality/comment_cuts.py
"""
import sys,json,re
def is_comment(l):
    t=l.strip(); return t.startswith(('*','//','#','/*','--')) or t.startswith('"""')
def blank(l): return l.strip().lstrip('/*#-;!').strip()==''
def ends(l):
    e=l.rstrip().removesuffix('*/').rstrip().rstrip('"\')]*_`'); return e.endswith(('.','!','?'))
prev=None; good=bad=0
for line in sys.stdin:
    c=json.loads(line)
    if prev and prev['path']==c['path']:
        pl=[l for l in prev['text'].split('\n') if l.strip()!='']
        nl=[l for l in c['text'].split('\n') if l.strip()!='']
        if pl and nl and is_comment(pl[-1]) and is_comment(nl[0]) and not nl[0].strip().startswith(('/**','/*','///','"""')):
            if blank(pl[-1]) or blank(nl[0]) or ends(pl[-1]): good+=1
            else: bad+=1
    prev=c
print(f"cuts inside comments: {good+bad}, at a sentence end or blank line {good}, mid-sentence {bad}")
