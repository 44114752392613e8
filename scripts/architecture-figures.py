#!/usr/bin/env python3
# The figures of docs/architecture.md: code lines per layer of gate/src (non-blank, non-comment,
# outside #[cfg(test)]), the largest files, and the imports that run upward under the layering
# of gate/src/lib.rs. `mode` new reads the layered tree; `old` maps the flat tree before it
# (git archive 8948dac gate/src) onto the same layers.
# Usage: scripts/architecture-figures.py gate/src new
#        scripts/architecture-figures.py /tmp/old/gate/src old
import os,re,sys
root=sys.argv[1]; mode=sys.argv[2]
# 'change' and 'identity' are layers of trees before the third step (issue #39), which moved them
# into select/ and into the crate irgate-identity (identity/).
L={'text':0,'env':0,'error':1,'id':2,'filter':2,'model':3,'config':4,'git':5,'identity':6,'change':7,'formats':8,'paths':9,'measure':10,'select':10.5,'judge':11,'explain':12,'render':13,'calibrate':13.5,'bisect':13.5,'init':13.5,'commands':14,'cli':15}
old={'files':'formats','results':'formats','baseline':'formats','profiles':'formats','summary':'formats','load':'formats',
 'workspace':'measure','library':'measure','suite':'measure','runner':'measure','runner_cache':'commands','cpu':'measure','fingerprint':'measure','ab':'measure','paths':'measure',
 'compare':'judge','accept':'judge','drift':'judge','report':'render','run':'commands','check':'commands','init':'commands','refresh':'commands','doctor':'commands','calibrate':'commands','comment':'commands'}
def top_of(rel):
    parts=rel[:-3].split('/')
    t=parts[0]
    if mode=='old':
        if t=='history':
            sub=parts[1] if len(parts)>1 else 'mod'
            return {'store':'formats','render':'render','chart':'render','mod':'commands'}[sub]
        if t=='report' and len(parts)>1 and parts[1]=='json': return 'formats'
        return old.get(t,t)
    return t
def target(path):
    t=path.split('::')[0]
    if mode=='old':
        if t=='history':
            sub=path.split('::')[1] if '::' in path else ''
            return {'store':'formats','render':'render','chart':'render'}.get(sub,'commands')
        if t=='report' and path.startswith('report::json'): return 'formats'
        return old.get(t,t)
    return t
lines={}; up=[]; files=[]
for d,_,fs in os.walk(root):
    for f in fs:
        if not f.endswith('.rs'): continue
        p=os.path.join(d,f); rel=os.path.relpath(p,root)
        if rel in ('lib.rs','main.rs'): continue
        text=open(p).read(); code=text.split('\n#[cfg(test)]')[0]
        n=sum(1 for l in code.split('\n') if l.strip() and not l.strip().startswith('//'))
        me=top_of(rel); lines[me]=lines.get(me,0)+n; files.append((n,rel))
        seen=set()
        for l in code.split('\n'):
            if l.strip().startswith('//'): continue
            for m in re.finditer(r'crate::([a-z_]+(?:::[a-z_]+)?)',l):
                t=target(m.group(1))
                if t in L and L[t]>L[me] and (rel,m.group(1)) not in seen:
                    seen.add((rel,m.group(1))); up.append(f"{rel} -> {m.group(1)}")
for k in sorted(lines,key=lambda k:L.get(k,99)): print(f"{k}: {lines[k]}")
print("total", sum(lines.values()))
files.sort(reverse=True); print("largest", files[:3])
print("upward", len(up)); print('\n'.join(up[:40]))
