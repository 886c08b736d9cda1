"""Per run: each contender's median records/s (millions) over the measured rounds, with the lowest and highest round.
usage: python3 medians.py [dir]   (each sub-directory holds one run's results.csv)"""
import csv,sys,os,statistics as st
root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
for run in sorted(os.listdir(root)):
    p=os.path.join(root,run,'results.csv')
    if not os.path.exists(p): continue
    rows=[x for x in csv.DictReader(open(p)) if x['round']!='0']
    out=[]
    for c in sorted(set(x['contender'] for x in rows)):
        v=[float(x['throughput']) for x in rows if x['contender']==c]
        out.append('%s %.2f (%.2f-%.2f)' % (c.replace('batch-consumer ','').replace(', transport defaults, each message',''), st.median(v)/1e6, min(v)/1e6, max(v)/1e6))
    print(run, ' | '.join(out))
