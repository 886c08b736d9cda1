"""Per run: the median per-round ratio ours/plain, the median CPU per record and the median records/s (millions), for the runs in this directory.
usage: python3 summary.py [dir]   (each sub-directory holds one run's results.csv)"""
import csv, os, re, statistics, sys
root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
def cpu(note, who):
    m = re.search(who + r' CPU ([0-9.]+) us/record', note)
    return float(m.group(1)) if m else None
print(f"{'run':12} {'key':>5} {'unord':>5} | {'key owner':>9} {'workers':>7} | {'unord owner':>11} {'workers':>7} | {'plain':>5} | {'M/s: plain':>10} {'key':>5} {'unord':>5}")
for run in sorted(os.listdir(root)):
    path = os.path.join(root, run, 'results.csv')
    if not os.path.exists(path):
        continue
    rows = [r for r in csv.DictReader(open(path)) if r['scenario'] == '1' and r['round'] != '0']  # 0: warm-up
    plain = {r['round']: float(r['throughput']) for r in rows if r['contender'].startswith('plain')}
    out = {}
    for kind in ('key', 'unordered'):
        mine = [r for r in rows if r['contender'] == f'batch-consumer {kind}, transport defaults, each message']
        ratio = statistics.median(float(r['throughput']) / plain[r['round']] for r in mine)
        out[kind] = (ratio, statistics.median(cpu(r['note'], 'owner') for r in mine),
                     statistics.median(cpu(r['note'], 'workers') for r in mine),
                     statistics.median(float(r['throughput']) for r in mine) / 1e6)
    p = statistics.median(cpu(r['note'], 'poll thread') for r in rows if r['contender'].startswith('plain'))
    print(f"{run:12} {out['key'][0]:5.2f} {out['unordered'][0]:5.2f} | {out['key'][1]:9.2f} {out['key'][2]:7.2f} | "
          f"{out['unordered'][1]:11.2f} {out['unordered'][2]:7.2f} | {p:5.2f} | "
          f"{statistics.median(plain.values()) / 1e6:10.2f} {out['key'][3]:5.2f} {out['unordered'][3]:5.2f}")
