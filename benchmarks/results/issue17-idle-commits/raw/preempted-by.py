"""Who took a thread's core while it was still ready to run, from `perf sched record -a`.

    perf script -i ps.data -F tid,cpu,time,trace | python3 preempted-by.py <tid>

For each switch of <tid> out in state R (preempted), the task switched in is charged the time until
<tid> runs again; prints the total, then the tasks (trailing digits of their names dropped) by time.
"""
import collections, re, sys

SWITCH = re.compile(r'(\d+\.\d+):?\s+prev_comm=(.*) prev_pid=(\d+) prev_prio=\d+ prev_state=(\S+) ==> '
                    r'next_comm=(.*) next_pid=(\d+)')
thread = sys.argv[1]
out, who = None, None
millis, times = collections.Counter(), collections.Counter()
for line in sys.stdin:
    m = SWITCH.search(line)
    if not m:
        continue
    at = float(m.group(1))
    if m.group(3) == thread and m.group(4).startswith('R'):
        out, who = at, re.sub(r'\d+$', '', m.group(5)).strip()
    elif m.group(6) == thread and out is not None:
        millis[who] += (at - out) * 1000
        times[who] += 1
        out = None
print('preempted total ms', round(sum(millis.values()), 1), 'count', sum(times.values()))
for task, ms in millis.most_common(12):
    print(round(ms, 1), 'ms', times[task], task)
