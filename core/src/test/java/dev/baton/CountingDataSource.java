package dev.baton;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/** A data source with no database behind it that counts how often a connection was asked for: 0 means no SQL ran. */
final class CountingDataSource {
    private final AtomicInteger connections = new AtomicInteger();
    private final DataSource dataSource;

    CountingDataSource() {
        InvocationHandler h = (proxy, method, args) -> {
            if (method.getName().equals("getConnection")) {
                connections.incrementAndGet();
                throw new SQLException("no database behind this test", "08001");
            }
            if (method.getName().equals("toString")) {
                return "counting data source";
            }
            throw new UnsupportedOperationException(method.getName());
        };
        dataSource = (DataSource)
                Proxy.newProxyInstance(CountingDataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, h);
    }

    DataSource dataSource() {
        return dataSource;
    }

    int connections() {
        return connections.get();
    }
}
