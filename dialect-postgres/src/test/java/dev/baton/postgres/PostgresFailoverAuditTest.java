package dev.baton.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.ConfigurationException;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import dev.baton.TransitionsInDoubt;
import dev.baton.spi.Dialect;
import dev.baton.testkit.compat.JobsTable;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.compat.TestEpochDialect;
import dev.baton.testkit.faults.Fault;
import dev.baton.testkit.faults.FaultPoint;
import dev.baton.testkit.faults.FaultyDataSource;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.sql.Connection;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The failover audit ({@link Baton.Builder#failoverAudit}) on the local
 * PostgreSQL, without a failover. A test dialect reports the writer's epoch, which the test turns after making with
 * plain SQL what a lossy promotion leaves behind: rows whose acknowledged transitions the new writer never saw (back in
 * the source state). Exactly those must be reported. The failover itself is {@link PostgresFailoverProcessTest}'s.
 */
class PostgresFailoverAuditTest {
    private static final String THREAD = "baton-failover-audit";

    private final AtomicReference<String> epoch = new AtomicReference<>("timeline 1");
    private final AtomicInteger epochReads = new AtomicInteger();
    private final BlockingQueue<TransitionsInDoubt> reports = new LinkedBlockingQueue<>();
    private TestDatabase db;
    private JobsTable payments;

    @BeforeEach
    void table() {
        db = TestDatabases.postgresLocal();
        payments = JobsTable.create(db, "pgf_audit", false);
        payments.insert(1, 20, Payment.PENDING);
    }

    @AfterEach
    void drop() {
        payments.drop();
    }

    @Test
    void exactlyTheTransitionsTheNewWriterLostAreReported() throws Exception {
        Baton baton = audited(db.dataSource());
        StateTable<Payment> table = baton.table(payments.name()).state("payment_status", Payment.MACHINE);
        awaitBaseline();
        for (long id = 1; id <= 10; id++) {
            assertInstanceOf(
                    TransitionResult.Applied.class,
                    table.transition(id, Payment.PENDING, Payment.PAID).apply());
        }
        // in Baton's own transaction: recorded once it committed
        baton.inTransaction(c -> {
            table.transition(11L, Payment.PENDING, Payment.PAID).apply();
            table.transition(12L, Payment.PENDING, Payment.PAID).apply();
            return null;
        });
        // on the caller's connection: Baton never sees that commit, so it is not recorded (documented)
        try (Connection c = db.connect()) {
            assertInstanceOf(
                    TransitionResult.Applied.class,
                    table.transition(13L, Payment.PENDING, Payment.PAID).apply(c));
        }
        // a rejected transition is not acknowledged: not recorded
        assertInstanceOf(
                TransitionResult.AlreadyInTarget.class,
                table.transition(1L, Payment.PENDING, Payment.PAID).apply());

        // the new writer never saw the transitions of rows 2, 5, 11 and 13; row 7 was moved on by someone else
        db.execute("UPDATE " + payments.name() + " SET payment_status = " + Payment.PENDING.code()
                + " WHERE id IN (2, 5, 11, 13)");
        db.execute("UPDATE " + payments.name() + " SET payment_status = " + Payment.EXPIRED.code() + " WHERE id = 7");
        epoch.set("timeline 2");

        TransitionsInDoubt report = reports.poll(10, TimeUnit.SECONDS);
        assertNotNull(report, "the audit reported the epoch change");
        assertEquals(payments.name(), report.table());
        assertEquals("timeline 1", report.from());
        assertEquals("timeline 2", report.to());
        assertEquals(12, report.recorded(), report.toString());
        assertEquals(3, report.lost(), report.toString());
        assertEquals(Set.of(2L, 5L, 11L), new HashSet<>(report.lostIds()), report.toString());
        assertEquals(0, report.untracked());
        assertNull(reports.poll(1_500, TimeUnit.MILLISECONDS), "one report per table and change");

        // transitions applied on the new writer are looked up at the next change, not those of the last one
        assertInstanceOf(
                TransitionResult.Applied.class,
                table.transition(14L, Payment.PENDING, Payment.PAID).apply());
        epoch.set("timeline 3");
        TransitionsInDoubt next = reports.poll(10, TimeUnit.SECONDS);
        assertNotNull(next);
        assertEquals("timeline 2", next.from());
        assertEquals(1, next.recorded(), next.toString());
        assertEquals(0, next.lost(), next.toString());
    }

    @Test
    void nothingLostIsReportedAsNothingAndNoThreadRunsWithoutTheOptionOrAnEpoch() throws Exception {
        Baton baton = audited(db.dataSource());
        StateTable<Payment> table = baton.table(payments.name()).state("payment_status", Payment.MACHINE);
        awaitBaseline();
        for (long id = 1; id <= 5; id++) {
            table.transition(id, Payment.PENDING, Payment.PAID).apply();
        }
        epoch.set("timeline 2");
        TransitionsInDoubt report = reports.poll(10, TimeUnit.SECONDS);
        assertNotNull(report);
        assertEquals(5, report.recorded(), report.toString());
        assertEquals(0, report.lost(), report.toString());
        assertEquals(List.of(), report.lostIds());

        Set<Thread> before = auditThreads();
        Baton.builder(db.dataSource()).dialect(withEpoch(new PostgresDialect())).build();
        assertEquals(Set.of(), started(before), "no option: no thread");
        Baton.builder(db.dataSource())
                .dialect(withoutEpoch(new PostgresDialect()))
                .failoverAudit(Duration.ofSeconds(60))
                .build();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!started(before).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertEquals(Set.of(), started(before), "no epoch: the thread ended after its first reads");
        assertThrows(ConfigurationException.class, () -> Baton.builder(db.dataSource())
                .failoverAudit(Duration.ofMillis(999)));
        assertThrows(ConfigurationException.class, () -> Baton.builder(db.dataSource())
                .failoverAudit(Duration.ofHours(2)));
    }

    @Test
    void aLostReplyOnTheLookUpDoesNotMiscount() throws Exception {
        FaultyDataSource faults = new FaultyDataSource(db);
        Baton baton = audited(faults);
        StateTable<Payment> table = baton.table(payments.name()).state("payment_status", Payment.MACHINE);
        awaitBaseline();
        for (long id = 1; id <= 8; id++) {
            table.transition(id, Payment.PENDING, Payment.PAID).apply();
        }
        db.execute("UPDATE " + payments.name() + " SET payment_status = " + Payment.PENDING.code()
                + " WHERE id IN (1, 3, 4, 8)");
        // the look-up's reply is lost: the read ran, the connection is gone; the retry reads again on a new one
        faults.arm(Fault.whenSql(
                FaultPoint.LOST_REPLY,
                s -> s.startsWith("SELECT") && s.contains(" IN (") && s.contains("payment_status")));
        epoch.set("timeline 2");
        TransitionsInDoubt report = reports.poll(10, TimeUnit.SECONDS);
        assertTrue(faults.fired().isPresent(), "the look-up's reply was lost: " + faults.steps());
        faults.disarm();
        assertNotNull(report);
        assertEquals(8, report.recorded(), report.toString());
        assertEquals(4, report.lost(), report.toString());
        assertEquals(Set.of(1L, 3L, 4L, 8L), new HashSet<>(report.lostIds()), report.toString());
        assertNull(reports.poll(1_500, TimeUnit.MILLISECONDS), "one report");
    }

    private Baton audited(javax.sql.DataSource dataSource) {
        return Baton.builder(dataSource)
                .dialect(withEpoch(new PostgresDialect()))
                .failoverAudit(Duration.ofSeconds(60))
                .listener(new BatonListener() {
                    @Override
                    public void onTransitionsInDoubt(TransitionsInDoubt report) {
                        reports.add(report);
                    }
                })
                .build();
    }

    /** Waits until the audit read the first epoch: a change before that read would be its baseline. */
    private void awaitBaseline() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (epochReads.get() == 0) {
            assertTrue(System.nanoTime() < deadline, "the audit read no epoch");
            Thread.sleep(20);
        }
    }

    private static Set<Thread> auditThreads() {
        Set<Thread> out = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals(THREAD) && t.isAlive()) {
                out.add(t);
            }
        }
        return out;
    }

    /** Audit threads alive now that were not in {@code before}. */
    private static Set<Thread> started(Set<Thread> before) {
        Set<Thread> now = auditThreads();
        now.removeAll(before);
        return now;
    }

    /** The PostgreSQL dialect, but the writer's epoch is {@link #epoch}'s value; reads counted. */
    private Dialect withEpoch(Dialect real) {
        return TestEpochDialect.of(real, () -> {
            epochReads.incrementAndGet();
            return Optional.of(epoch.get());
        });
    }

    private static Dialect withoutEpoch(Dialect real) {
        return TestEpochDialect.of(real, Optional::empty);
    }
}
