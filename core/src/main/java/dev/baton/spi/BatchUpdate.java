package dev.baton.spi;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A rendered bounded batch update (see {@link BatchUpdateSpec}), immutable and safe to share between threads. It runs
 * inside a transaction the engine opened at READ COMMITTED on {@code connection} (or in autocommit mode when the
 * dialect says {@link DialectTraits#batchUpdateIsAtomic()}); it never commits.
 */
public interface BatchUpdate {

    /**
     * Updates up to the spec's limit rows.
     *
     * @param connection the connection to run on
     * @param args values for the {@link Param}s of the spec's fragments
     * @return one array per updated row, holding the spec's {@code returning} columns in order (empty arrays when the
     *     spec returns nothing); never more rows than the limit
     * @throws SQLException as the driver throws it
     */
    List<@Nullable Object[]> execute(Connection connection, @Nullable Object[] args) throws SQLException;

    /** The SQL text of the statement(s), in the order they run (for exact-SQL tests and logs). */
    List<String> sql();

    /** Makes a batch update from its SQL text and the code that runs it. */
    static BatchUpdate of(List<String> sql, Execution execution) {
        List<String> text = List.copyOf(sql);
        return new BatchUpdate() {
            @Override
            public List<@Nullable Object[]> execute(Connection connection, @Nullable Object[] args)
                    throws SQLException {
                return execution.execute(connection, args);
            }

            @Override
            public List<String> sql() {
                return text;
            }

            @Override
            public String toString() {
                return String.join("; ", text);
            }
        };
    }

    /**
     * A batch update that is one statement returning the updated rows (or, with {@code width} 0, only a count): binds
     * {@code binds} (resolving {@link Param}s) and runs it.
     *
     * @param sql the statement
     * @param binds its bind values in order
     * @param width the number of returned columns
     */
    static BatchUpdate singleStatement(String sql, List<@Nullable Object> binds, int width) {
        List<@Nullable Object> values =
                java.util.Collections.unmodifiableList(new java.util.ArrayList<>(binds)); // nulls allowed
        return of(List.of(sql), (connection, args) -> {
            try (java.sql.PreparedStatement ps = connection.prepareStatement(sql)) {
                Rows.bind(ps, 1, SqlFragment.resolve(values, args));
                if (width == 0) {
                    return Rows.empty(ps.executeUpdate());
                }
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    return Rows.read(rs, width);
                }
            }
        });
    }

    /** The code that runs a batch update. */
    @FunctionalInterface
    interface Execution {
        /** See {@link BatchUpdate#execute}. */
        List<@Nullable Object[]> execute(Connection connection, @Nullable Object[] args) throws SQLException;
    }
}
