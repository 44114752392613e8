#!/usr/bin/env python3
"""Writes a large, valid code record (baselines/code/record.json's format, schema_version 2) to
stdout, for measuring what reading one costs (docs/scale.md, "A large code record").

usage: scripts/large-record.py [OBJECTS] [FUNCTIONS] [BENCHMARKS] [EXECUTED] > record.json

OBJECTS objects of FUNCTIONS functions each (names of about 75 characters, as Rust's demangled
paths are; a third with two-part digests), and BENCHMARKS benchmarks that each executed EXECUTED
functions of every object, as 10 ranges (so the file lists few numbers and many names).
Defaults: 4 objects, 200,000 functions, 2,000 benchmarks, 500 executed.
Deterministic: the same arguments give the same bytes.
"""
import hashlib
import json
import sys


def digest(*parts):
    return hashlib.md5("/".join(map(str, parts)).encode()).hexdigest()


def main():
    defaults = ["4", "200000", "2000", "500"]
    objects, functions, benchmarks, executed = (
        int(a) for a in (sys.argv[1:] + defaults[len(sys.argv) - 1 :])[:4]
    )
    out = sys.stdout
    out.write('{\n  "schema_version": 2,\n  "commit": "%s",\n  "identity": 5,\n' % ("a" * 40))
    out.write('  "objects": {\n')
    for o in range(objects):
        key = "release/deps/bench_%d" % o
        names = sorted(
            "crate_%d::module_%d::Type<alloc::vec::Vec<u8>>::method_with_a_long_name_%07d" % (o, f % 97, f)
            for f in range(functions)
        )
        out.write('    %s: {\n      "whole": "%s",\n      "functions": {\n' % (json.dumps(key), digest(o)))
        out.write(",\n".join('        %s: "%s"' % (json.dumps(n), digest(o, n)) for n in names))
        out.write('\n      },\n      "parts": {\n')
        parts = names[::3]
        out.write(",\n".join(
            '        %s: {"code": "%s", "data": {"16": "%s", "48": "%s"}}'
            % (json.dumps(n), digest(o, n, "c"), digest(o, n, 16), digest(o, n, 48))
            for n in parts
        ))
        out.write('\n      }\n    }%s\n' % ("," if o + 1 < objects else ""))
    out.write('  },\n  "benchmarks": {\n')
    run, stride = executed // 10, functions // 10
    for b in range(benchmarks):
        start = (b * 7919) % (stride - run)
        ranges = ",".join(
            "%d-%d" % (r * stride + start, r * stride + start + run - 1) for r in range(10)
        )
        entry = ", ".join('"release/deps/bench_%d": "%s"' % (o, ranges) for o in range(objects))
        out.write('    "group_%d::bench_%d/case": {"executed": {%s}, "counts": {"Ir": %d}}%s\n'
                  % (b % 10, b, entry, 1000 + b, "," if b + 1 < benchmarks else ""))
    out.write("  }\n}\n")


main()
