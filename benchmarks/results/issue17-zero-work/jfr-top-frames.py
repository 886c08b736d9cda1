import sys, re, collections
# usage: agg.py samples.txt thread-regex
path, pat = sys.argv[1], re.compile(sys.argv[2])
self_c = collections.Counter(); incl = collections.Counter(); n = 0
cur_thread = None; frames = []
def flush():
    global n
    if cur_thread and pat.search(cur_thread) and frames:
        n += 1
        self_c[frames[0]] += 1
        for f in set(frames):
            incl[f] += 1
for line in open(path):
    line = line.strip()
    if line.startswith('jdk.ExecutionSample'):
        flush(); cur_thread = None; frames = []
    elif line.startswith('sampledThread'):
        cur_thread = line
    elif re.match(r'^[\w$.<>]+\(.*\)', line):
        frames.append(re.sub(r'\s+line:.*', '', re.sub(r'\(.*\)', '', line)))
flush()
print("samples", n)
print("--- self")
for f, c in self_c.most_common(int(sys.argv[3]) if len(sys.argv) > 3 else 30):
    print(f"{100*c/n:5.1f}% {f}")
print("--- inclusive (io.batchconsumer, selected)")
for f, c in incl.most_common(400):
    if 'batchconsumer' in f or 'KafkaConsumer.poll' in f or 'Fetch' in f or 'LinkedBlocking' in f or 'wakeup' in f.lower() or 'Selector' in f:
        print(f"{100*c/n:5.1f}% {f}")
