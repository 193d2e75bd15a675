package dev.baton.mysql;

import static dev.baton.testkit.failover.WorkerProcessFailover.HELD;
import static dev.baton.testkit.failover.WorkerProcessFailover.assertCommon;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.CommitDurability;
import dev.baton.SendDurability;
import dev.baton.testkit.failover.FailoverTopology;
import dev.baton.testkit.failover.WorkerProcessFailover;
import dev.baton.testkit.failover.WorkerProcessFailover.Figures;
import dev.baton.testservers.MariaDbReplication;
import dev.baton.testservers.MariaDbReplication.Replication;
import dev.baton.testservers.TestDatabases;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The failover suite on MariaDB with worker processes and a callback load: the PostgreSQL process suite ({@link
 * WorkerProcessFailover}) on a MariaDB primary and GTID replica ({@link MariaDbReplication}). Two worker JVMs with the
 * non-idempotent sink protocol (the sink on the local MariaDB, which the failover does not touch), two callback threads
 * applying PENDING → PAID twice each through a {@code Baton} with the failover audit ({@link
 * Baton.Builder#failoverAudit}); the primary is killed ({@code kill -9}) and the replica promoted (its {@code
 * server_id} is the epoch: 1, then 2). Invariants as on PostgreSQL: no double send where the precondition held, the
 * sends in doubt reported by the JVMs, no stale completion, no claim token twice for a row, the lost acknowledged
 * callbacks exactly those the audit reported (by id).
 *
 * <p>Skipped only when the machine has no MariaDB server (see {@link MariaDbReplication#start}).
 */
class MariaDbFailoverProcessTest {
    /** Semi-synchronous replica that never times out here: nothing acknowledged is lost. */
    @Test
    void aLosslessFailoverUnderWorkerJvmsAndCallbacksSendsNoRowTwiceAndLosesNoCallback() throws Exception {
        try (MariaDbReplication topology = MariaDbReplication.start(Replication.SEMI_SYNC, Duration.ofSeconds(30))) {
            Figures f = run(topology, false, SendDurability.OFF);
            assertEquals(0, f.doubleSends(), f.toString());
            assertEquals(0, f.lostMarks(), f.toString());
            assertEquals(0, f.lostAcknowledgedTransitions(), f.toString());
            assertEquals(0, f.transitionsInDoubtReported(), f.toString());
            assertEquals(0, f.callbacksAppliedTwice(), f.toString());
        }
    }

    /**
     * Asynchronous replica whose I/O thread stopped before the kill: acknowledged marks, claims, completions and
     * callbacks are lost. Each JVM reports the sends in doubt it finds; the audit reports every lost callback.
     */
    @Test
    void aLossyFailoverUnderWorkerJvmsReportsTheSendsInDoubtAndEveryLostCallback() throws Exception {
        try (MariaDbReplication topology = MariaDbReplication.start(Replication.ASYNC)) {
            Figures f = run(topology, true, SendDurability.OFF);
            assertTrue(f.lostAcknowledgedTransitions() > 0, "the failover was lossy: " + f);
            assertTrue(f.lostMarks() > 0, "the JVMs found marks lost with the old primary: " + f);
            // each JVM holds its claims for EpochChange.HOLD after it sees the new writer, so the other moves the rows
            // of its lost marks to unknown before either claims them (before the hold: 3 to 111 rows sent twice)
            assertEquals(0, f.doubleSends(), "no row sent twice between the worker JVMs: " + f);
            assertEquals(HELD, f.heldSendTokenRepeated(), f.toString());
            assertEquals(HELD, f.heldResendsRefused(), f.toString());
        }
    }

    /**
     * The lossy failover on a semi-synchronous primary that goes on alone after 500 ms, with {@link
     * SendDurability#REQUIRE} and {@link CommitDurability#REQUIRE} for the callbacks: no send starts on a mark the
     * replica lacks, so none is sent twice; no callback is acknowledged before the replica has its commit, so none
     * acknowledged is lost (the lost window's callbacks are answered in doubt, and reported).
     */
    @Test
    void aLossyFailoverUnderWorkerJvmsWithDurableMarksAndCommitsRequiredSendsNoRowTwiceAndLosesNoAcknowledgedCallback()
            throws Exception {
        try (MariaDbReplication topology = MariaDbReplication.start(Replication.SEMI_SYNC)) {
            Figures f = run(topology, true, SendDurability.REQUIRE, CommitDurability.REQUIRE);
            assertEquals(0, f.doubleSends(), f.toString());
            assertEquals(0, f.marksNotKnownDurable(), f.toString());
            assertEquals(0, f.lostMarks(), f.toString());
            assertEquals(0, f.lostAcknowledgedTransitions(), f.toString());
            assertEquals(0, f.lostAnsweredInTarget(), f.toString());
            assertTrue(f.callbacksInDoubt() > 0, "the lost window's callbacks were answered in doubt: " + f);
            // not asserted: that the held rows' next sends repeat their lost send token. Until the old primary's node
            // replicates again REQUIRE refuses marks, and a refused mark costs the row an attempt, so a held row's
            // send may carry a higher token (4, 5 and 3 of 5 repeated it in three runs)
        }
    }

    /** The shared run with the sink on the local MariaDB; the writer's server_id goes from 1 to 2. */
    private static Figures run(MariaDbReplication topology, boolean lossy, SendDurability durability) throws Exception {
        return run(topology, lossy, durability, CommitDurability.OFF);
    }

    private static Figures run(
            MariaDbReplication topology, boolean lossy, SendDurability durability, CommitDurability callbacks)
            throws Exception {
        Figures f = WorkerProcessFailover.run(
                FailoverTopology.of(topology), TestDatabases.mariadbLocal(), "mf_", lossy, durability, callbacks);
        assertCommon(f);
        assertEquals("1", f.epochBefore(), f.toString());
        assertEquals("2", f.epochAfter(), f.toString());
        return f;
    }
}
