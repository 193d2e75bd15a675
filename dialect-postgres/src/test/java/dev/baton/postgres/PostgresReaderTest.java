package dev.baton.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.Condition;
import dev.baton.LeaseResult;
import dev.baton.Outcome;
import dev.baton.QueueHealth;
import dev.baton.SendDurability;
import dev.baton.StateTable;
import dev.baton.testkit.compat.JobsTable;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestServer;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A reader data source ({@code Baton.Builder.reader}) on the streaming standby of a
 * PostgreSQL primary. Inspection (health, dead-letter lists and counts) reads the standby, which refuses every write;
 * claims, completions and dead letters borrow only from the writer; the send durability detail of health is the
 * writer's (the standby has no standbys of its own).
 */
class PostgresReaderTest {

    @Test
    void inspectionReadsTheStandbyAndDecisionsStayOnTheWriter() throws Exception {
        TestDatabase db = TestServer.POSTGRES_STREAMING_ASYNC.get();
        String readerUrl = db.jdbcUrl().replace("targetServerType=primary", "targetServerType=secondary");
        assertNotEquals(db.jdbcUrl(), readerUrl, "the cluster's URL names the writer with targetServerType=primary");
        Counting writer = new Counting(db::dataSource);
        Counting reader = new Counting(() -> new UrlDataSource(readerUrl, db.user()));
        try (Connection c = reader.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_is_in_recovery()")) {
            assertTrue(rs.next() && rs.getBoolean(1), "the reader is a standby");
        }
        JobsTable jobs = JobsTable.create(db, "reader", true);
        try {
            jobs.insert(1, 10, Payment.PAID);
            Baton baton = Baton.builder(writer).reader(reader).build();
            ClaimQueue<Sync> queue = queue(baton, jobs.name(), SendDurability.OFF);
            int readerBefore = reader.borrowed.get();

            List<ClaimedRow<Sync>> rows = queue.claim(4);
            assertEquals(4, rows.size());
            for (ClaimedRow<Sync> row : rows.subList(0, 2)) {
                assertInstanceOf(LeaseResult.Done.class, queue.apply(row, Outcome.deadLetter("poison")));
            }
            queue.reclaimExpired();
            assertEquals(readerBefore, reader.borrowed.get(), "no decision borrowed from the reader");

            int writerBefore = writer.borrowed.get();
            QueueHealth h = await(queue, health -> health.dead() == 2 && health.inFlight() == 2);
            assertEquals(6, h.eligible(), h.toString());
            assertEquals(-1, h.failoverStandbys(), "OFF: the standbys are not asked");
            assertNull(h.sendDurabilityProblem());
            assertEquals(2, queue.deadLetters().count(100));
            assertEquals(2, queue.deadLetters().list(10).size());
            assertEquals(writerBefore, writer.borrowed.get(), "inspection borrowed from the writer");
            assertTrue(reader.borrowed.get() > readerBefore, "inspection read the reader");

            // the durability detail is the writer's: the standby itself has no standby
            ClaimQueue<Sync> durable = queue(baton, jobs.name(), SendDurability.REQUIRE);
            QueueHealth d = durable.health();
            assertEquals(1, d.failoverStandbys(), d.toString());
            assertNull(d.sendDurabilityProblem(), d.toString());
        } finally {
            jobs.drop();
        }
    }

    private static QueueHealth await(ClaimQueue<Sync> queue, java.util.function.Predicate<QueueHealth> done)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        QueueHealth h = queue.health();
        while (!done.test(h)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the standby did not show the writer's changes within 20 s: " + h);
            }
            Thread.sleep(20);
            h = queue.health();
        }
        return h;
    }

    private static ClaimQueue<Sync> queue(Baton baton, String table, SendDurability durability) {
        StateTable<Payment> payments = baton.table(table).state("payment_status", Payment.MACHINE);
        return baton.<Sync>queue("reader-" + durability + "-" + table)
                .table(table)
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .eligibleWhen(payments.is(Payment.PAID), Condition.isNull("third_party_guid"))
                .deadState(Sync.FAILED)
                .nonIdempotentSink(Sync.SENDING, Sync.UNKNOWN)
                .sendDurability(durability, Duration.ofSeconds(1))
                .lease(Duration.ofMinutes(1))
                .build();
    }

    /** Counts the connections borrowed from a data source made on first use. */
    private static final class Counting implements DataSource {
        final AtomicInteger borrowed = new AtomicInteger();
        private final Supplier<DataSource> target;

        Counting(Supplier<DataSource> target) {
            this.target = target;
        }

        @Override
        public Connection getConnection() throws SQLException {
            borrowed.incrementAndGet();
            return target.get().getConnection();
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            borrowed.incrementAndGet();
            return target.get().getConnection(user, password);
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {}

        @Override
        public void setLoginTimeout(int seconds) {}

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() {
            return Logger.getGlobal();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return false;
        }
    }

    /** Connections from {@link DriverManager}, one per call. */
    private record UrlDataSource(String url, String user) implements DataSource {
        @Override
        public Connection getConnection() throws SQLException {
            return DriverManager.getConnection(url, user, null);
        }

        @Override
        public Connection getConnection(String u, String p) throws SQLException {
            return DriverManager.getConnection(url, u, p);
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {}

        @Override
        public void setLoginTimeout(int seconds) {}

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() {
            return Logger.getGlobal();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return false;
        }
    }
}
