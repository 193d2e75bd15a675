package dev.baton.jooq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.Message;
import dev.baton.Outbox;
import dev.baton.StateMachine;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import dev.baton.testservers.DatabaseKind;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import dev.baton.testservers.TestServer;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.TransactionContext;
import org.jooq.TransactionProvider;
import org.jooq.impl.DSL;
import org.jooq.impl.DataSourceConnectionProvider;
import org.jooq.impl.DefaultConfiguration;
import org.jooq.impl.DefaultTransactionProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Baton's data-source operations inside {@code DSLContext.transaction}, with {@link JooqTransactions#listener} on the
 * configuration: they commit and roll back with jOOQ's transaction (and with a nested one's savepoint), borrow no
 * connection of their own, and their listener calls wait for the outermost commit.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_LOCAL", "POSTGRES_EMBEDDED", "MARIADB_LOCAL", "MARIADB_EMBEDDED"})
class JooqTransactionsTest {
    enum Pay {
        PENDING,
        PAID
    }

    static final StateMachine<Pay> MACHINE = StateMachine.of(Pay.class)
            .name("pay")
            .allow(Pay.PENDING, Pay.PAID)
            .terminal(Pay.PAID)
            .build();

    /** Counts connections borrowed from the pool. */
    static final class Counting implements DataSource {
        final DataSource pool;
        final AtomicInteger borrowed = new AtomicInteger();

        Counting(DataSource pool) {
            this.pool = pool;
        }

        @Override
        public Connection getConnection() throws SQLException {
            borrowed.incrementAndGet();
            return pool.getConnection();
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            borrowed.incrementAndGet();
            return pool.getConnection(user, password);
        }

        @Override
        public PrintWriter getLogWriter() throws SQLException {
            return pool.getLogWriter();
        }

        @Override
        public void setLogWriter(PrintWriter out) throws SQLException {
            pool.setLogWriter(out);
        }

        @Override
        public void setLoginTimeout(int seconds) throws SQLException {
            pool.setLoginTimeout(seconds);
        }

        @Override
        public int getLoginTimeout() throws SQLException {
            return pool.getLoginTimeout();
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            return pool.getParentLogger();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            return pool.unwrap(iface);
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) throws SQLException {
            return pool.isWrapperFor(iface);
        }
    }

    @Parameter
    TestServer server;

    private TestDatabase db;
    private Counting dataSource;
    private DSLContext dsl;
    private StateTable<Pay> orders;
    private Outbox outbox;
    private String ledger;
    private final List<String> calls = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() {
        db = server.get();
        dataSource = new Counting(db.dataSource());
        dsl = DSL.using(new DefaultConfiguration()
                .set(dataSource)
                .set(db.kind() == DatabaseKind.POSTGRES ? SQLDialect.POSTGRES : SQLDialect.MARIADB)
                .set(JooqTransactions.listener(dataSource)));
        Baton baton = Baton.builder(dataSource)
                .listener(new BatonListener() {
                    @Override
                    public void onTransition(String table, TransitionResult<?> result) {
                        calls.add("transition " + result.id());
                    }
                })
                .build();
        String suffix = TestDatabases.uniqueName("j").substring(1);
        orders = baton.table("orders" + suffix).id("id").state("status", MACHINE);
        outbox = baton.outbox("outbox" + suffix);
        ledger = "ledger" + suffix;
        orders.createTableSql().forEach(db::execute);
        baton.ownTables().createOutboxTable(outbox.table());
        db.execute("CREATE TABLE " + ledger + " (order_id BIGINT NOT NULL)");
        db.execute("INSERT INTO " + orders.table() + " (id, status) VALUES (1, 'PENDING'), (2, 'PENDING')");
        calls.clear();
    }

    @AfterEach
    void tearDown() {
        if (orders != null) {
            db.dropTableIfExists(orders.table());
            db.dropTableIfExists(outbox.table());
            db.dropTableIfExists(ledger);
        }
    }

    private String status(long id) {
        return dsl.fetchValue("SELECT status FROM " + orders.table() + " WHERE id = ?", id)
                .toString();
    }

    private int count(String table) {
        return dsl.fetchCount(DSL.table(table));
    }

    private void paidWithLedgerAndMessage(DSLContext tx, long id) {
        assertInstanceOf(
                TransitionResult.Applied.class,
                orders.transition(id, Pay.PENDING, Pay.PAID).apply());
        tx.execute("INSERT INTO " + ledger + " (order_id) VALUES (?)", id);
        outbox.enqueue(Message.of("payment.paid", Long.toString(id)));
    }

    @Test
    void operationsCommitWithJooqsTransactionAndListenersWaitForIt() {
        int before = dataSource.borrowed.get();
        List<String> seenInside = dsl.transactionResult(cfg -> {
            paidWithLedgerAndMessage(cfg.dsl(), 1);
            return List.copyOf(calls);
        });
        assertEquals(1, dataSource.borrowed.get() - before, "connections borrowed by the transaction");
        assertEquals(List.of(), seenInside);
        assertEquals(List.of("transition 1"), calls);
        assertEquals("PAID", status(1));
        assertEquals(1, count(ledger));
        assertEquals(1, count(outbox.table()));
    }

    @Test
    void operationsRollBackWithJooqsTransaction() {
        int before = dataSource.borrowed.get();
        assertThrows(
                IllegalStateException.class,
                () -> dsl.transaction(cfg -> {
                    paidWithLedgerAndMessage(cfg.dsl(), 1);
                    throw new IllegalStateException("the service fails after its writes");
                }));
        assertEquals(1, dataSource.borrowed.get() - before, "connections borrowed by the transaction");
        assertEquals(List.of(), calls);
        assertEquals("PENDING", status(1));
        assertEquals(0, count(ledger));
        assertEquals(0, count(outbox.table()));
    }

    @Test
    void aNestedTransactionRolledBackToItsSavepointDropsItsWritesAndListenerCalls() {
        dsl.transaction(cfg -> {
            paidWithLedgerAndMessage(cfg.dsl(), 1);
            assertThrows(IllegalStateException.class, () -> cfg.dsl().transaction(inner -> {
                paidWithLedgerAndMessage(inner.dsl(), 2);
                throw new IllegalStateException("the nested part fails");
            }));
        });
        assertEquals(List.of("PAID", "PENDING"), List.of(status(1), status(2)));
        assertEquals(1, count(ledger));
        assertEquals(1, count(outbox.table()));
        assertEquals(List.of("transition 1"), calls);
    }

    @Test
    void outsideATransactionBatonRunsItsOwn() {
        assertInstanceOf(
                TransitionResult.Applied.class,
                orders.transition(1, Pay.PENDING, Pay.PAID).apply());
        assertEquals(List.of("transition 1"), calls);
        assertEquals("PAID", status(1));
    }

    /**
     * JOOQ calls {@code commitEnd} also when the COMMIT failed; the listener calls of the
     * transaction were run then, for writes that were rolled back. PostgreSQL: a deferred unique key fails the COMMIT;
     * both servers: the session is killed before the COMMIT.
     */
    @Test
    void listenersNeverFireWhenTheCommitFails() {
        if (db.kind() == DatabaseKind.POSTGRES) {
            String deferred = ledger + "_d";
            db.execute("CREATE TABLE " + deferred + " (k INT, CONSTRAINT " + deferred
                    + "_k UNIQUE (k) DEFERRABLE INITIALLY DEFERRED)");
            try {
                assertThrows(
                        org.jooq.exception.DataAccessException.class,
                        () -> dsl.transaction(cfg -> {
                            paidWithLedgerAndMessage(cfg.dsl(), 1);
                            cfg.dsl().execute("INSERT INTO " + deferred + " (k) VALUES (1), (1)");
                        }));
            } finally {
                db.dropTableIfExists(deferred);
            }
            assertEquals("PENDING", status(1));
            assertEquals(List.of(), calls, "listener calls for a transaction whose COMMIT failed");
        }
        assertThrows(
                RuntimeException.class,
                () -> dsl.transaction(cfg -> {
                    paidWithLedgerAndMessage(cfg.dsl(), 2);
                    cfg.dsl().connection(c -> {
                        try (Connection admin = db.connect()) {
                            db.kind().terminate(c, admin);
                        }
                    });
                }));
        assertEquals("PENDING", status(2));
        assertEquals(0, count(outbox.table()));
        assertEquals(List.of(), calls, "listener calls for a transaction whose COMMIT failed");
    }

    /** JOOQ's default provider, failing where a test says: a nested commit (savepoint release), or every begin. */
    static final class Failing implements TransactionProvider {
        final TransactionProvider delegate;
        final boolean nestedCommit;
        final boolean begin;
        int depth;

        Failing(DataSource dataSource, boolean nestedCommit, boolean begin) {
            this.delegate = new DefaultTransactionProvider(new DataSourceConnectionProvider(dataSource));
            this.nestedCommit = nestedCommit;
            this.begin = begin;
        }

        @Override
        public void begin(TransactionContext ctx) {
            if (begin) {
                throw new org.jooq.exception.DataAccessException("begin refused");
            }
            delegate.begin(ctx);
            depth++;
        }

        @Override
        public void commit(TransactionContext ctx) {
            if (nestedCommit && depth > 1) {
                throw new org.jooq.exception.DataAccessException("savepoint release refused");
            }
            delegate.commit(ctx);
            depth--;
        }

        @Override
        public void rollback(TransactionContext ctx) {
            if (depth > 0) {
                delegate.rollback(ctx);
                depth--;
            }
        }
    }

    private DSLContext dsl(TransactionProvider provider) {
        return DSL.using(new DefaultConfiguration()
                .set(dataSource)
                .set(provider)
                .set(db.kind() == DatabaseKind.POSTGRES ? SQLDialect.POSTGRES : SQLDialect.MARIADB)
                .set(JooqTransactions.listener(dataSource)));
    }

    /**
     * A nested commit that fails is followed by a rollback to its savepoint; the listener
     * popped the nested entry at the commit and the outer one at the rollback, so Baton's later operations in the
     * still open outer transaction ran on a connection of their own, and the nested calls were reported.
     */
    @Test
    void aFailedNestedCommitLeavesTheOuterTransactionJoined() {
        DSLContext failing = dsl(new Failing(dataSource, true, false));
        int before = dataSource.borrowed.get();
        failing.transaction(cfg -> {
            assertThrows(org.jooq.exception.DataAccessException.class, () -> cfg.dsl()
                    .transaction(inner -> paidWithLedgerAndMessage(inner.dsl(), 1)));
            paidWithLedgerAndMessage(cfg.dsl(), 2);
        });
        assertEquals(1, dataSource.borrowed.get() - before, "connections borrowed by the transaction");
        assertEquals(List.of("PENDING", "PAID"), List.of(status(1), status(2)));
        assertEquals(List.of("transition 2"), calls);
    }

    /** A begin that fails makes the listener take no connection and leave nothing open. */
    @Test
    void aFailedBeginTakesNoConnection() {
        DSLContext failing = dsl(new Failing(dataSource, false, true));
        int before = dataSource.borrowed.get();
        assertThrows(
                org.jooq.exception.DataAccessException.class,
                () -> failing.transaction(cfg -> paidWithLedgerAndMessage(cfg.dsl(), 1)));
        assertEquals(0, dataSource.borrowed.get() - before, "connections borrowed by a transaction that never began");
        assertInstanceOf(
                TransitionResult.Applied.class,
                orders.transition(1, Pay.PENDING, Pay.PAID).apply());
        assertEquals(List.of("transition 1"), calls, "outside the failed transaction, at once");
    }
}
