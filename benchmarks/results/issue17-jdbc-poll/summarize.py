#!/usr/bin/env python3
"""Medians and ranges of the scenario-10 runs in this directory: python3 summarize.py"""
import glob
import re
import statistics
from collections import defaultdict

runs = defaultdict(list)
for path in sorted(glob.glob('*-results.md')):
    experiment, build = path.split('-')[:2]
    for line in open(path):
        if not line.startswith('| 10 |'):
            continue
        cells = [cell.strip() for cell in line.split('|')]
        cpu = re.search(r'consumers ([0-9.]+), process [0-9.]+(, postgres ([0-9.]+))?', cells[12])
        runs[(experiment, cells[3].replace('batch-consumer e2e, ', ''), build)].append(
            (int(cells[4].replace(',', '')), float(cells[6]), float(cells[7].replace(',', '')),
             float(cpu.group(1)), float(cpu.group(3)) if cpu.group(3) else None))

print('| experiment | consumers | build | msg/s median (runs) | p50 ms | p99 ms | consumers us/msg | PostgreSQL us/msg |')
print('|---|---|---|---:|---|---|---|---|')
for (experiment, name, build), values in sorted(runs.items()):
    def span(i):
        xs = [v[i] for v in values if v[i] is not None]
        return f'{min(xs)}-{max(xs)}' if xs else ''
    rates = [v[0] for v in values]
    print(f'| {experiment} | {name} | {build} | {statistics.median(rates):,.0f} ({", ".join(f"{r:,}" for r in rates)}) '
          f'| {span(1)} | {span(2)} | {span(3)} | {span(4)} |')
