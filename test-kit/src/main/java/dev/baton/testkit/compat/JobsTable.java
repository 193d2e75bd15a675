package dev.baton.testkit.compat;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.testservers.DatabaseKind;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The orders table of seed 000 as a claim queue sees it: payment status, sync status, the third party's id, and the
 * queue's bookkeeping columns, with an index that serves the claim. Each instance has its own table name.
 */
public final class JobsTable {
    private final TestDatabase db;
    private final String name;

    private JobsTable(TestDatabase db, String name) {
        this.db = db;
        this.name = name;
    }

    /** Creates a fresh table (with the claim index when {@code indexed}). */
    public static JobsTable create(TestDatabase db, String prefix, boolean indexed) {
        JobsTable t = new JobsTable(db, TestDatabases.uniqueName(prefix));
        DatabaseKind k = db.kind();
        String ts = k.timestampType();
        db.execute("CREATE TABLE " + t.name + " (id BIGINT NOT NULL PRIMARY KEY, payment_status INT NOT NULL,"
                + " sync_status INT NOT NULL, third_party_guid VARCHAR(64) NULL, lease_until " + ts + ","
                + " claim_token BIGINT NULL, attempts INT DEFAULT 0 NOT NULL, next_attempt_at " + ts + ","
                + " last_error VARCHAR(1000) NULL, created_at " + ts + ", payload VARCHAR(100) NULL)");
        if (indexed) {
            db.execute("CREATE INDEX ix_" + t.name + "_claim ON " + t.name + " (sync_status, payment_status, id)");
        }
        return t;
    }

    /** The table name. */
    public String name() {
        return name;
    }

    /** Inserts rows {@code firstId .. firstId+count-1} with the given payment state, sync PENDING. */
    public void insert(long firstId, int count, Payment payment) {
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + name
                    + " (id, payment_status, sync_status, attempts, payload, created_at) VALUES (?, ?, 0, 0, ?, "
                    + db.kind().now() + ")")) {
                for (int i = 0; i < count; i++) {
                    ps.setLong(1, firstId + i);
                    ps.setInt(2, payment.code());
                    ps.setString(3, "p" + (firstId + i));
                    ps.addBatch();
                    if (i % 1000 == 999) {
                        ps.executeBatch();
                    }
                }
                ps.executeBatch();
            }
            c.commit();
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    /** Rows per sync state. */
    public Map<Sync, Integer> countBySync() {
        Map<Sync, Integer> out = new HashMap<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT sync_status, COUNT(*) FROM " + name + " GROUP BY sync_status")) {
            while (rs.next()) {
                out.put(Sync.MACHINE.fromCode((long) rs.getInt(1)).orElseThrow(), rs.getInt(2));
            }
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
        return out;
    }

    /** One column of one row. */
    public Object get(long id, String column) {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("SELECT " + column + " FROM " + name + " WHERE id = ?")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new AssertionError("no row " + id);
                }
                return rs.getObject(1);
            }
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    /** The sync state of a row. */
    public Sync sync(long id) {
        return Sync.MACHINE
                .fromCode((long) ((Number) get(id, "sync_status")).intValue())
                .orElseThrow();
    }

    /** The seed's timer-job queue over this table: PAID orders without a GUID, PENDING → PROCESSING. */
    public ClaimQueue<Sync> queue(Baton baton, Duration lease) {
        return queue(baton, name, lease);
    }

    /** The seed's timer-job queue over a table made by {@link #create}. */
    public static ClaimQueue<Sync> queue(Baton baton, String name, Duration lease) {
        StateTableHolder holder = new StateTableHolder(baton, name);
        return baton.<Sync>queue("sync-" + name)
                .table(name)
                .id("id")
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .eligibleWhen(holder.payments.is(Payment.PAID), dev.baton.Condition.isNull("third_party_guid"))
                .select("payload")
                .deadState(Sync.FAILED)
                .lease(lease)
                .ageColumn("created_at")
                .build();
    }

    /** The same queue with a non-idempotent sink. */
    public ClaimQueue<Sync> sendingQueue(Baton baton, Duration lease) {
        return sendingQueue(baton, name, lease);
    }

    /** The seed's queue with a non-idempotent sink over a table made by {@link #create}. */
    public static ClaimQueue<Sync> sendingQueue(Baton baton, String name, Duration lease) {
        return sendingQueue(baton, name, lease, null);
    }

    /**
     * The seed's queue with a non-idempotent sink over a table made by {@link #create}, whose sends may take {@code
     * sendTimeout} (null: the default).
     */
    public static ClaimQueue<Sync> sendingQueue(Baton baton, String name, Duration lease, Duration sendTimeout) {
        StateTableHolder holder = new StateTableHolder(baton, name);
        dev.baton.ClaimQueueBuilder<Sync> b = baton.<Sync>queue("send-" + name)
                .table(name)
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .eligibleWhen(holder.payments.is(Payment.PAID), dev.baton.Condition.isNull("third_party_guid"))
                .deadState(Sync.FAILED)
                .nonIdempotentSink(Sync.SENDING, Sync.UNKNOWN)
                .lease(lease);
        if (sendTimeout != null) {
            b.sendTimeout(sendTimeout);
        }
        return b.build();
    }

    /** Drops the table. */
    public void drop() {
        db.dropTableIfExists(name);
    }

    private static final class StateTableHolder {
        final dev.baton.StateTable<Payment> payments;

        StateTableHolder(Baton baton, String table) {
            payments = baton.table(table).state("payment_status", Payment.MACHINE);
        }
    }
}
