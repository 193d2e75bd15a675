package dev.baton.examples.demo;

import dev.baton.examples.payment.ThirdParty;
import dev.baton.examples.support.DatabaseKind;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * The design seed 000 starts from, written the way it usually is: a boolean {@code paid} that means both "not yet"
 * and "failed"; a callback that reads, then writes; a timer job on every host that syncs every order without a GUID
 * (after a fixed delay, the usual band-aid) and saves the whole row back, ORM style. No claims, no guards.
 */
final class NaiveDesign {
    /** The band-aid: only sync orders older than this. */
    static final long GRACE_MILLIS = 1_000;

    private static final int BATCH = 50;

    private final String orders;
    private final String ledger;
    private final DatabaseKind kind;

    NaiveDesign(String suffix, DatabaseKind kind) {
        this.orders = "naive_orders_" + suffix;
        this.ledger = "naive_payment_ledger_" + suffix;
        this.kind = kind;
    }

    /** The orders table's name. */
    String ordersTable() {
        return orders;
    }

    void create(DataSource ds) throws SQLException {
        boolean pg = kind == DatabaseKind.POSTGRES;
        String ts = pg ? "TIMESTAMPTZ" : "TIMESTAMP(6)";
        String now = pg ? "CURRENT_TIMESTAMP" : "CURRENT_TIMESTAMP(6)";
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + orders + " (id BIGINT NOT NULL PRIMARY KEY, amount_cents BIGINT NOT NULL,"
                    + " paid BOOLEAN NOT NULL, payment_transaction_id VARCHAR(64) NULL,"
                    + " created_at " + ts + " NOT NULL DEFAULT " + now + ", paid_at " + ts + " NULL,"
                    + " third_party_guid VARCHAR(64) NULL)");
            s.execute("CREATE TABLE " + ledger + " (id BIGINT NOT NULL PRIMARY KEY, order_id BIGINT NOT NULL,"
                    + " entry_type VARCHAR(16) NOT NULL, amount_cents BIGINT NOT NULL)");
        }
    }

    void drop(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + orders);
            s.execute("DROP TABLE IF EXISTS " + ledger);
        }
    }

    void createOrder(DataSource ds, long id, long amountCents) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps =
                        c.prepareStatement("INSERT INTO " + orders + " (id, amount_cents, paid) VALUES (?, ?, ?)")) {
            ps.setLong(1, id);
            ps.setLong(2, amountCents);
            ps.setBoolean(3, false);
            ps.executeUpdate();
        }
    }

    /** Inserts {@code count} orders that are paid already, created long enough ago to be synced at once. */
    void insertPaidBacklog(DataSource ds, long firstId, int count) throws SQLException {
        String longAgo = kind == DatabaseKind.POSTGRES
                ? "CURRENT_TIMESTAMP - interval '1 hour'"
                : "TIMESTAMPADD(HOUR, -1, CURRENT_TIMESTAMP(6))";
        Backlog.insert(
                ds,
                "INSERT INTO " + orders + " (id, amount_cents, paid, payment_transaction_id, created_at, paid_at)"
                        + " VALUES (?, 100, TRUE, ?, " + longAgo + ", CURRENT_TIMESTAMP)",
                firstId,
                count);
    }

    /**
     * The gateway's callback: read, check, write.
     *
     * @return whether this call took the "not paid yet, so apply" branch; empty when the order is not there yet
     */
    Callback onCallback(DataSource ds, long orderId, String transactionId, AtomicLong ledgerIds) throws SQLException {
        try (Connection c = ds.getConnection()) {
            Boolean paid;
            long amount;
            try (PreparedStatement ps =
                    c.prepareStatement("SELECT paid, amount_cents FROM " + orders + " WHERE id = ?")) {
                ps.setLong(1, orderId);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Callback.NOT_FOUND;
                    }
                    paid = rs.getBoolean(1);
                    amount = rs.getLong(2);
                }
            }
            if (paid) {
                return Callback.ACKNOWLEDGED; // a duplicate, noticed in time
            }
            verifySignature(); // the work a real handler does between its read and its write
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + orders
                    + " SET paid = ?, payment_transaction_id = ?, paid_at = CURRENT_TIMESTAMP WHERE id = ?")) {
                ps.setBoolean(1, true);
                ps.setString(2, transactionId);
                ps.setLong(3, orderId);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO " + ledger + " (id, order_id, entry_type, amount_cents) VALUES (?, ?, ?, ?)")) {
                ps.setLong(1, ledgerIds.incrementAndGet());
                ps.setLong(2, orderId);
                ps.setString(3, "PAYMENT");
                ps.setLong(4, amount);
                ps.executeUpdate();
            }
            return Callback.APPLIED;
        }
    }

    /** What the naive callback did. */
    enum Callback {
        /** It marked the order paid and credited the ledger. */
        APPLIED,
        /** The order was already paid. */
        ACKNOWLEDGED,
        /** No such order yet. */
        NOT_FOUND
    }

    private static void verifySignature() {
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * One host's timer job: about every {@code pollMillis}, sync every order without a GUID older than the grace delay,
     * then save the row it read with the GUID.
     */
    Runnable timerJob(DataSource ds, ThirdParty thirdParty, AtomicBoolean stop, AtomicLong errors, long pollMillis) {
        String graceAgo = kind == DatabaseKind.POSTGRES
                ? "clock_timestamp() - interval '" + GRACE_MILLIS + " milliseconds'"
                : "TIMESTAMPADD(MICROSECOND, -" + GRACE_MILLIS * 1000 + ", CURRENT_TIMESTAMP(6))";
        String select = "SELECT id, amount_cents, paid, payment_transaction_id, paid_at FROM " + orders
                + " WHERE third_party_guid IS NULL AND created_at < " + graceAgo + " ORDER BY id LIMIT " + BATCH;
        String save = "UPDATE " + orders
                + " SET amount_cents = ?, paid = ?, payment_transaction_id = ?, paid_at = ?, third_party_guid = ?"
                + " WHERE id = ?";
        return () -> {
            while (!stop.get()) {
                int found = 0;
                try (Connection c = ds.getConnection()) {
                    List<Object[]> rows = new ArrayList<>();
                    try (PreparedStatement ps = c.prepareStatement(select)) {
                        try (ResultSet rs = ps.executeQuery()) {
                            while (rs.next()) {
                                rows.add(new Object[] {
                                    rs.getLong(1), rs.getLong(2), rs.getBoolean(3), rs.getString(4), rs.getObject(5)
                                });
                            }
                        }
                    }
                    found = rows.size();
                    for (Object[] row : rows) {
                        if (stop.get()) {
                            break;
                        }
                        long id = (Long) row[0];
                        String guid;
                        try {
                            guid = thirdParty.create(
                                    new ThirdParty.Record(id, (Boolean) row[2], (String) row[3], (Long) row[1]), null);
                        } catch (java.io.IOException e) {
                            errors.incrementAndGet();
                            continue;
                        }
                        try (PreparedStatement ps = c.prepareStatement(save)) { // the ORM's save(order)
                            ps.setLong(1, (Long) row[1]);
                            ps.setBoolean(2, (Boolean) row[2]);
                            ps.setString(3, (String) row[3]);
                            if (row[4] == null) {
                                ps.setNull(4, Types.TIMESTAMP);
                            } else {
                                ps.setObject(4, row[4]);
                            }
                            ps.setString(5, guid);
                            ps.setLong(6, id);
                            ps.executeUpdate();
                        }
                    }
                } catch (SQLException | RuntimeException e) {
                    errors.incrementAndGet();
                }
                if (found < BATCH) {
                    sleep(pollMillis / 2
                            + java.util.concurrent.ThreadLocalRandom.current().nextLong(pollMillis));
                }
            }
        };
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
