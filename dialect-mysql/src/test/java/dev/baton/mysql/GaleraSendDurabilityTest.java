package dev.baton.mysql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.Condition;
import dev.baton.ConfigurationException;
import dev.baton.LeaseResult;
import dev.baton.Outcome;
import dev.baton.QueueHealth;
import dev.baton.SchemaMismatchException;
import dev.baton.SendDurability;
import dev.baton.SendNotDurableException;
import dev.baton.StateTable;
import dev.baton.testkit.compat.JobsTable;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Contract items 5 and 7 on Galera: a commit on a synced node of a primary component of two or more is held by the
 * other nodes when {@code COMMIT} returns, so {@code sendDurability(REQUIRE)} lets sends go on the three-node cluster
 * ({@code MARIADB_GALERA}); a standalone MariaDB (the shared local server, only read here) has no semi-synchronous
 * replica, so REQUIRE refuses and {@code health()} and {@code verify()} say why. A Galera session without the read bit of {@code
 * wsrep_sync_wait} is refused when Baton detects the dialect.
 */
class GaleraSendDurabilityTest {
    private static final Duration WAIT = Duration.ofSeconds(5);

    @Test
    void onTheThreeNodeClusterRequireSendsEveryRow() {
        TestDatabase db = TestServer.MARIADB_GALERA.get();
        JobsTable jobs = JobsTable.create(db, "galera_durable", true);
        try {
            int rows = 50;
            jobs.insert(1, rows, Payment.PAID);
            ClaimQueue<Sync> q = queue(Baton.using(db.dataSource()), jobs.name(), SendDurability.REQUIRE);
            QueueHealth h = q.health();
            assertEquals(2, h.failoverStandbys(), h.toString());
            assertNull(h.sendDurabilityProblem(), h.toString());
            q.verify();
            int sent = 0;
            for (ClaimedRow<Sync> row : q.claim(rows)) {
                assertInstanceOf(LeaseResult.Done.class, q.markSending(row));
                sent++;
                assertInstanceOf(LeaseResult.Done.class, q.apply(row, Outcome.complete(Sync.COMPLETED)));
            }
            assertEquals(rows, sent);
            assertEquals(Map.of(Sync.COMPLETED, rows), jobs.countBySync());
        } finally {
            jobs.drop();
        }
    }

    @Test
    void onAStandaloneMariaDbRequireRefusesAndHealthAndVerifySayWhy() {
        TestDatabase db = TestServer.MARIADB_LOCAL.get();
        JobsTable jobs = JobsTable.create(db, "galera_durable", true);
        try {
            jobs.insert(1, 1, Payment.PAID);
            ClaimQueue<Sync> q = queue(Baton.using(db.dataSource()), jobs.name(), SendDurability.REQUIRE);
            QueueHealth h = q.health();
            // a MariaDB without Galera reports its semi-synchronous replicas: none here
            assertEquals(0, h.failoverStandbys(), h.toString());
            assertTrue(h.sendDurabilityProblem().contains("no standby streams"), h.toString());
            SchemaMismatchException e = assertThrows(SchemaMismatchException.class, q::verify);
            assertTrue(e.getMessage().contains("every send is refused"), e.getMessage());

            ClaimedRow<Sync> row = q.claim(1).get(0);
            SendNotDurableException refused = assertThrows(SendNotDurableException.class, () -> q.markSending(row));
            assertTrue(
                    refused.getMessage().contains("does not report replication progress") // no binary log
                            || refused.getMessage().contains("no standby had flushed"), // no semi-sync replica
                    refused.getMessage());
            assertEquals(Sync.SENDING, jobs.sync(1), "the mark is committed, only not known durable");
        } finally {
            jobs.drop();
        }
    }

    /** The read bit of {@code wsrep_sync_wait}, checked per session on a Galera node only. */
    @Test
    void aGaleraSessionWithoutTheReadBitOfSyncWaitIsReported() throws SQLException {
        TestServer.MARIADB_GALERA.get();
        MySqlDiagnostics diagnostics = new MySqlDiagnostics();
        try (Connection c =
                        dev.baton.testservers.TestDatabases.mariadbGaleraNode(2).connect();
                Statement s = c.createStatement()) {
            assertEquals(List.of(), diagnostics.sessionProblems(c), "wsrep_sync_wait=3");
            for (int value : new int[] {0, 2, 6}) {
                s.execute("SET SESSION wsrep_sync_wait = " + value);
                List<String> problems = diagnostics.sessionProblems(c);
                assertEquals(1, problems.size(), value + ": " + problems);
                assertTrue(problems.get(0).contains("wsrep_sync_wait is " + value), problems.get(0));
            }
            s.execute("SET SESSION wsrep_sync_wait = 1");
            assertEquals(List.of(), diagnostics.sessionProblems(c));
        }
        try (Connection c = TestServer.MARIADB_LOCAL.get().connect()) {
            assertEquals(List.of(), diagnostics.sessionProblems(c), "not a Galera node");
        }
    }

    /** Baton refuses to start on a Galera data source whose sessions read without waiting. */
    @Test
    void batonRefusesAGaleraDataSourceWithoutTheReadBit() {
        TestDatabase db = TestServer.MARIADB_GALERA.get();
        try (HikariDataSource pool = new HikariDataSource()) {
            pool.setJdbcUrl(db.jdbcUrl().replace("wsrep_sync_wait=3", "wsrep_sync_wait=0"));
            pool.setUsername(db.user());
            pool.setPassword(db.password());
            pool.setMaximumPoolSize(2);
            ConfigurationException e = assertThrows(ConfigurationException.class, () -> Baton.using(pool));
            assertTrue(e.getMessage().contains("wsrep_sync_wait is 0"), e.getMessage());
        }
    }

    /**
     * A dialect given explicitly skips the detection and its session check; {@code verify()} of a state table and of a
     * queue repeats it.
     */
    @Test
    void verifyReportsAGaleraSessionWithoutTheReadBit() {
        TestDatabase db = TestServer.MARIADB_GALERA.get();
        JobsTable jobs = JobsTable.create(db, "g2_verify_sync_wait", true);
        try (HikariDataSource pool = new HikariDataSource()) {
            pool.setJdbcUrl(db.jdbcUrl().replace("wsrep_sync_wait=3", "wsrep_sync_wait=0"));
            pool.setUsername(db.user());
            pool.setPassword(db.password());
            pool.setMaximumPoolSize(2);
            Baton stale = Baton.builder(pool).dialect(new MySqlDialect()).build();
            StateTable<Payment> payments = stale.table(jobs.name()).state("payment_status", Payment.MACHINE);
            SchemaMismatchException e = assertThrows(SchemaMismatchException.class, payments::verify);
            assertTrue(e.getMessage().contains("wsrep_sync_wait is 0"), e.getMessage());
            e = assertThrows(SchemaMismatchException.class, () -> jobs.queue(stale, Duration.ofMinutes(1))
                    .verify());
            assertTrue(e.getMessage().contains("wsrep_sync_wait is 0"), e.getMessage());
            Baton synced = Baton.using(db.dataSource());
            synced.table(jobs.name()).state("payment_status", Payment.MACHINE).verify();
        } finally {
            jobs.drop();
        }
    }

    private static ClaimQueue<Sync> queue(Baton baton, String table, SendDurability durability) {
        StateTable<Payment> payments = baton.table(table).state("payment_status", Payment.MACHINE);
        return baton.<Sync>queue("durable-" + table)
                .table(table)
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .eligibleWhen(payments.is(Payment.PAID), Condition.isNull("third_party_guid"))
                .deadState(Sync.FAILED)
                .nonIdempotentSink(Sync.SENDING, Sync.UNKNOWN)
                .sendDurability(durability, WAIT)
                .lease(Duration.ofMinutes(1))
                .build();
    }
}
