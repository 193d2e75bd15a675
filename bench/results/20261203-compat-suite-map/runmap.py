import sys, collections
# usage: runmap.py suite-runs.tsv
labels={'postgres-local':'POSTGRES_LOCAL','postgres-embedded':'POSTGRES_EMBEDDED','postgres-pgbouncer':'POSTGRES_PGBOUNCER',
 'postgres-streaming-sync':'POSTGRES_STREAMING_SYNC','postgres-streaming-async':'POSTGRES_STREAMING_ASYNC',
 'mariadb-local':'MARIADB_LOCAL','mariadb-embedded':'MARIADB_EMBEDDED','mariadb-local-connectorj':'MARIADB_LOCAL_CONNECTORJ',
 'mariadb-embedded-connectorj':'MARIADB_EMBEDDED_CONNECTORJ','mysql8':'MYSQL8','mariadb-galera':'MARIADB_GALERA',
 'mariadb-galera-spread':'MARIADB_GALERA_SPREAD','sqlserver':'SQLSERVER'}
c=collections.defaultdict(collections.Counter)
other=[]
for line in open(sys.argv[1]):
    f=line.rstrip('\n').split('\t')
    status,path=f[0],f[1]
    parts=path.split(' > ')
    if len(parts)<3: other.append(line); continue
    if parts[1] in labels: server,suite=labels[parts[1]],parts[2]
    else: suite,server=parts[1],labels.get(parts[2],parts[2])
    c[(suite,server)][status]+=1
tot=collections.Counter()
for k in sorted(c):
    print(k[0],k[1],dict(c[k]),sep='\t'); tot.update(c[k])
print('pairs',len(c),'total',dict(tot))
for o in other: print('OTHER',o.strip()[:200])
