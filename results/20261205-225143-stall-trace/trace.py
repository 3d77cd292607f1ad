import sys
run=None; rows=[]
for l in open(sys.argv[1]):
    if l.startswith('=='): run=int(l.split()[2]); continue
    w,wl,off,ns=l.split(); rows.append((run,int(wl),int(off),int(ns)))
import collections
byrun=collections.defaultdict(list)
for r in rows: byrun[r[0]].append(r)
thr=float(sys.argv[2]) if len(sys.argv)>2 else 100e3
for run,rs in sorted(byrun.items()):
    wl=rs[0][1]; ns=sorted(x[3] for x in rs)
    slow=[(x[2]/wl, x[3]/1e3) for x in rs if x[3]>thr]
    print('run %d win %.1f ms calls %d median %.1f max %.1f slow: %s'%(run,wl/1e6,len(rs),ns[len(ns)//2]/1e3,ns[-1]/1e3,' '.join('%.3f:%.0f'%s for s in slow)))
