package dev.baton.sqlserver;

import dev.baton.spi.BatchUpdateSpec;
import dev.baton.spi.DatabaseInfo;
import dev.baton.spi.Diagnostics;
import dev.baton.spi.Rows;
import dev.baton.spi.SqlError;
import dev.baton.spi.SqlFragment;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** SQL Server's errors, by vendor code. */
final class SqlServerDiagnostics implements Diagnostics {
    private static final Pattern CONSTRAINT = Pattern.compile("(?:constraint|unique index) '([^']+)'");
    /** {@code Invalid column name 'x'.} */
    private static final Pattern INVALID_COLUMN = Pattern.compile("Invalid column name '([^']+)'");

    /** The engine edition: 5 is Azure SQL Database, 8 Azure SQL Managed Instance (learn.microsoft.com, SERVERPROPERTY). */
    static final String ENGINE_EDITION_SQL = "SELECT CAST(SERVERPROPERTY('EngineEdition') AS INT)";

    /** The session's SET options as a bit mask (learn.microsoft.com, @@OPTIONS): 512 is NOCOUNT. */
    static final String SESSION_OPTIONS_SQL = "SELECT @@OPTIONS";

    static final int NOCOUNT = 512;

    /**
     * After an error in a caller's transaction: the session's XACT_ABORT bit (16384 in {@code @@OPTIONS}) and
     * {@code XACT_STATE()} (1: it goes on; 0: it has ended; -1: it is doomed and can only roll back).
     */
    static final String TRANSACTION_STATE_SQL = "SELECT CAST(@@OPTIONS & 16384 AS INT), XACT_STATE()";

    static final int XACT_ABORT = 16384;

    /**
     * Azure SQL Database and Managed Instance report major version 12 through mssql-jdbc (microsoft/mssql-jdbc#1729)
     * although they have every feature of SQL Server 2016+ that Baton uses; their engine edition says what they are.
     */
    @Override
    public boolean supportsOnAsking(DatabaseInfo info, Connection connection) throws SQLException {
        if (!isSqlServer(info) || info.major() != 12) {
            return false;
        }
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery(ENGINE_EDITION_SQL)) {
            return rs.next() && isAzure(info, rs.getInt(1));
        }
    }

    static boolean isSqlServer(DatabaseInfo info) {
        return info.productName().toLowerCase(Locale.ROOT).contains("sql server");
    }

    /** True for Azure SQL Database (edition 5) or Managed Instance (8) reporting version 12. */
    static boolean isAzure(DatabaseInfo info, int engineEdition) {
        return isSqlServer(info) && info.major() == 12 && (engineEdition == 5 || engineEdition == 8);
    }

    /**
     * Sessions must report row counts: with {@code SET NOCOUNT ON} (the server's {@code user options} or a pool's
     * init SQL) a fenced write reads as a lost lease and sweeps stop after one batch.
     */
    @Override
    public List<String> sessionProblems(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery(SESSION_OPTIONS_SQL)) {
            return rs.next() ? sessionProblems(rs.getInt(1)) : List.of();
        }
    }

    /**
     * With {@code SET XACT_ABORT ON} (often recommended, and the default inside some frameworks' procedures) a unique
     * violation rolls back the caller's whole transaction; mssql-jdbc then starts a new implicit one, and the caller's
     * commit would persist only what came after. A doomed transaction ({@code XACT_STATE() = -1}) cannot commit
     * either.
     */
    @Override
    public boolean errorEndedTransaction(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery(TRANSACTION_STATE_SQL)) {
            return rs.next() && transactionEnded(rs.getInt(1), rs.getInt(2));
        }
    }

    /**
     * True when an error with this XACT_ABORT bit and {@code XACT_STATE()} has ended the transaction: 1 is the only
     * state of a transaction that goes on; 0 means none is open any more (a trigger's error, which runs under
     * XACT_ABORT ON, rolls the whole transaction back whatever the session's setting, and the table-less probe opens
     * none), -1 a doomed one.
     */
    static boolean transactionEnded(int xactAbortBit, int xactState) {
        return (xactAbortBit & XACT_ABORT) != 0 || xactState != 1;
    }

    /** Whether the current database reads committed rows from row versions (learn.microsoft.com, sys.databases). */
    static final String RCSI_SQL =
            "SELECT is_read_committed_snapshot_on FROM sys.databases WHERE database_id = DB_ID()";

    /** Plan operators that read every candidate: a sort, or a scan of a heap, a clustered index or an index. */
    private static final Pattern FULL_READ =
            Pattern.compile("PhysicalOp=\"(Sort|Top N Sort|Table Scan|Clustered Index Scan|Index Scan)\"");

    /**
     * Asks for the estimated plan of the claim's pick ({@code SET SHOWPLAN_XML ON}: the statement is compiled, not
     * run) and refuses a plan that sorts or scans: under UPDLOCK a sort holds U locks on every candidate it read and
     * other workers READPAST all of them; a scan grows with the table. A per-key ordered claim also needs
     * READ_COMMITTED_SNAPSHOT: without it (the on-premises default) its {@code NOT EXISTS} probe takes shared locks,
     * waits on rows other dispatchers hold and can deadlock (1205).
     */
    @Override
    public Optional<String> claimPlanProblem(Connection c, BatchUpdateSpec spec, Object[] args) throws SQLException {
        if (spec.pickGuard().isPresent()) {
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(RCSI_SQL)) {
                if (rs.next() && !rs.getBoolean(1)) {
                    return Optional.of(RCSI_OFF);
                }
            }
        }
        return planProblem(estimatedPlan(c, spec, args));
    }

    /**
     * The batch's pick planned as the claim's is ({@link #claimPlanProblem}): a plan that scans takes an update lock
     * on every row it reads, and past about 5,000 SQL Server escalates them to a table lock, which {@code READPAST}
     * does not skip: every worker and writer of the table waits for the batch.
     */
    @Override
    public Optional<String> batchPlanProblem(Connection c, BatchUpdateSpec spec) throws SQLException {
        Optional<String> full = fullReads(estimatedPlan(c, spec, new Object[0]));
        return full.map(found -> "no index serves it: its estimated plan has " + found + " (a batch takes an update"
                + " lock on every row it reads, and past about 5,000 SQL Server escalates them to a table lock that"
                + " every worker and writer of the table waits for)");
    }

    /** The estimated plan of the spec's pick ({@code SET SHOWPLAN_XML ON}: compiled, not run). */
    private static String estimatedPlan(Connection c, BatchUpdateSpec spec, Object[] args) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SET SHOWPLAN_XML ON");
            try {
                try (PreparedStatement ps = c.prepareStatement(planSql(spec))) {
                    Rows.bind(ps, 1, SqlFragment.resolve(spec.pickWhere().binds(), args));
                    try (ResultSet rs = ps.executeQuery()) {
                        return rs.next() ? rs.getString(1) : "";
                    }
                }
            } finally {
                s.execute("SET SHOWPLAN_XML OFF");
            }
        }
    }

    static final String RCSI_OFF = "READ_COMMITTED_SNAPSHOT is OFF in this database, so the per-key order check"
            + " (NOT EXISTS over earlier rows of the key) takes shared locks, waits on rows other dispatchers hold"
            + " and can deadlock (error 1205); run ALTER DATABASE CURRENT SET READ_COMMITTED_SNAPSHOT ON (it waits"
            + " for other sessions of the database to finish; add WITH ROLLBACK IMMEDIATE to end them)";

    /** The pick whose plan is asked for: {@code SELECT TOP (n) id FROM t WITH (UPDLOCK, READPAST, ROWLOCK) …}. */
    static String planSql(BatchUpdateSpec spec) {
        String pick = spec.pickSql(spec.idColumn());
        String from = " FROM " + spec.table() + " WHERE ";
        return pick.replaceFirst("^SELECT ", "SELECT TOP (" + spec.limit() + ") ")
                .replace(
                        from, " FROM " + spec.table() + " WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK) WHERE ");
    }

    /** The problem of an estimated plan (showplan XML), if it sorts or scans. */
    static Optional<String> planProblem(String showplanXml) {
        return fullReads(showplanXml)
                .map(found -> "no index serves the claim: its estimated plan has " + found
                        + " (a sort holds update locks on every candidate it read, and other workers skip them all; a"
                        + " scan grows with the table)");
    }

    /** The operators of the plan that read every candidate, comma-separated, if any. */
    private static Optional<String> fullReads(String showplanXml) {
        Matcher m = FULL_READ.matcher(showplanXml);
        java.util.Set<String> found = new java.util.LinkedHashSet<>();
        while (m.find()) {
            found.add(m.group(1));
        }
        return found.isEmpty() ? Optional.empty() : Optional.of(String.join(", ", found));
    }

    /** The problems of a session with these {@code @@OPTIONS}. */
    static List<String> sessionProblems(int options) {
        List<String> problems = new ArrayList<>();
        if ((options & NOCOUNT) != 0) {
            problems.add("the session runs with SET NOCOUNT ON (@@OPTIONS & 512), so updates report no row counts and"
                    + " fenced writes would read as lost leases; remove NOCOUNT from the pool's init SQL or from the"
                    + " server's 'user options' (sp_configure), or run SET NOCOUNT OFF on each new connection");
        }
        return problems;
    }

    /** The current database's updateability (learn.microsoft.com, DATABASEPROPERTYEX). */
    static final String UPDATEABILITY_SQL =
            "SELECT CAST(DATABASEPROPERTYEX(DB_NAME(), 'Updateability') AS NVARCHAR(20))";

    /** A database that is {@code READ_ONLY}: a readable secondary, or one set read-only to fence it. */
    @Override
    public boolean refusesWrites(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery(UPDATEABILITY_SQL)) {
            return rs.next() && "READ_ONLY".equalsIgnoreCase(rs.getString(1));
        }
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
                case 2627, 2601 -> {
                    Matcher m = CONSTRAINT.matcher(String.valueOf(s.getMessage()));
                    return SqlError.uniqueViolation(m.find() ? m.group(1) : null);
                }
                case 207 -> {
                    Matcher m = INVALID_COLUMN.matcher(String.valueOf(s.getMessage()));
                    return SqlError.undefinedColumn(m.find() ? m.group(1) : null);
                }
                // deadlock victim, lock request timeout, snapshot update conflict
                case 1205, 1222, 3960 -> {
                    return SqlError.TRANSIENT;
                }
                // lock table exhausted; Azure SQL: service error, busy, database unavailable, not enough
                // resources, resource limits (learn.microsoft.com/azure/azure-sql/database/troubleshoot-common-errors)
                case 1204, 40197, 40501, 40613, 49918, 49919, 49920, 10928, 10929 -> {
                    return SqlError.TRANSIENT;
                }
                // the statement's values: constraint (foreign key, check), null into NOT NULL, string or binary
                // data truncated, arithmetic overflow, conversion failed (text, date, number)
                case 547, 515, 8152, 2628, 8115, 220, 232, 245, 241, 242, 8114, 8134 -> {
                    return SqlError.VALUE_REFUSED;
                }
                // availability-group failover: the database is not accessible or not primary on this connection's
                // replica; a new connection through the listener reaches the new primary
                case 976, 983 -> {
                    return SqlError.CONNECTION_LOST;
                }
                // the database is read-only: a readable secondary reached without ApplicationIntent, or a database
                // set READ_ONLY to fence it
                case 3906 -> {
                    return SqlError.READ_ONLY;
                }
                default -> {}
            }
            if (s instanceof SQLTransientConnectionException
                    || s instanceof SQLNonTransientConnectionException
                    || s instanceof SQLRecoverableException
                    || (s.getSQLState() != null && s.getSQLState().startsWith("08"))) {
                return SqlError.CONNECTION_LOST;
            }
            if (s instanceof SQLTimeoutException) {
                return SqlError.TRANSIENT; // a JDBC query timeout (mssql-jdbc: "The query has timed out")
            }
        }
        return SqlError.OTHER;
    }
}
