package dev.baton.postgres;

import dev.baton.spi.BatchUpdateSpec;
import dev.baton.spi.Diagnostics;
import dev.baton.spi.Rows;
import dev.baton.spi.SqlError;
import dev.baton.spi.SqlFragment;
import dev.baton.spi.WriterEpoch;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** PostgreSQL's errors by SQLState (pgjdbc chains causes), and its claim plans by EXPLAIN. */
final class PostgresDiagnostics implements Diagnostics {
    /**
     * The writer's timeline, or NULL on a server in recovery ({@link #epoch}), and whether this session's commits wait
     * for a synchronous standby ({@link #writer}).
     */
    static final String EPOCH_SQL = "SELECT CASE WHEN pg_is_in_recovery() THEN NULL ELSE ('x' ||"
            + " substr(pg_walfile_name(pg_current_wal_insert_lsn()), 1, 8))::bit(32)::int END,"
            + " current_setting('synchronous_commit') IN ('on', 'remote_write', 'remote_apply')"
            + " AND current_setting('synchronous_standby_names') <> ''";

    /**
     * The timeline of the writer's current WAL position is at least the bound one ({@link #epochAtLeast}); evaluated
     * once per statement (an init plan). On a server in recovery the WAL function fails with 55000, as a write would.
     */
    /** How an epoch names its timeline: {@code timeline 2}. */
    private static final String TIMELINE = "timeline ";

    static final String EPOCH_AT_LEAST =
            "(SELECT ('x' || substr(pg_walfile_name(pg_current_wal_insert_lsn()), 1, 8))::bit(32)::int) >= ?";

    private static final Pattern INDEX_SCAN = Pattern.compile("Index (?:Only )?Scan(?: Backward)? using (\\S+) on");
    private static final Pattern UNIQUE = Pattern.compile("unique constraint \"([^\"]+)\"");
    /** {@code column "x" of relation "t" does not exist}, {@code column "x" does not exist}, {@code column t.x …}. */
    private static final Pattern UNDEFINED_COLUMN = Pattern.compile("column \"?([^\"\\s]+)\"? ");

    @Override
    public SqlError classify(SQLException e) {
        if ("25P02".equals(e.getSQLState())) {
            // "current transaction is aborted": pgjdbc chains the earlier error (maybe a 23505) as the cause, but this
            // statement failed because the transaction is dead, not because of a duplicate
            return SqlError.OTHER;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && s.getSQLState() != null) {
                String state = s.getSQLState();
                if (state.equals("23505")) {
                    Matcher m = UNIQUE.matcher(String.valueOf(s.getMessage()));
                    return SqlError.uniqueViolation(m.find() ? m.group(1) : null);
                }
                if (state.equals("42703")) {
                    Matcher m = UNDEFINED_COLUMN.matcher(String.valueOf(s.getMessage()));
                    return SqlError.undefinedColumn(m.find() ? bare(m.group(1)) : null);
                }
                switch (state) {
                    case "40001", "40P01", "55P03" -> {
                        return SqlError.TRANSIENT;
                    }
                    // read-only transaction: a hot standby, or a primary demoted or fenced with
                    // default_transaction_read_only; the connection reaches a server that is not the writer
                    case "25006" -> {
                        return SqlError.READ_ONLY;
                    }
                    // a standby still finishing its promotion (Patroni's leader before pg_promote() returned):
                    // "cannot set transaction read-write mode during recovery" (0A000), "recovery is in progress"
                    // (55000, from the WAL functions): not the writer yet, as a read-only server is
                    case "0A000", "55000" -> {
                        if (String.valueOf(s.getMessage()).contains("recovery")) {
                            return SqlError.READ_ONLY;
                        }
                    }
                    // statement timeout, pg_cancel_backend, a JDBC query timeout (pgjdbc cancels): the statement did
                    // not fail for its values, so it must never count as the row's fault
                    case "57014" -> {
                        return SqlError.TRANSIENT;
                    }
                    // pgjdbc does not treat 57P01 (terminated by administrator) as a connection error (#4438)
                    case "57P01", "57P02", "57P03" -> {
                        return SqlError.CONNECTION_LOST;
                    }
                    default -> {
                        if (state.startsWith("08")) {
                            return SqlError.CONNECTION_LOST;
                        }
                        // data exceptions (22: too long, out of range, invalid text) and integrity constraints (23:
                        // not null, foreign key, check; 23505 above)
                        if (state.startsWith("22") || state.startsWith("23")) {
                            return SqlError.VALUE_REFUSED;
                        }
                    }
                }
            }
            if (t instanceof IOException) {
                return SqlError.CONNECTION_LOST;
            }
        }
        return SqlError.OTHER;
    }

    /** The server's own account of itself: CockroachDB answers the PostgreSQL protocol with its name here. */
    static final String VERSION_SQL = "SELECT version()";

    @Override
    public Optional<String> engineProblem(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery(VERSION_SQL)) {
            return rs.next() ? engineOf(rs.getString(1)) : Optional.empty();
        }
    }

    /** The problem of an engine whose {@code version()} is {@code version}, if it is not PostgreSQL. */
    static Optional<String> engineOf(String version) {
        if (version != null && version.toLowerCase(Locale.ROOT).contains("cockroachdb")) {
            return Optional.of("the server is CockroachDB (" + version + "), which speaks PostgreSQL's protocol but"
                    + " not its locking: under SERIALIZABLE a FOR UPDATE lock is best effort (it can be released"
                    + " before commit on a lease transfer or a node's loss unless"
                    + " enable_durable_locking_for_serializable is on), and SKIP LOCKED has skipped rows that were not"
                    + " locked, so two workers could claim one row. Baton's claims are not proven there and it does not"
                    + " start on it");
        }
        return Optional.empty();
    }

    /**
     * {@code transaction_read_only} is on for a new transaction on a hot standby (a demoted primary that came back as
     * one) and where {@code default_transaction_read_only} is on (how failover tools fence an old primary).
     */
    @Override
    public boolean refusesWrites(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SHOW transaction_read_only")) {
            return rs.next() && "on".equalsIgnoreCase(rs.getString(1));
        }
    }

    /**
     * Streaming standbys that replay ({@code pg_basebackup} and {@code pg_receivewal} receivers do not count); empty
     * for a database user that sees no replication progress (neither superuser nor a member of {@code
     * pg_read_all_stats}, e.g. through {@code pg_monitor}).
     */
    @Override
    public OptionalInt failoverStandbys(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)"
                        + " OR pg_has_role('pg_read_all_stats', 'MEMBER'), (SELECT count(*) FROM pg_stat_replication"
                        + " WHERE state = 'streaming' AND replay_lsn IS NOT NULL)")) {
            return rs.next() && rs.getBoolean(1) ? OptionalInt.of(rs.getInt(2)) : OptionalInt.empty();
        }
    }

    /**
     * The timeline of the WAL insert position: 1 for a new cluster, one more with each promotion (a standby's own
     * timeline until it is promoted). Read from the first 8 hex digits of {@code pg_walfile_name}, which names the
     * current insert timeline at once, unlike {@code pg_control_checkpoint()}, which follows only after the next
     * checkpoint. Empty on a server in recovery (a standby: no claim can run there). Any database user may call it.
     *
     * <p>A prepared statement, as a claim of a queue with a non-idempotent sink runs it before every claim: pgjdbc then
     * uses a server-side statement from the fifth use on a connection, which the server neither parses nor plans
     * again (the functions are volatile, so each execution still reads the current position). Measured by the bench's
     * {@code epoch-read} workload (docs/src/failover.md, "Epochs").
     */
    @Override
    public Optional<String> epoch(Connection connection) throws SQLException {
        return writer(connection).map(WriterEpoch::epoch);
    }

    @Override
    public Optional<String> epochAtLeast() {
        return Optional.of(EPOCH_AT_LEAST); // timelines only grow: each promotion starts the next one
    }

    @Override
    public OptionalLong epochOrder(String epoch) {
        if (epoch.startsWith(TIMELINE)) {
            try {
                return OptionalLong.of(Long.parseLong(epoch.substring(TIMELINE.length())));
            } catch (NumberFormatException e) {
                return OptionalLong.empty();
            }
        }
        return OptionalLong.empty();
    }

    /**
     * The {@linkplain #epoch timeline}, in the same statement as the session's {@code synchronous_commit} and the
     * server's {@code synchronous_standby_names}: with {@code on}, {@code remote_write} or {@code remote_apply} and a
     * standby named, a commit returns only once a synchronous standby has its WAL (flushed, written, or applied), and
     * a promotion of that standby keeps it. {@code local} and {@code off} never wait, nor does any setting with no
     * standby named (pg_auto_failover's {@code wait_primary}, a new primary before a standby caught up). Two settings
     * read by the same round trip: nothing is added to a claim's cost that the bench's {@code epoch-read} workload can
     * tell apart.
     */
    @Override
    public Optional<WriterEpoch> writer(Connection connection) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement(EPOCH_SQL);
                ResultSet rs = s.executeQuery()) {
            if (!rs.next()) {
                return Optional.empty();
            }
            int timeline = rs.getInt(1);
            if (rs.wasNull()) {
                return Optional.empty();
            }
            return Optional.of(new WriterEpoch(TIMELINE + timeline, rs.getBoolean(2)));
        }
    }

    /**
     * The WAL insert position: at or after the end of every commit record of this session, even under {@code
     * synchronous_commit = off} (where the write position may still be behind it).
     */
    @Override
    public Optional<String> commitPosition(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_current_wal_insert_lsn()::text")) {
            return rs.next() ? Optional.ofNullable(rs.getString(1)) : Optional.empty();
        }
    }

    /**
     * Streaming standbys whose {@code flush_lsn} has reached the position: a promotion replays everything a standby
     * flushed. A WAL receiver that replays nothing ({@code pg_basebackup -X stream} building a standby, {@code
     * pg_receivewal}) reports no {@code replay_lsn} and is no failover target yet, so it does not count. A database
     * user without superuser or {@code pg_read_all_stats} sees NULL positions, so no standby counts.
     */
    @Override
    public int standbysFlushedTo(Connection connection, String position) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT count(*) FROM pg_stat_replication"
                + " WHERE state = 'streaming' AND replay_lsn IS NOT NULL AND flush_lsn >= CAST(? AS pg_lsn)")) {
            ps.setString(1, position);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getInt(1) : 0;
            }
        }
    }

    /** {@code t.x} → {@code x}. */
    private static String bare(String column) {
        return column.substring(column.lastIndexOf('.') + 1);
    }

    /**
     * EXPLAINs the claim's SELECT with sequential scans and sorts priced out ({@code enable_seqscan = off},
     * {@code enable_sort = off}, in a rolled-back transaction): if the plan still scans the table or sorts, no index
     * serves the claim, and its cost would grow with the table.
     */
    @Override
    public Optional<String> claimPlanProblem(Connection c, BatchUpdateSpec spec, Object[] args) throws SQLException {
        String sql = "EXPLAIN " + spec.pickSql(spec.idColumn()) + " LIMIT " + spec.limit();
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        List<String> plan = new ArrayList<>();
        try {
            try (Statement s = c.createStatement()) {
                s.execute("SET LOCAL enable_seqscan = off");
                s.execute("SET LOCAL enable_sort = off");
            }
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                Rows.bind(ps, 1, SqlFragment.resolve(spec.pickWhere().binds(), args));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        plan.add(rs.getString(1));
                    }
                }
            }
        } finally {
            c.rollback();
            c.setAutoCommit(autoCommit);
        }
        String text = String.join("\n", plan);
        if (text.contains("Seq Scan") || text.contains("Sort  (") || text.contains("Sort (")) {
            return Optional.of("no index serves the claim; the plan is:\n" + text);
        }
        // The picking scan must use an index led by the state column, or a partial index on the claimable rows: an
        // index scanned in id order with the state as a filter walks every completed row first.
        String stateColumn = stateColumnOf(spec);
        Matcher scan = INDEX_SCAN.matcher(text);
        if (stateColumn != null && scan.find()) {
            String definition = indexDefinition(c, scan.group(1));
            String quoted = "\"?" + Pattern.quote(stateColumn) + "\"?";
            boolean leading = Pattern.compile("\\(\\s*" + quoted + "\\s*[,)]")
                    .matcher(definition)
                    .find();
            boolean partial =
                    Pattern.compile("WHERE.*" + quoted).matcher(definition).find();
            if (!leading && !partial && servingIndex(c, spec, stateColumn).isEmpty()) {
                return Optional.of("the claim scans index " + scan.group(1) + " (" + definition + ") filtering on "
                        + stateColumn + ", which walks every completed row; the plan is:\n" + text);
            }
        }
        return Optional.empty();
    }

    /**
     * An index of the claim's table that serves the pick without a sort: its key columns begin with the claim's order
     * (the state, the equality guards, then the queue's order), or, partial on the state column, with that order after
     * the state. The planner walks another index when today's data makes that cheap (on a table whose every row is
     * claimable the first rows of the primary key are all claimable) and takes this one once claimable rows are
     * rare, so its presence is what {@code verify()} asks for.
     */
    private static Optional<String> servingIndex(Connection c, BatchUpdateSpec spec, String stateColumn)
            throws SQLException {
        List<String> order = new ArrayList<>();
        for (String o : spec.orderBy()) {
            order.add(bareName(o.replaceAll("(?i)\\s+(ASC|DESC)$", "")));
        }
        Pattern onState = Pattern.compile("WHERE.*\"?" + Pattern.quote(stateColumn) + "\"?");
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_get_indexdef(i.indexrelid), i.indpred IS NOT NULL"
                + " FROM pg_index i WHERE i.indrelid = ?::regclass AND i.indisvalid")) {
            ps.setString(1, spec.table());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String definition = rs.getString(1);
                    boolean partial = rs.getBoolean(2);
                    if (partial && !onState.matcher(definition).find()) {
                        continue; // its predicate may leave out claimable rows
                    }
                    List<String> keys = keyColumns(definition);
                    if (startsWith(keys, order) || (partial && startsWith(keys, order.subList(1, order.size())))) {
                        return Optional.of(definition);
                    }
                }
            }
        }
        return Optional.empty();
    }

    /** The key columns of {@code CREATE INDEX … USING btree (a, "b" DESC) INCLUDE (…) WHERE …}, bare. */
    static List<String> keyColumns(String definition) {
        Matcher m = KEY_COLUMNS.matcher(definition);
        List<String> keys = new ArrayList<>();
        if (m.find()) {
            for (String k : m.group(1).split(",")) {
                keys.add(bareName(k.trim().replaceAll("(?i)\\s+(ASC|DESC|NULLS FIRST|NULLS LAST)+$", "")));
            }
        }
        return keys;
    }

    private static boolean startsWith(List<String> keys, List<String> prefix) {
        return !prefix.isEmpty()
                && keys.size() >= prefix.size()
                && keys.subList(0, prefix.size()).equals(prefix);
    }

    private static final Pattern KEY_COLUMNS = Pattern.compile("USING \\w+ \\(([^)]*)\\)");

    /** {@code "Sync_Status"} → {@code Sync_Status}; {@code sync_status} stays. */
    private static String bareName(String column) {
        String c = column.trim();
        return c.length() > 1 && c.startsWith("\"") && c.endsWith("\"") ? c.substring(1, c.length() - 1) : c;
    }

    private static String indexDefinition(Connection c, String index) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT pg_get_indexdef(i.oid) FROM pg_class i WHERE i.relkind = 'i' AND i.relname = ?")) {
            ps.setString(1, index.replace("\"", ""));
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : "";
            }
        }
    }

    /** The column of the claim's first guard ({@code "state" = ?} or {@code "state" IN (...)}), bare. */
    private static String stateColumnOf(BatchUpdateSpec spec) {
        String where = spec.where().sql();
        if (!where.startsWith("\"")) {
            return null;
        }
        int end = where.indexOf('"', 1);
        return end > 0 ? where.substring(1, end) : null;
    }
}
