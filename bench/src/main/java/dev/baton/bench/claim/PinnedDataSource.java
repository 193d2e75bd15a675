package dev.baton.bench.claim;

import dev.baton.bench.Target;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A data source that gives every thread its own physical connection, opened from the driver at the thread's first
 * borrow and handed back to it at every later one ({@code close()} keeps it open): what a hand-written claim loop
 * holding one connection per thread does, offered to Baton, so that a bench can tell the cost of a pool's borrows
 * from the cost of everything else.
 */
final class PinnedDataSource implements DataSource, AutoCloseable {
    private final Target target;
    private final ThreadLocal<Connection> held = new ThreadLocal<>();
    private final List<Connection> opened = new CopyOnWriteArrayList<>();

    PinnedDataSource(Target target) {
        this.target = target;
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection c = held.get();
        if (c == null || c.isClosed()) {
            Connection physical = target.connect();
            opened.add(physical);
            c = (Connection) Proxy.newProxyInstance(
                    Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (p, m, args) -> {
                        if (m.getName().equals("close") && m.getParameterCount() == 0) {
                            return null; // kept for this thread's next borrow
                        }
                        try {
                            return m.invoke(physical, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
            held.set(c);
        }
        return c;
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        return getConnection();
    }

    /** Closes every connection it opened. */
    @Override
    public void close() throws SQLException {
        for (Connection c : opened) {
            c.close();
        }
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return false;
    }
}
