package dev.baton.testkit.faults;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.function.UnaryOperator;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A data source over a real server whose statements run as {@code rewrite} turns their SQL text: how a test makes a
 * real server answer one query as another engine or topology would (its version string, its epoch), while every
 * other statement runs unchanged. Statements of {@link Connection#createStatement()} and {@link
 * Connection#prepareStatement(String)} are rewritten. Thread-safe if {@code rewrite} is.
 */
public final class RewritingDataSource implements DataSource {
    private final DataSource target;
    private final UnaryOperator<String> rewrite;

    /** Connections of {@code target} whose SQL text goes through {@code rewrite}. */
    public RewritingDataSource(DataSource target, UnaryOperator<String> rewrite) {
        this.target = target;
        this.rewrite = rewrite;
    }

    /** Answers {@code query}, wherever it is sent exactly so, with the single text value {@code answer}. */
    public static RewritingDataSource answering(DataSource target, String query, String answer) {
        String literal = "SELECT '" + answer.replace("'", "''") + "'";
        return new RewritingDataSource(target, sql -> sql.equals(query) ? literal : sql);
    }

    @Override
    public Connection getConnection() throws SQLException {
        return wrap(target.getConnection());
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        return wrap(target.getConnection(user, password));
    }

    private Connection wrap(Connection real) {
        InvocationHandler h = (proxy, m, args) -> {
            if (m.getName().equals("prepareStatement") && args != null && args[0] instanceof String sql) {
                args = args.clone();
                args[0] = rewrite.apply(sql);
            }
            Object result = invoke(real, m, args);
            if (m.getName().equals("createStatement") && result instanceof Statement s) {
                return statement(s);
            }
            return result;
        };
        return (Connection) Proxy.newProxyInstance(
                RewritingDataSource.class.getClassLoader(), new Class<?>[] {Connection.class}, h);
    }

    private Statement statement(Statement real) {
        InvocationHandler h = (proxy, m, args) -> {
            if (m.getName().startsWith("execute") && args != null && args.length > 0 && args[0] instanceof String sql) {
                args = args.clone();
                args[0] = rewrite.apply(sql);
            }
            return invoke(real, m, args);
        };
        return (Statement)
                Proxy.newProxyInstance(RewritingDataSource.class.getClassLoader(), new Class<?>[] {Statement.class}, h);
    }

    private static Object invoke(Object target, Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return target.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        target.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        target.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return target.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return target.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return target.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return target.isWrapperFor(iface);
    }
}
