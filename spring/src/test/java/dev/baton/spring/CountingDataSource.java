package dev.baton.spring;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/** The application's pool as the tests see it: counts every connection borrowed from it. */
public final class CountingDataSource extends DelegatingDataSource {
    private final AtomicInteger borrowed = new AtomicInteger();

    CountingDataSource(DataSource pool) {
        super(pool);
    }

    /** Connections borrowed so far, by anyone (Spring's transaction manager, Baton, the test). */
    int borrowed() {
        return borrowed.get();
    }

    @Override
    public Connection getConnection() throws SQLException {
        borrowed.incrementAndGet();
        return super.getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        borrowed.incrementAndGet();
        return super.getConnection(username, password);
    }
}
