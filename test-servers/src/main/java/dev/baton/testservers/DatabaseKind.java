package dev.baton.testservers;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The database products that the test servers provision, and what tests need to know about each: column types and
 * clock expressions for test tables, identifier quoting, how to end another session. The one place where tests
 * tell databases apart; suites ask the kind instead of switching on it.
 */
public enum DatabaseKind {
    /** PostgreSQL. */
    POSTGRES(
            "PostgreSQL",
            "TIMESTAMPTZ",
            "clock_timestamp()",
            "(clock_timestamp() - interval '%d minutes')",
            "\"%s\"",
            "SELECT pg_backend_pid()",
            "SELECT pg_terminate_backend(%d)"),
    /** MariaDB (served by Baton's MySQL dialect). */
    MARIADB(
            "MariaDB",
            "DATETIME(6) NULL",
            "UTC_TIMESTAMP(6)",
            "TIMESTAMPADD(MINUTE, -%d, UTC_TIMESTAMP(6))",
            "`%s`",
            "SELECT CONNECTION_ID()",
            "KILL CONNECTION %d"),
    /** MySQL 8.0 or later (served by Baton's MySQL dialect). */
    MYSQL(
            "MySQL",
            "DATETIME(6) NULL",
            "UTC_TIMESTAMP(6)",
            "TIMESTAMPADD(MINUTE, -%d, UTC_TIMESTAMP(6))",
            "`%s`",
            "SELECT CONNECTION_ID()",
            "KILL CONNECTION %d"),
    /** Microsoft SQL Server. */
    SQLSERVER(
            "SQL Server",
            "DATETIME2(6)",
            "SYSUTCDATETIME()",
            "DATEADD(minute, -%d, SYSUTCDATETIME())",
            "[%s]",
            "SELECT @@SPID",
            "KILL %d");

    private final String label;
    private final String timestampType;
    private final String now;
    private final String minutesAgo;
    private final String quoted;
    private final String sessionIdQuery;
    private final String kill;

    DatabaseKind(
            String label,
            String timestampType,
            String now,
            String minutesAgo,
            String quoted,
            String sessionIdQuery,
            String kill) {
        this.label = label;
        this.timestampType = timestampType;
        this.now = now;
        this.minutesAgo = minutesAgo;
        this.quoted = quoted;
        this.sessionIdQuery = sessionIdQuery;
        this.kill = kill;
    }

    /**
     * The product's name for messages.
     *
     * @return such as {@code PostgreSQL} or {@code SQL Server}
     */
    public String label() {
        return label;
    }

    /**
     * A nullable timestamp column type with microseconds, for columns the database clock writes.
     *
     * @return such as {@code TIMESTAMPTZ} or {@code DATETIME2(6)}
     */
    public String timestampType() {
        return timestampType;
    }

    /**
     * A text column type in a single-byte character set where the database has one per column (latin1 on MySQL and
     * MariaDB, a Latin1 code page on SQL Server); PostgreSQL's encoding is per database, so plain VARCHAR there.
     *
     * @param length the width in characters
     * @return such as {@code VARCHAR(20) CHARACTER SET latin1}
     */
    public String singleByteTextType(int length) {
        return switch (this) {
            case MARIADB, MYSQL -> "VARCHAR(" + length + ") CHARACTER SET latin1 COLLATE latin1_swedish_ci";
            case SQLSERVER -> "VARCHAR(" + length + ") COLLATE Latin1_General_CI_AS";
            case POSTGRES -> "VARCHAR(" + length + ")";
        };
    }

    /**
     * A timestamp column type whose values depend on the session's time zone, which {@code verify()} refuses for
     * lease and backoff columns: PostgreSQL {@code TIMESTAMP} (without time zone), SQL Server {@code DATETIME}
     * (local time by habit, 3 ms steps), MySQL and MariaDB {@code TIMESTAMP(6)} (read in the session's zone, ends in
     * 2038).
     *
     * @return such as {@code TIMESTAMP}
     */
    public String zoneUnsafeTimestampType() {
        return switch (this) {
            case POSTGRES -> "TIMESTAMP";
            case SQLSERVER -> "DATETIME";
            case MARIADB, MYSQL -> "TIMESTAMP(6)";
        };
    }

    /**
     * DDL that gives a column of {@link #timestampType()} a default of a local clock, as host schemas often do: MySQL
     * and MariaDB {@code CURRENT_TIMESTAMP(6)} (the session zone's wall clock, stored as it is in a {@code DATETIME}),
     * SQL Server {@code GETDATE()} (the server's wall clock), PostgreSQL {@code LOCALTIMESTAMP} (which a {@code
     * timestamptz} converts to the instant it is).
     *
     * @param table the table
     * @param column the column
     * @return an SQL statement
     */
    public String localClockDefaultSql(String table, String column) {
        return switch (this) {
            case POSTGRES -> "ALTER TABLE " + table + " ALTER COLUMN " + column + " SET DEFAULT LOCALTIMESTAMP";
            case MARIADB, MYSQL ->
                "ALTER TABLE " + table + " MODIFY " + column + " DATETIME(6) NULL DEFAULT CURRENT_TIMESTAMP(6)";
            case SQLSERVER -> "ALTER TABLE " + table + " ADD DEFAULT GETDATE() FOR " + column;
        };
    }

    /**
     * Whether a column given {@link #localClockDefaultSql} then holds local wall-clock times: all but PostgreSQL,
     * whose {@code timestamptz} stores instants whatever the default.
     *
     * @return true where {@code verify()} refuses such a column
     */
    public boolean localClockDefaultHoldsWallClock() {
        return this != POSTGRES;
    }

    /**
     * The statement that puts a session in the time zone {@code offset}, as a host's connection pool might set it (or
     * a driver, from the JVM's zone). SQL Server sessions have no time zone: a statement that changes nothing.
     *
     * @param offset such as {@code -05:00}
     * @return an SQL statement
     */
    public String sessionZoneSql(String offset) {
        if (!offset.matches("[+-]\\d\\d:\\d\\d")) {
            throw new IllegalArgumentException("an offset such as -05:00, was " + offset);
        }
        return switch (this) {
            case POSTGRES -> "SET TIME ZONE INTERVAL '" + offset + "' HOUR TO MINUTE";
            case MARIADB, MYSQL -> "SET time_zone = '" + offset + "'";
            case SQLSERVER -> "SET NOCOUNT OFF";
        };
    }

    /**
     * The statement that refreshes the planner's statistics of a table: {@code ANALYZE} (PostgreSQL),
     * {@code ANALYZE TABLE} (MySQL, MariaDB), {@code UPDATE STATISTICS} (SQL Server).
     *
     * @param table the table
     * @return an SQL statement
     */
    public String analyzeSql(String table) {
        return switch (this) {
            case POSTGRES -> "ANALYZE " + table;
            case MARIADB, MYSQL -> "ANALYZE TABLE " + table;
            case SQLSERVER -> "UPDATE STATISTICS " + table;
        };
    }

    /**
     * The database clock, as Baton writes it.
     *
     * @return an SQL expression
     */
    public String now() {
        return now;
    }

    /**
     * The database clock minus some minutes, for back-dating rows.
     *
     * @param minutes how far back
     * @return an SQL expression
     */
    public String minutesAgo(int minutes) {
        return String.format(minutesAgo, minutes);
    }

    /**
     * Quotes an identifier the way the database does.
     *
     * @param identifier a name without quote characters
     * @return the quoted name
     */
    public String quote(String identifier) {
        return String.format(quoted, identifier);
    }

    /**
     * Whether the server silently truncates oversized values unless the session's {@code sql_mode} is strict
     * (MySQL and MariaDB); Baton refuses such sessions at start-up.
     *
     * @return true for MySQL and MariaDB
     */
    public boolean truncatesWithoutStrictMode() {
        return this == MARIADB || this == MYSQL;
    }

    /**
     * Whether a transaction at {@code REPEATABLE READ} fails (SQLState {@code 40001}) to update a row changed after
     * its snapshot, rather than updating the current row (PostgreSQL).
     *
     * @return true for PostgreSQL
     */
    public boolean refusesUpdateAfterSnapshotChange() {
        return this == POSTGRES;
    }

    /**
     * Whether Baton's {@code verify()} asks this database's planner whether an index serves a claim (not on SQL
     * Server, whose plans are not read).
     *
     * @return false for SQL Server
     */
    public boolean plannerChecksClaimIndex() {
        return this != SQLSERVER;
    }

    /**
     * Ends the server session of {@code victim} from another connection, as a failover or an administrator would:
     * the victim's next statement fails as a lost connection. Waits 100 ms for the server to finish closing it.
     *
     * @param victim the connection to terminate
     * @param admin another connection to the same server
     * @throws SQLException when the server refuses
     */
    public void terminate(Connection victim, Connection admin) throws SQLException {
        long id;
        try (Statement s = victim.createStatement();
                ResultSet rs = s.executeQuery(sessionIdQuery)) {
            rs.next();
            id = rs.getLong(1);
        }
        try (Statement s = admin.createStatement()) {
            s.execute(String.format(kill, id));
        }
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
