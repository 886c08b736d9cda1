"""Per run: the median per-round ratio ours/plain, the median CPU per record and the median records/s (millions),
for the runs in this directory; '-' where a run has no such contender (a run of plain alone, or of ours alone).
With --commit the ratios and rates are on the second clock: records/s until the group's committed offsets
reach the end offsets, as each round's note gives it. With --list the contenders are the list listeners
('transport defaults') instead of the each-message ones.
usage: python3 summary.py [--commit] [--list] [dir]   (each sub-directory holds one run's results.csv)"""
import csv, os, re, statistics, sys
args = [a for a in sys.argv[1:] if a not in ('--commit', '--list')]
COMMIT = '--commit' in sys.argv[1:]
root = args[0] if args else os.path.dirname(os.path.abspath(__file__))
OURS = 'batch-consumer {}, transport defaults' + ('' if '--list' in sys.argv[1:] else ', each message')

def cpu(note, who):
    m = re.search(who + r' CPU ([0-9.]+) us/record', note)
    return float(m.group(1)) if m else None

def rate_of(row):
    """Records/s on the clock asked for: handled, or until committed to the end (None where the note lacks it)."""
    if not COMMIT:
        return float(row['throughput'])
    m = re.search(r'\(([0-9,]+) records/s to the commit\)', row['note'])
    return float(m.group(1).replace(',', '')) if m else None

def median(values, width, scale=1.0):
    values = [v for v in values if v is not None]
    return f"{statistics.median(values) / scale:{width}.2f}" if values else f"{'-':>{width}}"

print(f"{'run':12} {'key':>5} {'unord':>5} | {'key owner':>9} {'workers':>7} | {'unord owner':>11} {'workers':>7} | "
      f"{'plain':>5} | {'M/s: plain':>10} {'key':>5} {'unord':>5}")
for run in sorted(os.listdir(root)):
    path = os.path.join(root, run, 'results.csv')
    if not os.path.exists(path):
        continue
    rows = [r for r in csv.DictReader(open(path)) if r['scenario'] == '1' and r['round'] != '0']  # 0: warm-up
    plain = [r for r in rows if r['contender'].startswith('plain')]
    plain_by_round = {r['round']: rate_of(r) for r in plain if rate_of(r)}
    mine = {kind: [r for r in rows if r['contender'] == OURS.format(kind)] for kind in ('key', 'unordered')}
    ratio = {kind: median((rate_of(r) / plain_by_round[r['round']] for r in mine[kind]
                           if r['round'] in plain_by_round and rate_of(r)), 5) for kind in mine}
    owner = {kind: median((cpu(r['note'], 'owner') for r in mine[kind]), 9 if kind == 'key' else 11) for kind in mine}
    workers = {kind: median((cpu(r['note'], 'workers') for r in mine[kind]), 7) for kind in mine}
    rate = {kind: median((rate_of(r) for r in mine[kind]), 5, 1e6) for kind in mine}
    print(f"{run:12} {ratio['key']} {ratio['unordered']} | {owner['key']} {workers['key']} | "
          f"{owner['unordered']} {workers['unordered']} | {median((cpu(r['note'], 'poll thread') for r in plain), 5)} | "
          f"{median((rate_of(r) for r in plain), 10, 1e6)} {rate['key']} {rate['unordered']}")
