package dev.baton.bench.outbox;

import dev.baton.bench.Target;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The same outbox written by hand with plain JDBC, the best way we know, with the semantics of Baton's default outbox:
 * the producer's INSERT sets the same columns to the same values; each of D dispatcher threads holds one connection
 * (READ COMMITTED) and claims with the same guard (PENDING, due), the same per-key ordering guard (no earlier message
 * of the key PENDING or PROCESSING), the same order, a 1-minute lease by the database clock, a fresh token and attempts
 * + 1 (PostgreSQL: Baton's single statement; MariaDB: a locking read that also fetches the message columns, then the
 * UPDATE, in one transaction), hands each message to the same sink, then marks the batch delivered with one statement
 * fenced by ids, token and state, as Baton does. {@link #claimSql} is checked against Baton's claim at start-up.
 */
final class RawOutbox implements OutboxVariant {
    /** Baton's default outbox lease. */
    static final long LEASE_MILLIS = 60_000;

    static final String T = OutboxTable.NAME;
    /** The message columns a claim returns, in Baton's order. */
    static final String COLUMNS = "id, attempts, topic, msg_key, dedup_key, headers, payload";

    private final Target target;
    private final Ledger ledger;
    private final boolean pg;
    private final String insertSql;
    private volatile boolean stop;
    private ExecutorService pool;
    private final List<Future<?>> dispatchers = new ArrayList<>();

    RawOutbox(Target target, Ledger ledger) {
        this.target = target;
        this.ledger = ledger;
        this.pg = target.kind() == Target.Kind.POSTGRES;
        this.insertSql = insertSql(pg);
    }

    /** The producer's statement: Baton's columns and values (status PENDING = 0, attempts 0, the database clock). */
    static String insertSql(boolean pg) {
        return "INSERT INTO " + T + " (topic, msg_key, payload, headers, dedup_key, status, attempts, created_at)"
                + " VALUES (?, ?, ?, ?, ?, ?, 0, " + now(pg) + ")";
    }

    private static String now(boolean pg) {
        return pg ? "clock_timestamp()" : "CURRENT_TIMESTAMP(6)";
    }

    /** Claimable: PENDING and due. */
    private static String guard(boolean pg) {
        return "status = 0 AND (next_attempt_at IS NULL OR next_attempt_at <= " + now(pg) + ")";
    }

    /**
     * Claimable, and no earlier message of the same key PENDING, PROCESSING or DEAD (per-key order; a dead message
     * holds its key until requeued). On MariaDB one probe per status: a correlated probe with a status list seeks the
     * key index by the key alone and reads the delivered history too.
     */
    private static String pickWhere(boolean pg) {
        if (pg) {
            return guard(true) + " AND " + prior("status IN (0, 1, 3)");
        }
        return guard(false) + " AND " + prior("status = 0") + " AND " + prior("status = 1") + " AND "
                + prior("status = 3");
    }

    private static String prior(String states) {
        return "NOT EXISTS (SELECT 1 FROM " + T + " baton_prior WHERE baton_prior.msg_key = " + T + ".msg_key AND"
                + " baton_prior.id < " + T + ".id AND baton_prior." + states + ")";
    }

    private static String pgClaim(int batch) {
        return "WITH baton_claim AS MATERIALIZED (SELECT id AS baton_claimed_id FROM " + T + " WHERE " + pickWhere(true)
                + " ORDER BY status, id LIMIT " + batch + " FOR NO KEY UPDATE SKIP LOCKED) UPDATE " + T
                + " AS baton_target SET status = ?, lease_until = (clock_timestamp() + interval '" + LEASE_MILLIS
                + " milliseconds'), claim_token = ?, attempts = attempts + 1 FROM baton_claim WHERE baton_target.id ="
                + " baton_claim.baton_claimed_id AND " + guard(true) + " RETURNING baton_target."
                + COLUMNS.replace(", ", ", baton_target.");
    }

    private static String mariaDbPick(int batch) {
        return "SELECT " + COLUMNS.replace("attempts", "attempts + 1") + " FROM " + T + " WHERE " + pickWhere(false)
                + " ORDER BY status, id LIMIT " + batch
                + " FOR UPDATE SKIP LOCKED";
    }

    private static String mariaDbUpdate(String in) {
        return "UPDATE " + T + " SET status = ?, lease_until = TIMESTAMPADD(MICROSECOND, " + LEASE_MILLIS * 1000
                + ", CURRENT_TIMESTAMP(6)), claim_token = ?, attempts = attempts + 1 WHERE id IN (" + in + ") AND "
                + guard(false);
    }

    /**
     * The hand-written claim, statement by statement, as Baton's {@code ClaimQueue.claimSql} prints its own, to compare
     * (identifiers unquoted). On MariaDB the hand-written locking read fetches the message columns itself, so it has
     * no third statement.
     */
    static List<String> claimSql(boolean pg, int batch) {
        return pg ? List.of(pgClaim(batch)) : List.of(mariaDbPick(batch), mariaDbUpdate("…"));
    }

    /**
     * Null if the hand-written claim does what Baton's claim ({@code batonSql}, quotes removed) does, else what
     * differs. On MariaDB, Baton's three statements are matched by the two hand-written ones: the same locking read
     * (selecting the id only), the same UPDATE, and a third read of exactly the columns the hand-written locking read
     * fetches.
     */
    static String mismatch(boolean pg, int batch, List<String> batonSql) {
        List<String> baton = new ArrayList<>();
        for (String s : batonSql) {
            baton.add(s.replace("\"", "").replace("`", ""));
        }
        List<String> raw = claimSql(pg, batch);
        return baton.equals(raw) ? null : "Baton: " + baton + "\n  hand-written: " + raw;
    }

    @Override
    public long enqueue(Connection c, int i) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(insertSql, new String[] {"id"})) {
            ps.setString(1, Ledger.TOPIC);
            ps.setString(2, Ledger.key(i));
            ps.setBytes(3, Ledger.payload(i));
            ps.setString(4, null);
            ps.setString(5, null);
            ps.setInt(6, 0);
            if (ps.executeUpdate() != 1) {
                throw new IllegalStateException("the insert stored nothing");
            }
            try (ResultSet keys = ps.getGeneratedKeys()) {
                if (!keys.next()) {
                    throw new IllegalStateException("the driver returned no generated id");
                }
                return keys.getLong(1);
            }
        }
    }

    @Override
    public void startDispatchers(int threads, int batch) {
        pool = Executors.newFixedThreadPool(threads);
        for (int t = 0; t < threads; t++) {
            dispatchers.add(pool.submit(() -> {
                dispatch(batch);
                return null;
            }));
        }
    }

    @Override
    public void stopDispatchers() throws Exception {
        stop = true;
        for (Future<?> f : dispatchers) {
            try {
                f.get(1, TimeUnit.MINUTES);
            } catch (java.util.concurrent.ExecutionException e) {
                ledger.error(); // a dispatcher that failed while the run went on was reported by problem()
            }
        }
        pool.shutdown();
    }

    @Override
    public String problem() {
        for (Future<?> f : dispatchers) {
            if (f.isDone()) {
                try {
                    f.get();
                    return "a dispatcher stopped";
                } catch (Exception e) {
                    return "a dispatcher failed: " + e.getMessage();
                }
            }
        }
        return null;
    }

    /** A claimed message. */
    private record Claimed(
            long id, int attempt, String topic, String key, String dedupKey, String headers, byte[] payload) {}

    /** One dispatcher on its own connection (READ COMMITTED, the pool's driver defaults like Baton's). */
    private void dispatch(int batch) throws Exception {
        String claimSql = pg ? pgClaim(batch) : mariaDbPick(batch);
        String[] updateByCount = new String[batch + 1];
        try (Connection c = target.pool().getConnection()) {
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            try {
                loop(c, claimSql, updateByCount);
            } finally {
                c.setAutoCommit(true); // the connection goes back to the shared pool
            }
        }
    }

    /** Claim, deliver, commit the completions; after an empty claim wait 5 ms doubling to 20 ms. */
    private void loop(Connection c, String claimSql, String[] updateByCount) throws Exception {
        c.setAutoCommit(pg);
        long idle = BatonOutbox.POLL.toMillis();
        while (!stop) {
            long token = (ThreadLocalRandom.current().nextLong() >>> 1) + 1;
            List<Claimed> rows;
            try {
                rows = pg ? claimPostgres(c, claimSql, token) : claimMariaDb(c, claimSql, updateByCount, token);
                if (!rows.isEmpty()) {
                    for (Claimed m : rows) {
                        ledger.deliver(m.id(), m.topic(), m.payload());
                    }
                    complete(c, rows, token);
                }
            } catch (SQLException e) {
                rollbackQuietly(c);
                ledger.error();
                rows = List.of();
            }
            if (rows.isEmpty()) {
                Thread.sleep(idle);
                idle = Math.min(idle * 2, BatonOutbox.MAX_IDLE.toMillis());
                continue;
            }
            idle = BatonOutbox.POLL.toMillis();
            for (int i = 0; i < rows.size(); i++) {
                ledger.committed.countDown();
            }
        }
    }

    private static List<Claimed> claimPostgres(Connection c, String sql, long token) throws SQLException {
        c.setAutoCommit(true); // one statement, atomic on its own (pgjdbc sends nothing for this)
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setInt(1, 1);
            ps.setLong(2, token);
            try (ResultSet rs = ps.executeQuery()) {
                return read(rs, 0);
            }
        }
    }

    private static List<Claimed> claimMariaDb(Connection c, String pick, String[] updateByCount, long token)
            throws SQLException {
        List<Claimed> rows;
        try (PreparedStatement ps = c.prepareStatement(pick)) {
            try (ResultSet rs = ps.executeQuery()) {
                rows = read(rs, 1); // the UPDATE below adds the attempt
            }
        }
        if (!rows.isEmpty()) {
            int n = rows.size();
            if (updateByCount[n] == null) {
                updateByCount[n] = mariaDbUpdate(String.join(", ", Collections.nCopies(n, "?")));
            }
            try (PreparedStatement ps = c.prepareStatement(updateByCount[n])) {
                ps.setInt(1, 1);
                ps.setLong(2, token);
                for (int i = 0; i < n; i++) {
                    ps.setLong(i + 3, rows.get(i).id());
                }
                if (ps.executeUpdate() != n) {
                    c.rollback(); // cannot happen while the rows are locked and the guard is repeated
                    return List.of();
                }
            }
        }
        c.commit();
        return rows;
    }

    private static List<Claimed> read(ResultSet rs, int plus) throws SQLException {
        List<Claimed> rows = new ArrayList<>();
        while (rs.next()) {
            rows.add(new Claimed(
                    rs.getLong(1),
                    rs.getInt(2) + plus,
                    rs.getString(3),
                    rs.getString(4),
                    rs.getString(5),
                    rs.getString(6),
                    rs.getBytes(7)));
        }
        return rows;
    }

    /**
     * Marks the batch DELIVERED with one statement fenced by ids, token and PROCESSING, as Baton does: autocommit on
     * PostgreSQL, committed in the connection's manual-commit mode on MariaDB.
     */
    private void complete(Connection c, List<Claimed> rows, long token) throws SQLException {
        if (rows.size() == 1) {
            String sql = "UPDATE " + T + " SET status = ?, lease_until = NULL WHERE id = ? AND claim_token = ? AND"
                    + " status = 1";
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                bind(ps, rows.get(0).id(), token);
                if (ps.executeUpdate() != 1) {
                    throw new IllegalStateException("a fenced completion matched nothing");
                }
            }
        } else {
            String in = String.join(", ", java.util.Collections.nCopies(rows.size(), "?"));
            String sql = "UPDATE " + T + " SET status = ?, lease_until = NULL WHERE id IN (" + in
                    + ") AND claim_token = ? AND status = 1";
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setInt(1, 2);
                for (int i = 0; i < rows.size(); i++) {
                    ps.setLong(i + 2, rows.get(i).id());
                }
                ps.setLong(rows.size() + 2, token);
                if (ps.executeUpdate() != rows.size()) {
                    throw new IllegalStateException("a fenced completion matched fewer rows than claimed");
                }
            }
        }
        if (!c.getAutoCommit()) {
            c.commit();
        }
    }

    private static void bind(PreparedStatement ps, long id, long token) throws SQLException {
        ps.setInt(1, 2);
        ps.setLong(2, id);
        ps.setLong(3, token);
    }

    private static void rollbackQuietly(Connection c) {
        try {
            if (!c.getAutoCommit()) {
                c.rollback();
            }
        } catch (SQLException ignored) {
            // the connection is broken; the next statement reports it
        }
    }
}
