package dev.baton.mysql;

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
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.sql.SQLTransientException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * MySQL's and MariaDB's errors, by vendor code: Connector/J reports the lock-wait timeout 1205 with SQLState 40001
 * although InnoDB rolled back only the statement, so Baton always rolls back explicitly before a retry. Also the claim
 * plan (EXPLAIN) and the server settings that decide whether values are stored exactly.
 */
final class MySqlDiagnostics implements Diagnostics {
    private static final Pattern DUPLICATE_KEY = Pattern.compile("for key '([^']+)'");
    /** {@code Unknown column 'x' in 'field list'}, {@code Unknown column 't.x' in 'where clause'}. */
    private static final Pattern UNKNOWN_COLUMN = Pattern.compile("Unknown column '([^']+)'");
    /** Error 1290: {@code The MariaDB server is running with the --read-only option so it cannot execute …}. */
    private static final Pattern OPTION = Pattern.compile("running with the --([a-z_-]+) option");
    /** Connector/J and MariaDB Connector/J may send a binary value escaped, up to twice its size, plus the SQL. */
    private static final long PACKET_OVERHEAD = 64 * 1024;

    /** Binary logging and its format for this session. */
    static final String BINLOG_SQL = "SELECT @@GLOBAL.log_bin, @@SESSION.binlog_format";

    /**
     * With binary logging on and {@code binlog_format=STATEMENT}, InnoDB refuses writes in the READ COMMITTED
     * transactions claims run in (error 1665), so every claim would fail. On a Galera node, a session whose {@code
     * wsrep_sync_wait} lacks the read bit may read state older than a write another node committed ({@link
     * GaleraDurability#sessionProblems}).
     */
    @Override
    public List<String> sessionProblems(Connection connection) throws SQLException {
        List<String> problems = new ArrayList<>();
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery(BINLOG_SQL)) {
            if (rs.next()) {
                problems.addAll(binlogProblems(rs.getBoolean(1), rs.getString(2)));
            }
        }
        problems.addAll(GaleraDurability.sessionProblems(connection));
        return problems;
    }

    /** The server's version string: TiDB, Vitess and PlanetScale answer the MySQL protocol and name themselves here. */
    static final String VERSION_SQL = "SELECT VERSION()";

    @Override
    public Optional<String> engineProblem(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery(VERSION_SQL)) {
            return rs.next() ? engineOf(rs.getString(1)) : Optional.empty();
        }
    }

    /** The problem of an engine whose {@code VERSION()} is {@code version}, if it is not MySQL or MariaDB. */
    static Optional<String> engineOf(String version) {
        String v = version == null ? "" : version.toLowerCase(Locale.ROOT);
        if (v.contains("tidb")) {
            return Optional.of("the server is TiDB (" + version + "), which runs SELECT … FOR UPDATE SKIP LOCKED as a"
                    + " read that locks nothing: two workers can claim one row. Baton does not start on it");
        }
        if (v.contains("vitess") || v.contains("planetscale")) {
            return Optional.of("the server is Vitess or PlanetScale (" + version + "), whose row locks and SKIP LOCKED"
                    + " do not hold as MySQL's do across its shards, and whose named locks (GET_LOCK) are not"
                    + " MySQL's: Baton's claims are not proven there and it does not start on it");
        }
        return Optional.empty();
    }

    /** The problems of a session with binary logging {@code logBin} in {@code format}. */
    static List<String> binlogProblems(boolean logBin, String format) {
        if (logBin && "STATEMENT".equalsIgnoreCase(format)) {
            return List.of("binlog_format is STATEMENT with binary logging on, so InnoDB refuses the READ COMMITTED"
                    + " transactions claims run in (error 1665); set binlog_format=ROW (the default since MySQL"
                    + " 5.7.7 and MariaDB 10.2.4) or MIXED");
        }
        return List.of();
    }

    @Override
    public SqlError classify(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (!(t instanceof SQLException s)) {
                if (t instanceof IOException) {
                    return SqlError.CONNECTION_LOST;
                }
                continue;
            }
            switch (s.getErrorCode()) {
                case 1062, 1586 -> {
                    Matcher m = DUPLICATE_KEY.matcher(String.valueOf(s.getMessage()));
                    String key = m.find() ? m.group(1) : null;
                    // MySQL 8 names the key as table.key, MariaDB as key
                    return SqlError.uniqueViolation(key == null ? null : key.substring(key.lastIndexOf('.') + 1));
                }
                case 1054 -> {
                    Matcher m = UNKNOWN_COLUMN.matcher(String.valueOf(s.getMessage()));
                    String column = m.find() ? m.group(1) : null;
                    return SqlError.undefinedColumn(
                            column == null ? null : column.substring(column.lastIndexOf('.') + 1));
                }
                // deadlock; on Galera also a writeset that failed certification against another node's commit
                // (at COMMIT) or a transaction a replicated writeset aborted (brute-force abort): same code, same text
                case 1213 -> {
                    return SqlError.CONFLICT;
                }
                // lock wait timeout, MariaDB snapshot-isolation conflict, NOWAIT lock failure, query interrupted
                // (KILL QUERY)
                case 1205, 1020, 3572, 1317 -> {
                    return SqlError.TRANSIENT;
                }
                // "running with the --read-only (or --super-read-only) option": a replica, or a primary fenced
                // by a failover; 1290 also names other options (--skip-grant-tables, --secure-file-priv), which are
                // not a failover
                case 1290 -> {
                    Matcher m = OPTION.matcher(String.valueOf(s.getMessage()));
                    return !m.find() || m.group(1).contains("read") ? SqlError.READ_ONLY : SqlError.OTHER;
                }
                // "Running in read-only mode" (InnoDB read-only)
                case 1836 -> {
                    return SqlError.READ_ONLY;
                }
                // MariaDB max_statement_time, MySQL max_execution_time: a timeout, never the statement's values
                case 1969, 3024 -> {
                    return SqlError.TRANSIENT;
                }
                // the statement's values: null into NOT NULL, no default, wrong or truncated value, out of range, too
                // long, foreign key, check constraint (MySQL 3819, MariaDB 4025), BIGINT out of range, invalid JSON
                case 1048, 1364, 1366, 1265, 1264, 1406, 1292, 1452, 1451, 1216, 1217, 3819, 4025, 1690, 3140 -> {
                    return SqlError.VALUE_REFUSED;
                }
                // server gone, lost connection, connection killed, server shutdown
                case 2006, 2013, 1927, 1053, 4031 -> {
                    return SqlError.CONNECTION_LOST;
                }
                default -> {}
            }
            if (s instanceof SQLTransientConnectionException
                    || s instanceof SQLNonTransientConnectionException
                    || s instanceof SQLRecoverableException
                    || (s.getSQLState() != null && s.getSQLState().startsWith("08"))) {
                return SqlError.CONNECTION_LOST;
            }
            if (s instanceof SQLTransientException) {
                return SqlError.TRANSIENT;
            }
            String state = s.getSQLState();
            if (state != null && (state.startsWith("22") || state.startsWith("23"))) {
                return SqlError.VALUE_REFUSED; // data exception or integrity constraint, by its SQLState class
            }
        }
        return SqlError.OTHER;
    }

    /**
     * The server's {@code read_only} (which also covers MySQL's {@code super_read_only}, as setting it sets
     * {@code read_only}): a replica or a primary fenced by a failover. A user with {@code READ_ONLY ADMIN} (MariaDB)
     * or {@code CONNECTION_ADMIN} (MySQL) may still write there, but Baton asks only after a failover error, and a
     * failover that leaves the old primary writable to some users would be one to fix, not to write through.
     */
    @Override
    public boolean refusesWrites(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@GLOBAL.read_only")) {
            return rs.next() && rs.getBoolean(1);
        }
    }

    /** The writer's epoch on MySQL: a read-only server has none; else its {@code server_id}. */
    static final String EPOCH_SQL = "SELECT @@GLOBAL.read_only, @@GLOBAL.server_id";
    /** On MariaDB also whether Galera replication is on, whose epoch is the cluster's state UUID instead. */
    static final String MARIADB_EPOCH_SQL = "SELECT @@GLOBAL.read_only, @@GLOBAL.server_id, @@GLOBAL.wsrep_on";
    /** Error 1193, unknown system variable: a MariaDB built without Galera has no {@code wsrep_on}. */
    private static final int UNKNOWN_SYSTEM_VARIABLE = 1193;

    /**
     * The writer's {@code server_id}, or, on a MariaDB Galera node ({@code wsrep_on}), the cluster's state UUID
     * ({@link #galeraEpoch}); empty on a read-only server (a replica has no writer epoch: a claim there fails anyway).
     *
     * <p>A failover of a primary and replicas makes another server the writer, and replication requires each server
     * to have its own {@code server_id} (a replica ignores events of its own id), so the id changes with every
     * promotion. One round trip per claim batch of a queue with a non-idempotent sink; any user may read it. What it
     * does not see: a failback to the first writer (ids 1, 2, 1) between two claims of this process looks like no
     * change; a failover manager that moves the writer back while a worker claims nothing is rare, and a worker
     * claims every poll interval.
     */
    @Override
    public Optional<String> epoch(Connection connection) throws SQLException {
        boolean mariaDb = isMariaDb(connection);
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery(mariaDb ? MARIADB_EPOCH_SQL : EPOCH_SQL)) {
            if (!rs.next() || rs.getBoolean(1)) {
                return Optional.empty();
            }
            if (mariaDb && rs.getBoolean(3)) {
                return galeraEpoch(connection);
            }
            return Optional.of("server_id " + rs.getLong(2));
        } catch (SQLException e) {
            if (mariaDb && e.getErrorCode() == UNKNOWN_SYSTEM_VARIABLE) {
                return serverIdEpoch(connection);
            }
            throw e;
        }
    }

    /**
     * {@link #MARIADB_EPOCH_SQL} and whether MariaDB's semi-synchronous replication is ON now: the status is read from
     * {@code information_schema.GLOBAL_STATUS} only when the primary has it enabled.
     */
    static final String MARIADB_WRITER_SQL = "SELECT @@GLOBAL.read_only, @@GLOBAL.server_id, @@GLOBAL.wsrep_on,"
            + " IF(@@GLOBAL.rpl_semi_sync_master_enabled, (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS"
            + " WHERE VARIABLE_NAME = 'RPL_SEMI_SYNC_MASTER_STATUS'), 'OFF')";

    /**
     * The {@linkplain #epoch epoch}, and whether a commit made now is held by another server a failover would promote,
     * in the same round trip: on MariaDB, {@code Rpl_semi_sync_master_status} ON (a commit returns once a
     * semi-synchronous replica has acknowledged it, see {@link #standbysFlushedTo}; a commit that waits out {@code
     * rpl_semi_sync_master_timeout} switches it OFF, which the next reading sees); on a Galera node, Synced in a
     * Primary component of two or more ({@link GaleraDurability}). MySQL's replication is never reported synchronous.
     */
    @Override
    public Optional<WriterEpoch> writer(Connection connection) throws SQLException {
        if (!isMariaDb(connection)) {
            return epoch(connection).map(e -> new WriterEpoch(e, false));
        }
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery(MARIADB_WRITER_SQL)) {
            if (!rs.next() || rs.getBoolean(1)) {
                return Optional.empty();
            }
            if (rs.getBoolean(3)) {
                GaleraDurability.Status status = GaleraDurability.status(connection);
                return status.galera()
                        ? Optional.of(
                                new WriterEpoch("galera " + status.clusterStateUuid(), status.otherNodesHolding() > 0))
                        : Optional.empty();
            }
            return Optional.of(new WriterEpoch("server_id " + rs.getLong(2), "ON".equalsIgnoreCase(rs.getString(4))));
        } catch (SQLException e) {
            if (e.getErrorCode() == UNKNOWN_SYSTEM_VARIABLE) {
                // built without Galera or without semi-synchronous replication: neither can make a commit durable
                return epoch(connection).map(epoch -> new WriterEpoch(epoch, false));
            }
            throw e;
        }
    }

    private static Optional<String> serverIdEpoch(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery(EPOCH_SQL)) {
            return !rs.next() || rs.getBoolean(1) ? Optional.empty() : Optional.of("server_id " + rs.getLong(2));
        }
    }

    /**
     * A Galera node's epoch: {@code wsrep_cluster_state_uuid}, which stays the same while nodes leave and join (a
     * commit is replicated to every node of the primary component before it returns, so moving the writer to another
     * node loses nothing, and a node switch is not reported as a failover, as distinct {@code server_id}s would be).
     * It changes when a new cluster history starts; a cluster bootstrapped again from a node's saved state keeps it,
     * even from a node that was behind, and that case is not seen. Empty when the node has no UUID (not in a
     * primary component).
     */
    static Optional<String> galeraEpoch(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE 'wsrep_cluster_state_uuid'")) {
            String uuid = rs.next() ? rs.getString(2) : null;
            return uuid == null || uuid.isBlank() ? Optional.empty() : Optional.of("galera " + uuid);
        }
    }

    private static boolean isMariaDb(Connection connection) throws SQLException {
        java.sql.DatabaseMetaData meta = connection.getMetaData(); // the driver's, no round trip
        return String.valueOf(meta.getDatabaseProductName()).contains("MariaDB")
                || String.valueOf(meta.getDatabaseProductVersion()).contains("MariaDB");
    }

    /**
     * On a Galera node, the cluster's state UUID ({@link GaleraDurability}). Else, on MariaDB, the GTID of this
     * session's last commit ({@code @@SESSION.last_gtid}), for {@link #standbysFlushedTo}; empty without a binary log
     * (nothing replicates) and on MySQL, whose replication progress Baton does not read.
     */
    @Override
    public Optional<String> commitPosition(Connection connection) throws SQLException {
        if (!isMariaDb(connection)) {
            return Optional.empty();
        }
        Optional<String> galera = GaleraDurability.commitPosition(connection);
        if (galera.isPresent()) {
            return galera;
        }
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@SESSION.last_gtid")) {
            String gtid = rs.next() ? rs.getString(1) : null;
            return gtid == null || gtid.isBlank() ? Optional.empty() : Optional.of(gtid);
        }
    }

    /**
     * MariaDB's built-in semi-synchronous replication: 1 when the primary's {@code Rpl_semi_sync_master_status} is
     * ON, asked after the commit of {@code position} returned, else 0. MariaDB reports no per-replica position, so the
     * argument is about the switch, not the position:
     *
     * <ul>
     *   <li>While the status is ON, a commit returns only once a semi-synchronous replica has acknowledged receiving
     *       its events ({@code rpl_semi_sync_master_wait_point=AFTER_SYNC}: the primary waits after writing its binary
     *       log and before committing in the engine, so no other session sees the row first either).
     *   <li>A commit that waits {@code rpl_semi_sync_master_timeout} without an answer returns anyway, and the primary
     *       switches the status OFF (asynchronous replication). It switches it back ON only once a replica
     *       acknowledges a position at or past the largest the primary had written to its binary log, which the
     *       primary keeps counting while switched off: at or past this commit.
     * </ul>
     *
     * <p>So ON, read after this commit returned, means a replica received it (written to its relay log, which a
     * promotion applies before the replica takes writes): it survives the loss of the primary. It may still be lost
     * with the replica's machine (the relay log is synced every {@code sync_relay_log} events), and a commit whose
     * waiting session was killed ({@code KILL QUERY}) returns unacknowledged while the status stays ON. An
     * asynchronous replica never counts: its progress is not reported to the primary. Any user may ask.
     */
    @Override
    public int standbysFlushedTo(Connection connection, String position) throws SQLException {
        if (GaleraDurability.isPosition(position)) {
            return GaleraDurability.nodesHolding(connection, position);
        }
        return isMariaDb(connection) && semiSync(connection)[0] == 1 ? 1 : 0;
    }

    /**
     * On a Galera node, the other members that hold its commits ({@link GaleraDurability}). Else, on MariaDB, the
     * semi-synchronous replicas connected ({@code Rpl_semi_sync_master_clients}) while the status is ON, else 0
     * (asynchronous replicas cannot be promoted without loss as far as the primary knows); empty on MySQL.
     */
    @Override
    public java.util.OptionalInt failoverStandbys(Connection connection) throws SQLException {
        if (!isMariaDb(connection)) {
            return java.util.OptionalInt.empty();
        }
        java.util.OptionalInt galera = GaleraDurability.failoverNodes(connection);
        if (galera.isPresent()) {
            return galera;
        }
        int[] semiSync = semiSync(connection);
        return java.util.OptionalInt.of(semiSync[0] == 1 ? semiSync[1] : 0);
    }

    /** {@code Rpl_semi_sync_master_status} (1 when ON) and {@code Rpl_semi_sync_master_clients}. */
    private static int[] semiSync(Connection connection) throws SQLException {
        int[] out = new int[2];
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS WHERE Variable_name IN"
                        + " ('Rpl_semi_sync_master_status', 'Rpl_semi_sync_master_clients')")) {
            while (rs.next()) {
                String name = rs.getString(1);
                String value = String.valueOf(rs.getString(2));
                if (name.equalsIgnoreCase("Rpl_semi_sync_master_status")) {
                    out[0] = value.equalsIgnoreCase("ON") ? 1 : 0;
                } else {
                    out[1] = Integer.parseInt(value.trim());
                }
            }
        }
        return out;
    }

    /**
     * EXPLAINs the claim's locking read: a full scan ({@code type = ALL}) or {@code Using filesort} means InnoDB would
     * lock every candidate row, so a second worker gets nothing (OneUptime #3117).
     */
    @Override
    public Optional<String> claimPlanProblem(Connection c, BatchUpdateSpec spec, Object[] args) throws SQLException {
        String sql = "EXPLAIN " + MySqlBatchUpdate.lockingPick(spec);
        List<String> problems = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            Rows.bind(ps, 1, SqlFragment.resolve(spec.pickWhere().binds(), args));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String type = rs.getString("type");
                    String key = rs.getString("key");
                    String extra = String.valueOf(rs.getString("Extra"));
                    // ALL: full table scan; index: full scan of an index (e.g. the primary key in id order)
                    if ("ALL".equalsIgnoreCase(type) || "index".equalsIgnoreCase(type) || key == null) {
                        problems.add("full scan (type " + type + ", key " + key + ")");
                    }
                    if (extra.contains("filesort")) {
                        problems.add("Using filesort (" + extra + ")");
                    }
                }
            }
        }
        return problems.isEmpty()
                ? Optional.empty()
                : Optional.of("the claim is not served by an index: " + String.join("; ", problems));
    }

    /**
     * Strict mode, and a max_allowed_packet large enough for the largest value: without STRICT_TRANS_TABLES or
     * STRICT_ALL_TABLES, MySQL truncates an over-long value with a warning; a statement larger than
     * max_allowed_packet fails with 1153 and the connection is dropped.
     */
    @Override
    public List<String> storageProblems(DataSource dataSource, long largestValueBytes) throws SQLException {
        List<String> problems = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@SESSION.sql_mode, @@SESSION.max_allowed_packet")) {
            rs.next();
            String mode = String.valueOf(rs.getString(1));
            long packet = rs.getLong(2);
            String upper = mode.toUpperCase(Locale.ROOT);
            if (!upper.contains("STRICT_TRANS_TABLES") && !upper.contains("STRICT_ALL_TABLES")) {
                problems.add("sql_mode is '" + mode + "', without STRICT_TRANS_TABLES or STRICT_ALL_TABLES, so the"
                        + " server would silently truncate a value that does not fit; add STRICT_TRANS_TABLES to"
                        + " sql_mode (the server default since MySQL 5.7 and MariaDB 10.2.4)");
            }
            long needed = 2 * largestValueBytes + PACKET_OVERHEAD;
            if (packet < needed) {
                problems.add("max_allowed_packet is " + packet + " bytes; values of up to " + largestValueBytes
                        + " bytes need at least " + needed + " (twice the value, as drivers may escape it, plus 64"
                        + " KiB); raise max_allowed_packet or lower maxResponseBytes");
            }
        }
        return problems;
    }
}
