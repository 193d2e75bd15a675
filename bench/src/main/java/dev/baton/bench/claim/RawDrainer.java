package dev.baton.bench.claim;

import dev.baton.bench.Measurement;
import dev.baton.bench.Probe;
import dev.baton.bench.Target;
import dev.baton.bench.workload.Drainer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The same work written by hand with the best SQL we know: each of T threads
 * holds one connection (READ COMMITTED), claims a batch with a fresh token and a database-clock lease in one atomic
 * step (PostgreSQL: {@code MATERIALIZED} CTE + {@code UPDATE … RETURNING}, autocommit; MariaDB: {@code SELECT … FOR
 * UPDATE SKIP LOCKED} + {@code UPDATE} in one transaction), runs the no-op per row, then completes the batch with one
 * statement fenced by ids, token and state ({@code UPDATE … WHERE id IN (…) AND claim_token = ? AND state = 1}), as
 * Baton does.
 */
public final class RawDrainer implements Drainer {
    private final int batch;
    private final long history;
    private final boolean guid;
    private final boolean ownConnections;

    /** Threads claiming {@code batch} rows at a time, over a table with {@code history} completed rows. */
    public RawDrainer(int batch, long history) {
        this(batch, history, false);
    }

    /**
     * As above; with {@code guid}, each row's completion sets {@code third_party_guid} to {@code "g" + id}, all in the
     * batch's one statement ({@code third_party_guid = CASE id WHEN ? THEN ? … ELSE third_party_guid END}).
     */
    public RawDrainer(int batch, long history, boolean guid) {
        this(batch, history, guid, false);
    }

    /**
     * As above; with {@code ownConnections}, each thread opens its own connection from the driver
     * ({@link Target#connect()}) rather than borrowing one from the bench's pool.
     */
    public RawDrainer(int batch, long history, boolean guid, boolean ownConnections) {
        this.ownConnections = ownConnections;
        this.batch = batch;
        this.history = history;
        this.guid = guid;
    }

    @Override
    public String name() {
        return "raw";
    }

    @Override
    public String description() {
        return "hand-written JDBC, the same claim (state, lease by the database clock, token, attempts + 1, due"
                + " check, attempt limit), the batch's completions as one fenced statement (`UPDATE … WHERE id IN (…) AND claim_token"
                + " = ? AND state = 1`, as Baton's), one connection per thread (PostgreSQL: autocommit; MariaDB: manual"
                + " commit, never toggled).";
    }

    @Override
    public Measurement drain(Target target, int threads, int tasks, Probe probe) throws Exception {
        JobTable.create(target, history, tasks);
        probe.quiesce(JobTable.NAME);
        AtomicIntegerArray executions = new AtomicIntegerArray(tasks);
        boolean pg = target.kind() == Target.Kind.POSTGRES;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> futures = new ArrayList<>();
        javax.sql.DataSource counted = StatementCount.wrap(target.pool());
        probe.begin();
        long t0 = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            futures.add(pool.submit(() -> {
                try (Connection c = ownConnections ? target.connect() : counted.getConnection()) {
                    c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                    int empty = 0;
                    while (empty < 2) {
                        long token = (ThreadLocalRandom.current().nextLong() >>> 1) + 1;
                        List<Long> ids = pg ? claimPostgres(c, token) : claimMariaDb(c, token);
                        if (ids.isEmpty()) {
                            empty++;
                            continue;
                        }
                        empty = 0;
                        List<String> guids = guid ? new ArrayList<>(ids.size()) : null;
                        for (long id : ids) {
                            executions.incrementAndGet((int) (id - history - 1));
                            if (guid) {
                                guids.add("g" + id);
                            }
                        }
                        complete(c, ids, guids, token);
                    }
                }
                return null;
            }));
        }
        boolean finished = true;
        for (Future<?> f : futures) {
            try {
                f.get(10, TimeUnit.MINUTES);
            } catch (java.util.concurrent.TimeoutException e) {
                finished = false;
            }
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        probe.end();
        pool.shutdownNow();
        return DrainCheck.measure(target, history, tasks, executions, seconds, finished, guid);
    }

    private static final String DUE = "(next_attempt_at IS NULL OR next_attempt_at <= ";

    /**
     * The attempt limit a claim enforces (a crashed row is never handed out past it): Baton's default
     * {@code maxAttempts}, as the bench's queue uses it.
     */
    private static final int MAX_ATTEMPTS = 10;

    private static final String UNDER_LIMIT = " AND attempts < " + MAX_ATTEMPTS;

    private List<Long> claimPostgres(Connection c, long token) throws Exception {
        c.setAutoCommit(true);
        String sql = "WITH c AS MATERIALIZED (SELECT id FROM " + JobTable.NAME + " WHERE state = 0 AND " + DUE
                + "clock_timestamp())" + UNDER_LIMIT + " ORDER BY id LIMIT " + batch + " FOR NO KEY UPDATE SKIP LOCKED)"
                + " UPDATE " + JobTable.NAME + " t SET state = 1, lease_until = clock_timestamp() + interval '300"
                + " seconds', claim_token = ?, attempts = t.attempts + 1 FROM c WHERE t.id = c.id AND t.state = 0 AND"
                + " t.attempts < " + MAX_ATTEMPTS + " RETURNING t.id";
        List<Long> ids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, token);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
        }
        return ids;
    }

    private List<Long> claimMariaDb(Connection c, long token) throws Exception {
        c.setAutoCommit(false);
        List<Long> ids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT id FROM " + JobTable.NAME + " WHERE state = 0 AND " + DUE + "UTC_TIMESTAMP(6))" + UNDER_LIMIT
                        + " ORDER BY state, id LIMIT " + batch + " FOR UPDATE SKIP LOCKED")) {
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
        }
        if (!ids.isEmpty()) {
            String in = String.join(", ", Collections.nCopies(ids.size(), "?"));
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + JobTable.NAME + " SET state = 1, lease_until ="
                    + " TIMESTAMPADD(MICROSECOND, 300000000, UTC_TIMESTAMP(6)), claim_token = ?, attempts ="
                    + " attempts + 1 WHERE id IN (" + in + ") AND state = 0" + UNDER_LIMIT)) {
                ps.setLong(1, token);
                for (int i = 0; i < ids.size(); i++) {
                    ps.setLong(i + 2, ids.get(i));
                }
                if (ps.executeUpdate() != ids.size()) {
                    c.rollback();
                    return List.of();
                }
            }
        }
        c.commit();
        return ids;
    }

    /**
     * All the batch's completions as one statement, each row fenced by id, token and state: on PostgreSQL in autocommit
     * mode, on MariaDB in the transaction mode the claim left (then committed).
     */
    /** One claim of a batch under {@code token} on {@code c}: the ids taken. */
    List<Long> claim(Connection c, long token, boolean pg) throws Exception {
        return pg ? claimPostgres(c, token) : claimMariaDb(c, token);
    }

    /** The batch's completion: one statement fenced by ids, token and state. */
    static void complete(Connection c, List<Long> ids, List<String> guids, long token) throws Exception {
        String in = String.join(", ", Collections.nCopies(ids.size(), "?"));
        String set = guids == null
                ? ""
                : ", third_party_guid = CASE id" + " WHEN ? THEN ?".repeat(ids.size()) + " ELSE third_party_guid END";
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + JobTable.NAME + " SET state = 2, lease_until = NULL"
                + set + " WHERE id IN (" + in + ") AND claim_token = ? AND state = 1")) {
            int p = 1;
            if (guids != null) {
                for (int i = 0; i < ids.size(); i++) {
                    ps.setLong(p++, ids.get(i));
                    ps.setString(p++, guids.get(i));
                }
            }
            for (int i = 0; i < ids.size(); i++) {
                ps.setLong(p++, ids.get(i));
            }
            ps.setLong(p, token);
            if (ps.executeUpdate() != ids.size()) {
                throw new IllegalStateException("a fenced completion matched fewer rows than claimed");
            }
        }
        if (!c.getAutoCommit()) {
            c.commit();
        }
    }

    @Override
    public void cleanup(Target target) throws Exception {
        JobTable.drop(target);
    }
}
