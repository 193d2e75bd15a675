package dev.baton.jooq;

import dev.baton.spi.HostTransaction;
import dev.baton.spi.HostTransactions;
import java.sql.Connection;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.jooq.ConnectionProvider;
import org.jooq.TransactionContext;
import org.jooq.TransactionListener;

/**
 * jOOQ's transactions as Baton's host transactions. Add {@link #listener(DataSource)} to the jOOQ
 * {@link org.jooq.Configuration} of the data source Baton was built with; then, inside
 * {@code dsl.transaction(cfg -> …)} or {@code transactionResult}, Baton's data-source operations (for example
 * {@code transition(…).apply()}) run on the transaction's connection, never commit, roll back or retry it, and call
 * their listeners after the outermost transaction commits (never if it, or the nested transaction they ran in, rolls
 * back, nor when the COMMIT itself fails).
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
        final TransactionContext ctx;
        final DataSource dataSource;
        final List<Runnable> afterCommit = new ArrayList<>();
        /** The transaction's connection provider as its commit starts, to tell afterwards whether it committed. */
        ConnectionProvider committing;
        /** A nested transaction merged into this one at its commit, until it is known not to have rolled back. */
        Joined lastNested;

        Joined(TransactionContext ctx, DataSource dataSource) {
            this.ctx = ctx;
            this.dataSource = dataSource;
        }

        @Override
        public Connection connection() {
            // inside the transaction, the configuration's provider hands out the transaction's connection
            return ctx.configuration().connectionProvider().acquire();
        }

        @Override
        public void release(Connection connection) {
            ctx.configuration().connectionProvider().release(connection);
        }

        @Override
        public void afterCommit(Runnable action) {
            afterCommit.add(action);
        }
    }

    /**
     * Keeps the entries of the transactions it saw begin, keyed by their {@link TransactionContext}. jOOQ calls
     * {@code beginEnd} and {@code commitEnd} in {@code finally} blocks, also when the begin or the commit failed, and
     * sets the context's cause only after them; so an entry is pushed without a connection (acquired when Baton first
     * needs it, never for a begin that failed), popped only by the calls of its own context, and the listener calls of
     * an outermost transaction run only when the commit went through: jOOQ's default provider detaches the
     * transaction's connection provider from the configuration after a commit that succeeded, and leaves it attached
     * (to roll back next) when the COMMIT failed, also when the connection was lost on it.
     */
    private record Listener(DataSource dataSource) implements TransactionListener {
        @Override
        public void beginEnd(TransactionContext ctx) {
            Deque<Joined> open = OPEN.get();
            if (open == null) {
                open = new ArrayDeque<>();
                OPEN.set(open);
            }
            open.push(new Joined(ctx, dataSource));
        }

        @Override
        public void commitStart(TransactionContext ctx) {
            Joined top = top(ctx);
            if (top != null && !top.afterCommit.isEmpty() && outer(top) == null) {
                top.committing = ctx.configuration().connectionProvider();
            }
        }

        @Override
        public void commitEnd(TransactionContext ctx) {
            Joined done = top(ctx);
            if (done == null) {
                return;
            }
            Deque<Joined> open = OPEN.get();
            open.pop();
            Joined outer = open.peek();
            if (ctx.causeThrowable() != null) {
                done.afterCommit.clear(); // a provider that reported its failure before the listeners
            }
            if (outer != null && outer.dataSource == done.dataSource) {
                // a savepoint released: wait for the outer commit (undone again if jOOQ now rolls the nested one back)
                outer.afterCommit.addAll(done.afterCommit);
                outer.lastNested = done;
            } else if (done.committing == null || ctx.configuration().connectionProvider() != done.committing) {
                done.afterCommit.forEach(Runnable::run);
            }
            if (open.isEmpty()) {
                OPEN.remove();
            }
        }

        @Override
        public void rollbackEnd(TransactionContext ctx) {
            Deque<Joined> open = OPEN.get();
            if (open == null) {
                return;
            }
            Joined top = open.peek();
            if (top.ctx == ctx) {
                open.pop(); // rolled back (also when its begin failed)
            } else if (top.lastNested != null && top.lastNested.ctx == ctx) {
                // its savepoint could not be released and jOOQ rolled back to it: drop what it reported
                top.afterCommit.removeAll(top.lastNested.afterCommit);
                top.lastNested = null;
            }
            if (open.isEmpty()) {
                OPEN.remove();
            }
        }

        /** The innermost entry if it is {@code ctx}'s, else null (a context this listener never saw begin). */
        private static Joined top(TransactionContext ctx) {
            Deque<Joined> open = OPEN.get();
            Joined top = open == null ? null : open.peek();
            return top != null && top.ctx == ctx ? top : null;
        }

        /** The entry around {@code inner} for the same data source, or null. */
        private static Joined outer(Joined inner) {
            Iterator<Joined> it = OPEN.get().iterator();
            it.next(); // inner itself
            while (it.hasNext()) {
                Joined j = it.next();
                if (j.dataSource == inner.dataSource) {
                    return j;
                }
            }
            return null;
        }
    }
}
