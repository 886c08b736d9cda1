#!/usr/bin/env python3
"""Per-round ratios of each second contender of a separate-jvms.py results.csv to the one before it (2 to 1, 4 to 3, ...), and the flow-control stops of each: python3 pairs.py raw/span-8000-12-rounds-results.csv"""
import csv, sys, statistics, collections, re
rows = list(csv.DictReader(open(sys.argv[1])))
by = collections.defaultdict(dict)
for r in rows:
    by[r['round']][r['contender']] = r
def pair(a, b):
    xs = [float(by[k][b]['records/s']) / float(by[k][a]['records/s']) for k in by if a in by[k] and b in by[k]]
    xs.sort()
    return statistics.median(xs), sum(x > 1 for x in xs), len(xs), xs
names = list(dict.fromkeys(r['contender'] for r in rows))
for a, b in [(names[i], names[i+1]) for i in range(1, len(names) - 1, 2)]:
    m, ahead, n, xs = pair(a, b)
    print('%s -> %s: median %.2f, ahead %d of %d: %s' % (a[-45:], b[-30:], m, ahead, n, ' '.join('%.2f' % x for x in xs)))
for n in names:
    stops = [re.search(r'\(count (\d+), size \d+, span (\d+)\)', by[k][n]['note']) for k in by]
    stops = [(int(s.group(1)), int(s.group(2))) for s in stops if s]
    if stops:
        print(n[-45:], 'count stops', sorted(s[0] for s in stops), 'span stops', sorted(s[1] for s in stops))
