package dev.baton.spring.boot;

import dev.baton.StateMachine;
import dev.baton.testservers.DatabaseKind;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;

/** A test table of orders: a payment state, and a sync state claimed by a queue. */
final class Orders implements AutoCloseable {
    enum Pay {
        PENDING,
        PAID,
        EXPIRED;

        static final StateMachine<Pay> MACHINE = StateMachine.of(Pay.class)
                .storedAs(Pay::ordinal)
                .initial(PENDING)
                .allow(PENDING, PAID, EXPIRED)
                .terminal(PAID, EXPIRED)
                .build();
    }

    enum Sync {
        PENDING,
        PROCESSING,
        COMPLETED,
        FAILED;

        static final StateMachine<Sync> MACHINE = StateMachine.of(Sync.class)
                .storedAs(Sync::ordinal)
                .initial(PENDING)
                .allow(PENDING, PROCESSING)
                .allow(PROCESSING, PENDING, COMPLETED, FAILED)
                .terminal(COMPLETED, FAILED)
                .build();
    }

    final TestDatabase db;
    final String table;
    final String outbox;

    Orders(TestDatabase db) {
        this.db = db;
        this.table = TestDatabases.uniqueName("orders");
        this.outbox = TestDatabases.uniqueName("outbox");
        String ts = db.kind() == DatabaseKind.POSTGRES ? "TIMESTAMPTZ" : "TIMESTAMP(6)";
        String now = db.kind() == DatabaseKind.POSTGRES ? "CURRENT_TIMESTAMP" : "CURRENT_TIMESTAMP(6)";
        db.execute("CREATE TABLE " + table + " (id BIGINT NOT NULL PRIMARY KEY,"
                + " payment_status INT NOT NULL DEFAULT 0, payment_transaction_id VARCHAR(64) NULL,"
                + " created_at " + ts + " NOT NULL DEFAULT " + now + ", paid_at " + ts + " NULL,"
                + " sync_status INT NOT NULL DEFAULT 0, third_party_guid VARCHAR(64) NULL,"
                + " lease_until " + ts + " NULL, claim_token BIGINT NULL, attempts INT NOT NULL DEFAULT 0,"
                + " next_attempt_at " + ts + " NULL, last_error VARCHAR(1000) NULL)");
    }

    void insert(long id, Pay pay) {
        db.execute("INSERT INTO " + table + " (id, payment_status) VALUES (" + id + ", " + pay.ordinal() + ")");
    }

    /** An order created {@code minutes} ago by the database clock. */
    void insertAged(long id, Pay pay, int minutes) {
        String created = db.kind() == DatabaseKind.POSTGRES
                ? "CURRENT_TIMESTAMP - INTERVAL '" + minutes + " minutes'"
                : "CURRENT_TIMESTAMP(6) - INTERVAL " + minutes + " MINUTE";
        db.execute("INSERT INTO " + table + " (id, payment_status, created_at, paid_at) VALUES (" + id + ", "
                + pay.ordinal() + ", " + created + ", " + created + ")");
    }

    long count(String where) {
        return count(table, where);
    }

    long count(String anyTable, String where) {
        try (var c = db.connect();
                var s = c.createStatement();
                var rs = s.executeQuery("SELECT COUNT(*) FROM " + anyTable + " WHERE " + where)) {
            rs.next();
            return rs.getLong(1);
        } catch (java.sql.SQLException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public void close() {
        db.dropTableIfExists(table);
        db.dropTableIfExists(outbox);
    }
}
