import sys,re,collections
T=sys.argv[1]
out=None; who=None; tot=collections.Counter(); cnt=collections.Counter(); wake=0.0
for line in sys.stdin:
    m=re.search(r'(\d+\.\d+):?\s+prev_comm=(.*) prev_pid=(\d+) prev_prio=\d+ prev_state=(\S+) ==> next_comm=(.*) next_pid=(\d+)',line)
    if not m: continue
    t=float(m.group(1))
    if m.group(3)==T and m.group(4).startswith('R'):
        out=t; who=re.sub(r'\d+$','',m.group(5)).strip()
    elif m.group(6)==T and out is not None:
        tot[who]+=t-out; cnt[who]+=1; out=None
s=sum(tot.values())
print('preempted total ms',round(s*1000,1), 'count', sum(cnt.values()))
for k,v in tot.most_common(12): print(round(v*1000,1),'ms',cnt[k],k)
