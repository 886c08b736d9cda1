"""Per-round records/s of each contender of a BenchmarkRunner results.csv and its ratio to the plain
KafkaConsumer of the same round, then the median ratio per contender (warm-up rounds left out):
python3 benchmarks/scripts/ratios.py <out>/results.csv"""
import csv, sys, statistics, collections
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r['round'] != '0']
by = collections.defaultdict(dict)
for r in rows: by[int(r['round'])][r['contender']] = float(r['throughput'])
names = sorted({r['contender'] for r in rows})
plain = 'plain KafkaConsumer'
print("round " + " | ".join(names))
ratios = collections.defaultdict(list)
for rnd in sorted(by):
    line = [f"{by[rnd].get(n,0):,.0f}" for n in names]
    for n in names:
        if n != plain: ratios[n].append(by[rnd][n]/by[rnd][plain])
    print(rnd, " | ".join(line), " ratios:", ", ".join(f"{n.split(',')[0][15:]}={by[rnd][n]/by[rnd][plain]:.2f}" for n in names if n != plain))
for n in names:
    if n != plain: print(f"median per-round ratio {n}: {statistics.median(ratios[n]):.2f}")
med = {n: statistics.median([by[r][n] for r in by]) for n in names}
for n in names:
    if n != plain: print(f"ratio of medians {n}: {med[n]/med[plain]:.2f}  ({med[n]:,.0f} vs {med[plain]:,.0f})")
import re
cpu = collections.defaultdict(lambda: collections.defaultdict(list))
for r in rows:
    for label, v in re.findall(r'(owner|workers|poll thread) CPU ([0-9.]+) us/record', r['note']):
        cpu[r['contender']][label].append(float(v))
for n in names:
    if cpu[n]:
        print("CPU us/record", n, {k: f"median {statistics.median(v):.2f} of {v}" for k, v in cpu[n].items()})
