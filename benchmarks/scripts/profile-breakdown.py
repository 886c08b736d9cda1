"""Shares of one thread's samples in an async-profiler collapsed file (written with `threads`).

usage: python3 benchmarks/scripts/profile-breakdown.py <file.collapsed> '<thread regex>' '<frame regex>'...

Prints the thread's sample count, the share of its samples with a frame matching each regex
anywhere on the stack, and its 25 most common leaf frames.
"""
import collections
import re
import sys

path, thread = sys.argv[1], sys.argv[2]
patterns = sys.argv[3:]
total = 0
matching = collections.Counter()
leaves = collections.Counter()
with open(path) as collapsed:
    for line in collapsed:
        stack, _, count = line.rpartition(' ')
        count = int(count)
        frames = stack.split(';')
        if not re.search(thread, frames[0]):
            continue
        total += count
        for pattern in patterns:
            if any(re.search(pattern, frame) for frame in frames):
                matching[pattern] += count
        leaves[frames[-1]] += count
print('total', total)
for pattern in patterns:
    print(f'{matching[pattern] / total * 100:6.1f}% {pattern}')
print('-- top leaves')
for frame, count in leaves.most_common(25):
    print(f'{count / total * 100:6.1f}% {frame}')
