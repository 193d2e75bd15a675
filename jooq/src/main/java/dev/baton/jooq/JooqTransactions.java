package dev.baton.jooq;

import dev.baton.spi.HostTransaction;
import dev.baton.spi.HostTransactions;
import java.sql.Connection;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.jooq.TransactionContext;
import org.jooq.TransactionListener;

/**
 * jOOQ's transactions as Baton's host transactions. Add {@link #listener(DataSource)} to the jOOQ
 * {@link org.jooq.Configuration} of the data source Baton was built with; then, inside
 * {@code dsl.transaction(cfg -> …)} or {@code transactionResult}, Baton's data-source operations (for example
 * {@code transition(…).apply()}) run on the transaction's connection, never commit, roll back or retry it, and call
 * their listeners after the outermost transaction commits (never if it, or the nested transaction they ran in, rolls
 * back).
 *
 * <pre>{@code
 * DSLContext dsl = DSL.using(new DefaultConfiguration()
 *         .set(dataSource)
 *         .set(SQLDialect.POSTGRES)
 *         .set(JooqTransactions.listener(dataSource)));
 * Baton baton = Baton.using(dataSource);
 * dsl.transaction(tx -> {
 *     orders.transition(id, Payment.PENDING, Payment.PAID).apply();   // in jOOQ's transaction
 *     tx.dsl().insertInto(LEDGER).set(LEDGER.ORDER_ID, id).execute();
 * });
 * }</pre>
 *
 * <p>Registered with {@link java.util.ServiceLoader}: {@code Baton.using} finds it. It joins only transactions its
 * listener saw begin on the calling thread, with jOOQ's default transaction provider (a Spring Boot application whose
 * jOOQ runs on Spring's transactions needs {@code baton-spring} instead). Thread-safe: the state is per thread.
 */
public final class JooqTransactions implements HostTransactions {
    /**
     * The jOOQ transactions open on this thread, innermost first; absent (not empty) outside them, so that the lookup
     * Baton makes on every operation and listener call allocates nothing there.
     */
    private static final ThreadLocal<Deque<Joined>> OPEN = new ThreadLocal<>();

    /** The implementation {@code ServiceLoader} instantiates. */
    public JooqTransactions() {}

    /**
     * A listener that makes the jOOQ transactions of a configuration over {@code dataSource} joinable by the
     * {@code Baton} built over the same data source.
     */
    public static TransactionListener listener(DataSource dataSource) {
        return new Listener(Objects.requireNonNull(dataSource, "dataSource"));
    }

    @Override
    public HostTransaction current(DataSource dataSource) {
        Deque<Joined> open = OPEN.get();
        if (open == null) {
            return null;
        }
        for (Joined j : open) { // innermost first
            if (j.dataSource == dataSource) {
                return j;
            }
        }
        return null;
    }

    private static final class Joined implements HostTransaction {
        final DataSource dataSource;
        final Connection connection;
        final List<Runnable> afterCommit = new ArrayList<>();

        Joined(DataSource dataSource, Connection connection) {
            this.dataSource = dataSource;
            this.connection = connection;
        }

        @Override
        public Connection connection() {
            return connection;
        }

        @Override
        public void afterCommit(Runnable action) {
            afterCommit.add(action);
        }
    }

    private record Listener(DataSource dataSource) implements TransactionListener {
        @Override
        public void beginEnd(TransactionContext ctx) {
            // inside the transaction, the configuration's provider hands out the transaction's connection
            Connection c = ctx.configuration().connectionProvider().acquire();
            Deque<Joined> open = OPEN.get();
            if (open == null) {
                open = new ArrayDeque<>();
                OPEN.set(open);
            }
            open.push(new Joined(dataSource, c));
        }

        @Override
        public void commitEnd(TransactionContext ctx) {
            Deque<Joined> open = OPEN.get();
            Joined done = open.pop();
            Joined outer = open.peek();
            if (outer != null && outer.dataSource == done.dataSource) {
                outer.afterCommit.addAll(done.afterCommit); // a savepoint released: wait for the outer commit
            } else {
                done.afterCommit.forEach(Runnable::run);
            }
            if (open.isEmpty()) {
                OPEN.remove();
            }
        }

        @Override
        public void rollbackEnd(TransactionContext ctx) {
            Deque<Joined> open = OPEN.get();
            if (open == null) { // absent when begin itself failed
                return;
            }
            open.pop();
            if (open.isEmpty()) {
                OPEN.remove();
            }
        }
    }
}
