package dev.baton.examples.demo;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;

/** Inserts a backlog of paid orders in one transaction, so that the timer jobs see all of it at once. */
final class Backlog {
    private Backlog() {}

    /** Runs {@code insert} (binds: id, transaction id) for ids {@code firstId ..}, committing once. */
    static void insert(DataSource ds, String insert, long firstId, int count) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement(insert)) {
                for (int i = 0; i < count; i++) {
                    ps.setLong(1, firstId + i);
                    ps.setString(2, "gw-" + (firstId + i));
                    ps.addBatch();
                    if (i % 500 == 499) {
                        ps.executeBatch();
                    }
                }
                ps.executeBatch();
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        }
    }
}
