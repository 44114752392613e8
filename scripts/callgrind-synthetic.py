#!/usr/bin/env python3
"""Writes a large synthetic callgrind file, to measure the reader's time and memory per MB
(docs/explain.md, "What the reader costs"). Deterministic (seeded).

usage: scripts/callgrind-synthetic.py deep|wide FUNCTIONS OUT
  deep  FUNCTIONS functions of 31 instruction lines and 3 calls each (a real file's shape;
        100000 -> 55 MB)
  wide  FUNCTIONS functions of one line each (the most functions per MB; 1000000 -> 58 MB)
"""
import sys, random
shape, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
r = random.Random(7)
ev = 9
tot = [0]*ev
with open(out, 'w', buffering=1<<20) as f:
    f.write("# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npositions: instr line\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n")
    f.write("ob=(1) /usr/bin/prog\nfl=(1) /src/main.rs\n")
    w = f.write
    if shape == 'wide':
        for i in range(n):
            c = r.randrange(1, 1000)
            tot[0] += c
            w(f"fn=({i+1}) prog::module::function_{i}\n0x{0x10000+i*16:x} {i%500+1} {c}\n")
    else:
        for i in range(n):
            w(f"fn=({i+1}) prog::module::function_number_{i}::<T>\n")
            a = 0x10000 + i*256
            w(f"0x{a:x} {i%500+1} 3 1 1\n")
            tot[0] += 3; tot[1] += 1; tot[2] += 1
            for k in range(30):
                c = [r.randrange(1,50), r.randrange(0,5), r.randrange(0,3)]
                for j in range(3): tot[j] += c[j]
                w(f"+{r.randrange(1,8)} {'*' if k%3 else '+1'} {c[0]} {c[1]} {c[2]}\n")
                if k % 10 == 9 and i > 0:
                    callee = r.randrange(0, i)
                    w(f"cfn=({callee+1})\ncalls={r.randrange(1,100)} 0x{0x10000+callee*256:x}\n* * {r.randrange(1,9999)}\n")
    w("totals: " + " ".join(map(str, tot)) + "\n")
