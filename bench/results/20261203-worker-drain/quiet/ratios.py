import csv,statistics,collections,sys
for v in ['before','after']:
    for db in ['pg','mdb']:
        try: rows=list(csv.reader(open('%s-driver-%s.csv'%(v,db))))
        except FileNotFoundError: continue
        by=collections.defaultdict(dict)
        for r in rows: by[int(r[2])][r[1]]=(float(r[5]),float(r[9]))
        out=[]
        for var in ['worker-c8','workers8']:
            ratios=[by[k][var][0]/by[k]['raw8'][0] for k in sorted(by) if var in by[k] and 'raw8' in by[k]]
            cpu=[by[k][var][1] for k in sorted(by) if var in by[k]]
            out.append('%s %s/raw8 %s median %.3f; cpu/row %s median %.2f'%(var,'',[round(x,3) for x in ratios],statistics.median(ratios),cpu,statistics.median(cpu)))
        raw=[by[k]['raw8'][1] for k in sorted(by)]
        print(v,db); [print('  ',o) for o in out]; print('   raw8 cpu/row',raw,'rows/s',[by[k]['raw8'][0] for k in sorted(by)])
