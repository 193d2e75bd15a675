package dev.baton.sqlserver;

import dev.baton.spi.Diagnostics;
import dev.baton.spi.SqlError;
import java.io.IOException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** SQL Server's errors, by vendor code. */
final class SqlServerDiagnostics implements Diagnostics {
    private static final Pattern CONSTRAINT = Pattern.compile("(?:constraint|unique index) '([^']+)'");

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
                // deadlock victim, lock request timeout, snapshot update conflict
                case 1205, 1222, 3960 -> {
                    return SqlError.TRANSIENT;
                }
                // lock table exhausted; Azure SQL: service error, busy, database unavailable, not enough
                // resources, resource limits (learn.microsoft.com/azure/azure-sql/database/troubleshoot-common-errors)
                case 1204, 40197, 40501, 40613, 49918, 49919, 49920, 10928, 10929 -> {
                    return SqlError.TRANSIENT;
                }
                // availability-group failover: the database is not accessible or not primary on this connection's
                // replica; a new connection through the listener reaches the new primary
                case 976, 983 -> {
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
        }
        return SqlError.OTHER;
    }
}
