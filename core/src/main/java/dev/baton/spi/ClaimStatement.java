package dev.baton.spi;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * A rendered batch claim (see {@link ClaimSpec}), immutable and safe to share between threads. It runs inside a
 * transaction the engine opened at READ COMMITTED on {@code connection}; it never commits.
 */
@FunctionalInterface
public interface ClaimStatement {

    /**
     * Claims up to the spec's limit rows.
     *
     * @param connection a connection inside a READ COMMITTED transaction
     * @param args values for the {@link Param}s of the spec's fragments
     * @return one array per claimed row, holding the spec's {@code returning} columns in order (empty arrays when the
     *     spec returns nothing); never more rows than the limit
     * @throws SQLException as the driver throws it
     */
    List<Object[]> execute(Connection connection, Object[] args) throws SQLException;
}
