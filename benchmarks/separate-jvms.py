#!/usr/bin/env python3
"""Kafka contenders side by side, each run in a JVM of its own, against one broker in a process of its own.

In the runner's own mode every contender and the broker share one JVM: one contender's garbage, heap
growth and compiled code meet the next, and the broker's collections land in whichever run is on. Here
the broker runs alone (BenchBroker's main) and every round starts one runner JVM per contender
(`--broker`, `--contender`, `--rounds`, with its own warm-up run first), the order rotating each
round, so the ratios compare rounds run one after the other under the same broker.

Each runner JVM runs --per-jvm rounds (3) after its warm-up run, and only its last counts: in a JVM
this young the JIT compilers still take a good part of a core in the first rounds (a plain consumer's
process CPU fell from 1.02 to 0.51 µs/record over three rounds), more so for more code: our JVM's
compilers settle about two rounds after the plain loop's (the summary's JIT ms column shows the measured
round's; --per-jvm=6 or more measures both settled, docs/benchmarks.md#what-is-left-at-zero-work).

A contender may carry JVM flags of its own after a '|', which makes two settings of one contender
two contenders of the same run:

  python3 benchmarks/separate-jvms.py --out=/tmp/sep --rounds=9 \\
      'plain KafkaConsumer' \\
      'batch-consumer key, transport defaults, each message' \\
      'batch-consumer key, transport defaults, each message|-Dbench.transport.max.partition.fetch.bytes=4194304'

A 'jar=<path>' among a contender's flags runs it from another build (its lib/ beside it), which puts
two builds of one contender side by side:

  python3 benchmarks/separate-jvms.py --out=/tmp/ab 'plain KafkaConsumer' \
      'batch-consumer key, transport defaults, each message|jar=/tmp/before/benchmarks.jar' \
      'batch-consumer key, transport defaults, each message'

The first contender is the reference of the ratios. Options: --jar (default
benchmarks/target/benchmarks.jar, its lib/ beside it), --rounds (9), --per-jvm (3), --heap (1g, every JVM),
--jvm='...' (flags of every contender JVM, default '-Xms{heap} -XX:+AlwaysPreTouch -XX:+UseTransparentHugePages';
--jvm='' for none; a contender whose own flags set a smaller -Xmx than --heap needs --jvm without -Xms) and --runner='...' (default '--quick --scale=200 --scenarios=1 --warm-up=2s --max-run=60s'). Writes each
runner's log and results under OUT/runs/, every measured round to OUT/results.csv, and the table to
OUT/summary.md: per contender the medians of records/s on both clocks (records handled; committed to
the end), of the per-round ratios to the reference, of the consuming threads' CPU per record, of the
time the owner (the plain loop's thread) was ready to run but waited for a core, of the
contender process's CPU per record and the cores it kept busy, of the broker process's CPU per record
(the two share the machine's 2 cores), and
of the garbage collections and JIT time per run.
"""
import argparse, csv, os, re, statistics, subprocess, sys, time

RUNNER = '--quick --scale=200 --scenarios=1 --warm-up=2s --max-run=60s'

# Every contender JVM's heap committed and touched up front, in transparent huge pages: without them one
# thread's CPU per record moved by up to 2.5x from one JVM to the next (the plain loop's 0.22-0.54 us) and
# per-round ratios spread over 0.4-2.2x; with them 0.18-0.25 us and 0.64-0.85x (docs/benchmarks.md#steadier-jvms).
JVM = '-Xms{heap} -XX:+AlwaysPreTouch -XX:+UseTransparentHugePages'


def start_broker(jar, heap, out):
    log = open(os.path.join(out, 'broker.log'), 'w')
    broker = subprocess.Popen(['java', '-Xmx' + heap, '-cp', jar, 'io.batchconsumer.benchmarks.kafka.BenchBroker'],
                              stdout=subprocess.PIPE, stderr=log, text=True)
    for line in broker.stdout:
        if line.startswith('bootstrap='):
            return broker, line.strip().split('=', 1)[1]
    raise SystemExit('the broker ended before printing its address; see ' + log.name)


def run_one(jar, heap, jvm, runner, per_jvm, bootstrap, spec, directory):
    name, _, flags = spec.partition('|')
    flags = flags.split()
    jar = next((flag[len('jar='):] for flag in flags if flag.startswith('jar=')), jar)
    flags = [flag for flag in flags if not flag.startswith('jar=')]
    command = ['java', '-Xmx' + heap, *jvm.replace('{heap}', heap).split(), *flags, '-jar', jar, '--broker=' + bootstrap, '--contender=' + name,
               f'--rounds={per_jvm}', *runner.split(), '--out=' + directory]
    with open(directory + '.log', 'w') as log:
        subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, check=True)
    with open(os.path.join(directory, 'results.csv')) as results:
        rows = [row for row in csv.DictReader(results) if row['round'] == str(per_jvm) and row['contender'] == name]
    if len(rows) != 1:
        raise SystemExit(f'{directory}: expected one measured row of {name!r}, found {len(rows)}')
    return rows[0]


def commit_rate(note):
    match = re.search(r'\(([0-9,]+) records/s to the commit\)', note)
    return float(match.group(1).replace(',', '')) if match else None


def handled_rate(row):
    return float(row['throughput'])


def committed_rate(row):
    return commit_rate(row['note'])


def spread(values):
    values = [v for v in values if v]
    return f'{statistics.median(values):.2f} ({min(values):.2f}–{max(values):.2f})' if values else '-'


def median_cpu(rows):
    """The median CPU µs/record of each consuming thread the rows' notes name."""
    by_thread = {}
    for row in rows:
        for who, value in re.findall(r'(owner|workers|poll thread) CPU ([0-9.]+) us/record', row['note']):
            by_thread.setdefault(who, []).append(float(value))
    return ', '.join(f'{who} {statistics.median(values):.2f}' for who, values in by_thread.items())


GC_NOTE = r'GC (\d+) collections'
JIT_NOTE = r'JIT (\d+) ms'
# The contender JVM's whole process (not the broker's), with the cores it kept busy: with the broker's,
# what shows how much of the 2 cores the two processes use.
PROCESS_NOTE = r'process CPU ([0-9.]+) us/record'
CORES_NOTE = r'process CPU [0-9.]+ us/record, ([0-9.]+) cores'
# How long the consuming thread (our owner, the plain loop's thread) was ready but waited for a core.
WAITED_NOTE = r'(?:owner|poll thread) waited for a core ([0-9.]+) us/record'
# The broker process's CPU over the run, which the runner reads from /proc by the pid passed to it.
BROKER_NOTE = r'broker CPU ([0-9.]+) us/record'


def median_in_notes(rows, pattern, digits=0):
    """The median of the number the pattern's group captures in the rows' notes, '-' when they do not say."""
    values = [float(m.group(1)) for row in rows for m in [re.search(pattern, row['note'])] if m]
    return f'{statistics.median(values):.{digits}f}' if values else '-'


def summarize(specs, measured):
    """measured: {round: {spec: row}}; returns the markdown table, ratios per round to specs[0]."""
    lines = ['| contender | records/s handled | to the commit | handled / ref | committed / ref | CPU µs/record | waited for a core µs/record | process µs/record, cores | broker µs/record | GC collections | JIT ms |',
             '|---|---:|---:|---|---|---|---:|---|---:|---:|---:|']
    rounds = [measured[r] for r in sorted(measured)]
    for spec in specs:
        cells = []
        for rate in (handled_rate, committed_rate):
            rates = [rate(by_spec[spec]) for by_spec in rounds]
            cells.append(f"{statistics.median([r for r in rates if r] or [0]):,.0f}")
        for rate in (handled_rate, committed_rate):
            cells.append(spread([rate(by_spec[spec]) / rate(by_spec[specs[0]]) for by_spec in rounds
                                 if rate(by_spec[spec]) and rate(by_spec[specs[0]])]))
        rows = [by_spec[spec] for by_spec in rounds]
        collections, jit = median_in_notes(rows, GC_NOTE), median_in_notes(rows, JIT_NOTE)
        process = f"{median_in_notes(rows, PROCESS_NOTE, 2)}, {median_in_notes(rows, CORES_NOTE, 2)}"
        broker, waited = median_in_notes(rows, BROKER_NOTE, 2), median_in_notes(rows, WAITED_NOTE, 2)
        lines.append(f"| {spec} | {' | '.join(cells)} | {median_cpu(rows)} | {waited} | {process} | {broker} | {collections} | {jit} |")
    return '\n'.join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--out', required=True)
    parser.add_argument('--rounds', type=int, default=9)
    parser.add_argument('--jar', default='benchmarks/target/benchmarks.jar')
    parser.add_argument('--per-jvm', type=int, default=3)
    parser.add_argument('--heap', default='1g')
    parser.add_argument('--runner', default=RUNNER)
    parser.add_argument('--jvm', default=JVM)
    parser.add_argument('contenders', nargs='+')
    args = parser.parse_args()
    os.makedirs(os.path.join(args.out, 'runs'), exist_ok=True)
    broker, bootstrap = start_broker(args.jar, args.heap, args.out)
    jvm = f'{args.jvm} -Dbench.broker.pid={broker.pid}'  # the runner notes the broker's CPU per run
    measured, table = {}, ''
    try:
        # The first runner fills the topic; its round is thrown away so that no measured round follows a fill.
        run_one(args.jar, args.heap, jvm, args.runner, 1, bootstrap, args.contenders[0], os.path.join(args.out, 'runs', 'fill'))
        for r in range(1, args.rounds + 1):
            measured[r] = {}
            for i in range(len(args.contenders)):
                spec = args.contenders[(i + r - 1) % len(args.contenders)]
                row = run_one(args.jar, args.heap, jvm, args.runner, args.per_jvm, bootstrap, spec,
                              os.path.join(args.out, 'runs', f'r{r}-{args.contenders.index(spec)}'))
                measured[r][spec] = row
                print(f"round {r} {spec}: {float(row['throughput']):,.0f} records/s, "
                      f"{commit_rate(row['note']) or 0:,.0f} to the commit", flush=True)
            # After every round, so that a run stopped early keeps the rounds it finished.
            table = write(args, {done: rows for done, rows in measured.items() if len(rows) == len(args.contenders)})
    finally:
        broker.terminate()
        broker.wait(60)
    print(table)


def write(args, measured):
    """Writes OUT/results.csv and OUT/summary.md of the whole rounds so far; returns the table."""
    with open(os.path.join(args.out, 'results.csv'), 'w', newline='') as out:
        writer = csv.writer(out)
        writer.writerow(['round', 'contender', 'records/s', 'records/s to the commit', 'note'])
        for r in sorted(measured):
            for spec in args.contenders:
                row = measured[r][spec]
                writer.writerow([r, spec, row['throughput'], commit_rate(row['note']), row['note']])
    table = summarize(args.contenders, measured)
    with open(os.path.join(args.out, 'summary.md'), 'w') as out:
        out.write(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {len(measured)} of {args.rounds} rounds (the last of "
                  f"{args.per_jvm} in each JVM), runner `{args.runner}`, heap {args.heap}, JVM flags `{args.jvm.replace('{heap}', args.heap)}`; medians, ratios per round "
                  f"(min–max)\n\n{table}\n")
    return table


if __name__ == '__main__':
    sys.exit(main())
