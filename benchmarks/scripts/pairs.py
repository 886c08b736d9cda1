#!/usr/bin/env python3
"""Per-round ratios between two contenders of a separate-jvms.py results.csv, on both clocks:
python3 benchmarks/scripts/pairs.py <out>/results.csv 0:3 2:3  (contender indices in the order of the run, 0 = the first)"""
import csv, sys, statistics, collections
rows = list(csv.DictReader(open(sys.argv[1])))
by = collections.defaultdict(dict)
for r in rows: by[r['round']][r['contender']] = r
names = list(dict.fromkeys(r['contender'] for r in rows))
def pair(a, b, col):
    xs = sorted(float(by[k][b][col]) / float(by[k][a][col]) for k in by if a in by[k] and b in by[k])
    return statistics.median(xs), sum(x > 1 for x in xs), len(xs), xs
for spec in sys.argv[2:]:
    a, b = (int(x) for x in spec.split(':'))
    for col in ('records/s', 'records/s to the commit'):
        m, ahead, n, xs = pair(names[a], names[b], col)
        print('%d->%d %-24s median %.2f ahead %d/%d  %s' % (a, b, col, m, ahead, n, ' '.join('%.2f' % x for x in xs)))
