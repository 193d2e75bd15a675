package dev.baton.sqlserver;

import dev.baton.ConfigurationException;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * READPAST is allowed only at READ COMMITTED and REPEATABLE READ: at SNAPSHOT, SERIALIZABLE or READ UNCOMMITTED the
 * statement fails with error 650 (learn.microsoft.com, table hints). A statement in autocommit mode runs at READ
 * COMMITTED and the connection gets its level back after; one inside a caller's transaction at another level is
 * refused before any SQL, since changing the level would change the caller's transaction. The level is the one the
 * driver reports ({@link Connection#getTransactionIsolation()}): a level set by SQL text ({@code SET TRANSACTION
 * ISOLATION LEVEL} in a pool's init SQL) is not seen.
 */
final class ReadpastIsolation {
    /** mssql-jdbc's {@code SQLServerConnection.TRANSACTION_SNAPSHOT}. */
    static final int SNAPSHOT = 4096;

    private ReadpastIsolation() {}

    /** Work on a connection. */
    @FunctionalInterface
    interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /** Runs {@code work} at a level READPAST allows; see the class comment. */
    static <T> T run(Connection c, Work<T> work) throws SQLException {
        int level = c.getTransactionIsolation();
        if (allowsReadpast(level)) {
            return work.run(c);
        }
        if (!c.getAutoCommit()) {
            throw new ConfigurationException("a batch update on SQL Server skips locked rows (READPAST), which only"
                    + " READ COMMITTED and REPEATABLE READ allow (error 650); the caller's transaction runs at "
                    + name(level) + ": run it at READ COMMITTED, or call the form on the data source");
        }
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        try {
            return work.run(c);
        } finally {
            if (!c.isClosed()) {
                c.setTransactionIsolation(level);
            }
        }
    }

    static boolean allowsReadpast(int level) {
        return level == Connection.TRANSACTION_READ_COMMITTED || level == Connection.TRANSACTION_REPEATABLE_READ;
    }

    static String name(int level) {
        return switch (level) {
            case Connection.TRANSACTION_READ_UNCOMMITTED -> "READ UNCOMMITTED";
            case Connection.TRANSACTION_SERIALIZABLE -> "SERIALIZABLE";
            case SNAPSHOT -> "SNAPSHOT";
            default -> "isolation level " + level;
        };
    }
}
