package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.CommitDurability;
import dev.baton.CommitNotDurableException;
import dev.baton.Message;
import dev.baton.Outbox;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code Baton.Builder.commitDurability} without a failover, on one server: where a standby has the commits in time
 * ({@link #standbyHasCommits()}) {@code REQUIRE} answers as usual; where none can (no standby, or a database that
 * reports no replication progress) {@code REQUIRE} answers {@code InDoubt} for a transition and for {@code
 * transitionAndEnqueue}, throws {@code CommitNotDurableException} from {@code inTransaction}, with the change
 * committed on the writer every time, and {@code WARN} answers as usual; both tell the listeners.
 */
public abstract class AbstractCommitDurabilityTest extends DatabaseSuite {
    private TestDatabase db;
    private String orders;
    private String outboxTable;
    private final List<String> notDurable = new CopyOnWriteArrayList<>();

    /** True when a standby of the server flushes a commit within the wait (a streaming standby). */
    protected abstract boolean standbyHasCommits();

    /** How long a commit waits for a standby; long enough for a streaming standby on a loaded machine. */
    protected Duration maxWait() {
        return standbyHasCommits() ? Duration.ofSeconds(10) : Duration.ofMillis(50);
    }

    @Override
    protected void setUp() {
        db = database();
    }

    @BeforeEach
    void tables() {
        orders = TestDatabases.uniqueName("cd_orders");
        outboxTable = TestDatabases.uniqueName("cd_outbox");
        db.execute("CREATE TABLE " + orders + " (id BIGINT PRIMARY KEY, payment_status INT NOT NULL)");
        db.execute("INSERT INTO " + orders + " (id, payment_status) VALUES (1, 0), (2, 0), (3, 0), (4, 2)");
        notDurable.clear();
    }

    @AfterEach
    void drop() {
        db.dropTableIfExists(orders);
        db.dropTableIfExists(outboxTable);
    }

    private Baton baton(CommitDurability policy) {
        return Baton.builder(db.dataSource())
                .commitDurability(policy, maxWait())
                .listener(new BatonListener() {
                    @Override
                    public void onCommitNotDurable(String operation, CommitDurability p, String reason) {
                        notDurable.add(p + " " + operation + ": " + reason);
                    }
                })
                .build();
    }

    private StateTable<Payment> payments(Baton baton) {
        return baton.table(orders).state("payment_status", Payment.MACHINE);
    }

    private int status(long id) {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT payment_status FROM " + orders + " WHERE id = " + id)) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void requireAnswersAnAppliedTransitionOnlyOnceAStandbyHasIt() {
        TransitionResult<Payment> r = payments(baton(CommitDurability.REQUIRE))
                .transition(1L, Payment.PENDING, Payment.PAID)
                .apply();

        assertEquals(Payment.PAID.code(), status(1), "committed on the writer either way");
        if (standbyHasCommits()) {
            assertInstanceOf(TransitionResult.Applied.class, r);
            assertEquals(List.of(), notDurable);
        } else {
            TransitionResult.InDoubt<?> d = assertInstanceOf(TransitionResult.InDoubt.class, r);
            assertEquals(Payment.PAID, d.state());
            assertTrue(d.reason().contains("applied on the writer, not known durable"), d.reason());
            assertTrue(d.notKnownDurable(), d.reason());
            assertEquals(1, notDurable.size(), notDurable.toString());
            assertTrue(notDurable.get(0).startsWith("REQUIRE "), notDurable.toString());
        }
    }

    @Test
    void requireAlsoHoldsBackADuplicateThatFindsTheRowInTheTarget() {
        StateTable<Payment> payments = payments(baton(CommitDurability.REQUIRE));
        payments.transition(1L, Payment.PENDING, Payment.PAID).apply();

        TransitionResult<Payment> again =
                payments.transition(1L, Payment.PENDING, Payment.PAID).apply();

        if (standbyHasCommits()) {
            assertInstanceOf(TransitionResult.AlreadyInTarget.class, again);
        } else {
            assertTrue(assertInstanceOf(TransitionResult.InDoubt.class, again).notKnownDurable());
        }
    }

    @Test
    void warnAnswersAsUsualAndTellsTheListeners() {
        TransitionResult<Payment> r = payments(baton(CommitDurability.WARN))
                .transition(1L, Payment.PENDING, Payment.PAID)
                .apply();

        assertInstanceOf(TransitionResult.Applied.class, r);
        assertEquals(Payment.PAID.code(), status(1));
        assertEquals(standbyHasCommits() ? 0 : 1, notDurable.size(), notDurable.toString());
        if (!standbyHasCommits()) {
            assertTrue(notDurable.get(0).startsWith("WARN "), notDurable.toString());
        }
    }

    @Test
    void aRejectedTransitionWaitsForNothing() {
        TransitionResult<Payment> r = payments(baton(CommitDurability.REQUIRE))
                .transition(4L, Payment.PENDING, Payment.PAID)
                .apply();

        assertInstanceOf(TransitionResult.Rejected.class, r);
        assertEquals(List.of(), notDurable);
    }

    @Test
    void offIsTheDefaultAndAsksNothing() {
        Baton baton = Baton.using(db.dataSource());
        assertInstanceOf(
                TransitionResult.Applied.class,
                payments(baton).transition(1L, Payment.PENDING, Payment.PAID).apply());
    }

    @Test
    void requireCoversTransitionAndEnqueue() {
        Baton baton = baton(CommitDurability.REQUIRE);
        baton.ownTables().createOutboxTable(outboxTable);
        Outbox outbox = baton.outbox(outboxTable);

        TransitionResult<Payment> r = outbox.transitionAndEnqueue(
                payments(baton).transition(2L, Payment.PENDING, Payment.PAID), Message.of("paid", "order 2"));

        assertEquals(Payment.PAID.code(), status(2));
        assertEquals(1, outboxRows(), "the message committed with the transition");
        if (standbyHasCommits()) {
            assertInstanceOf(TransitionResult.Applied.class, r);
            assertEquals(List.of(), notDurable);
        } else {
            TransitionResult.InDoubt<?> d = assertInstanceOf(TransitionResult.InDoubt.class, r);
            assertTrue(d.reason().contains("not known durable"), d.reason());
            assertEquals(1, notDurable.size(), notDurable.toString());
        }
    }

    @Test
    void aRejectedTransitionAndEnqueueWaitsForNothing() {
        Baton baton = baton(CommitDurability.REQUIRE);
        baton.ownTables().createOutboxTable(outboxTable);

        TransitionResult<Payment> r = baton.outbox(outboxTable)
                .transitionAndEnqueue(
                        payments(baton).transition(4L, Payment.PENDING, Payment.PAID), Message.of("paid", "order 4"));

        assertInstanceOf(TransitionResult.Rejected.class, r);
        assertEquals(0, outboxRows());
        assertEquals(List.of(), notDurable);
    }

    @Test
    void requireCoversInTransactionOnceAtItsCommit() {
        Baton baton = baton(CommitDurability.REQUIRE);
        StateTable<Payment> payments = payments(baton);

        if (standbyHasCommits()) {
            TransitionResult<Payment> r = baton.inTransaction(
                    c -> payments.transition(3L, Payment.PENDING, Payment.PAID).apply());
            assertInstanceOf(TransitionResult.Applied.class, r);
            assertEquals(List.of(), notDurable);
        } else {
            CommitNotDurableException e = assertThrows(
                    CommitNotDurableException.class,
                    () -> baton.inTransaction(c -> payments.transition(3L, Payment.PENDING, Payment.PAID)
                            .apply()));
            assertInstanceOf(TransitionResult.Applied.class, e.result(), "what the committed work returned");
            assertTrue(e.getMessage().contains("not known durable"), e.getMessage());
            assertEquals(1, notDurable.size(), "one wait, at the transaction's commit: " + notDurable);
        }
        assertEquals(Payment.PAID.code(), status(3));
    }

    @Test
    void warnLetsInTransactionReturn() {
        Baton baton = baton(CommitDurability.WARN);
        StateTable<Payment> payments = payments(baton);

        TransitionResult<Payment> r = baton.inTransaction(
                c -> payments.transition(3L, Payment.PENDING, Payment.PAID).apply());

        assertInstanceOf(TransitionResult.Applied.class, r);
        assertEquals(standbyHasCommits() ? 0 : 1, notDurable.size(), notDurable.toString());
    }

    private int outboxRows() {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + outboxTable)) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }
}
