package dev.baton.testkit.compat;

import dev.baton.testkit.DatabaseKind;

/** Column types for test DDL, per database. */
public final class SqlTypes {
    private SqlTypes() {}

    /** A 64-bit integer primary key column type. */
    public static String bigint(DatabaseKind kind) {
        return "BIGINT";
    }

    /** A timestamp column with microseconds that the database clock writes. */
    public static String timestamp(DatabaseKind kind) {
        return switch (kind) {
            case POSTGRES -> "TIMESTAMPTZ";
            case MARIADB, MYSQL -> "TIMESTAMP(6) NULL";
            case SQLSERVER -> "DATETIME2(6)";
        };
    }

    /** The database clock, as the library writes it. */
    public static String now(DatabaseKind kind) {
        return switch (kind) {
            case POSTGRES -> "clock_timestamp()";
            case MARIADB, MYSQL -> "CURRENT_TIMESTAMP(6)";
            case SQLSERVER -> "SYSUTCDATETIME()";
        };
    }

    /** {@code now - minutes}, for back-dating rows. */
    public static String minutesAgo(DatabaseKind kind, int minutes) {
        return switch (kind) {
            case POSTGRES -> "(clock_timestamp() - interval '" + minutes + " minutes')";
            case MARIADB, MYSQL -> "TIMESTAMPADD(MINUTE, -" + minutes + ", CURRENT_TIMESTAMP(6))";
            case SQLSERVER -> "DATEADD(minute, -" + minutes + ", SYSUTCDATETIME())";
        };
    }

    /** Quotes an identifier the way the database does. */
    public static String quote(DatabaseKind kind, String identifier) {
        return switch (kind) {
            case POSTGRES -> '"' + identifier + '"';
            case MARIADB, MYSQL -> '`' + identifier + '`';
            case SQLSERVER -> '[' + identifier + ']';
        };
    }

    /** A short text column. */
    public static String varchar(DatabaseKind kind, int n) {
        return "VARCHAR(" + n + ")";
    }
}
