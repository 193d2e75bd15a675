package dev.baton.internal;

import dev.baton.SchemaMismatchException;
import dev.baton.internal.tx.SqlWork;
import dev.baton.spi.BatchUpdate;
import dev.baton.spi.Dialect;
import dev.baton.spi.SqlError;
import java.sql.SQLException;
import java.util.List;

/**
 * Reports a statement on a host table that the database refused because a column it names does not exist (PostgreSQL
 * 42703, MySQL 1054, SQL Server 207, as the dialect classifies them) as a {@link SchemaMismatchException} naming the
 * table and the column, instead of a generic database failure; it is never retried.
 */
public final class UndefinedColumn {
    private UndefinedColumn() {}

    /** The typed exception for {@code e} on {@code table}, or null when {@code e} is about something else. */
    public static SchemaMismatchException of(Dialect d, String table, SQLException e) {
        SqlError error = d.diagnostics().classify(e);
        if (error.kind() != SqlError.Kind.UNDEFINED_COLUMN) {
            return null;
        }
        String problem = error.column() == null
                ? "a column the statement names does not exist (" + e.getMessage() + ")"
                : "column " + error.column() + " does not exist";
        return new SchemaMismatchException(
                table, List.of(problem + "; verify() lists every missing column with its DDL"), List.of(), e);
    }

    /** Throws the typed exception when {@code e} says a column is missing, else returns {@code e} to rethrow. */
    public static SQLException check(Dialect d, String table, SQLException e) {
        SchemaMismatchException typed = of(d, table, e);
        if (typed != null) {
            throw typed;
        }
        return e;
    }

    /** {@code work}, reporting a missing column of {@code table} as the typed exception. */
    public static <T> SqlWork<T> reported(Dialect d, String table, SqlWork<T> work) {
        return c -> {
            try {
                return work.run(c);
            } catch (SQLException e) {
                throw check(d, table, e);
            }
        };
    }

    /** {@code statement}, reporting a missing column of {@code table} as the typed exception. */
    public static BatchUpdate reported(Dialect d, String table, BatchUpdate statement) {
        return BatchUpdate.of(statement.sql(), (c, args) -> {
            try {
                return statement.execute(c, args);
            } catch (SQLException e) {
                throw check(d, table, e);
            }
        });
    }
}
