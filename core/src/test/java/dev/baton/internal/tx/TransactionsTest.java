package dev.baton.internal.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.DataAccessException;
import dev.baton.OutcomeInDoubtException;
import dev.baton.ReadOnlyTransactionException;
import dev.baton.RetryPolicy;
import dev.baton.spi.DialectTraits;
import dev.baton.spi.ExclusiveLock;
import dev.baton.spi.HostTransaction;
import dev.baton.spi.HostTransactions;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The ground floor on connections that fail where a test says, no server: the one retry loop, the state after a lost
 * reply, eviction after a failover, and how an attempt begins, commits, rolls back and gives its connection back.
 */
class TransactionsTest {
    private static final RetryPolicy THREE =
            RetryPolicy.fixed(Duration.ofMillis(1)).maxAttempts(3);

    private final ScriptedDataSource db = new ScriptedDataSource();
    private final List<String> retries = new ArrayList<>();

    private Transactions tx(DialectTraits traits, HostTransactions hosts) {
        Failures failures = new Failures(db.diagnostics(), THREE);
        Connections connections =
                new Connections(db.dataSource(), db.diagnostics(), failures, traits.isolationPerTransaction(), false);
        return new Transactions(
                "scripted",
                traits,
                hosts,
                failures,
                connections,
                (op, attempt, e) -> retries.add(op + " " + attempt + " " + e.getSQLState()));
    }

    private Transactions tx() {
        return tx(DialectTraits.of(63), HostTransactions.NONE);
    }

    @Test
    void aTransientFailureIsTriedAgainOnAFreshConnectionAndTheListenerHearsOfIt() {
        AtomicInteger runs = new AtomicInteger();
        String value = tx().transaction("op", c -> {
            if (runs.incrementAndGet() == 1) {
                throw ScriptedDataSource.failure("40001");
            }
            return "done";
        });
        assertEquals("done", value);
        assertEquals(List.of("op 1 40001"), retries);
        assertEquals(
                List.of(
                        "c1 borrowed",
                        "c1 isolation 2",
                        "c1 begin",
                        "c1 rollback",
                        "c1 autocommit on",
                        "c1 isolation 4",
                        "c1 close",
                        "c2 borrowed",
                        "c2 isolation 2",
                        "c2 begin",
                        "c2 commit (autocommit on)",
                        "c2 isolation 4",
                        "c2 close"),
                db.log,
                "a transient failure rolls back and gives the connection back as it was (never aborted)");
    }

    @Test
    void aFailureThatIsNotRetryableEndsAtOnceWrapped() {
        AtomicInteger runs = new AtomicInteger();
        DataAccessException e = assertThrows(DataAccessException.class, () -> tx().autocommit("op", c -> {
            runs.incrementAndGet();
            throw ScriptedDataSource.failure("23505");
        }));
        assertEquals(1, runs.get());
        assertTrue(e.getMessage().startsWith("op failed: "), e.getMessage());
        assertEquals("23505", ((SQLException) e.getCause()).getSQLState());
        assertTrue(retries.isEmpty());
    }

    @Test
    void theAttemptsOfThePolicyAreSpentThenTheLastFailureIsThrown() {
        AtomicInteger runs = new AtomicInteger();
        DataAccessException e = assertThrows(DataAccessException.class, () -> tx().autocommit("op", c -> {
            runs.incrementAndGet();
            throw ScriptedDataSource.failure("40001");
        }));
        assertEquals(3, runs.get());
        assertTrue(e.getMessage().startsWith("op failed after 3 attempts: "), e.getMessage());
        assertEquals(List.of("op 1 40001", "op 2 40001"), retries);
    }

    @Test
    void aWriteConflictGetsFourTimesTheAttempts() {
        AtomicInteger runs = new AtomicInteger();
        assertThrows(DataAccessException.class, () -> tx().autocommit("op", c -> {
            runs.incrementAndGet();
            throw ScriptedDataSource.failure("40002");
        }));
        assertEquals(12, runs.get());
    }

    @Test
    void afterALostReplyEveryLaterAttemptRunsTheLostReplyFormOnAConnectionWhoseServerTakesWrites() {
        AtomicInteger normal = new AtomicInteger();
        AtomicInteger recognising = new AtomicInteger();
        String value = tx().autocommit(
                        "op",
                        c -> {
                            normal.incrementAndGet();
                            db.readOnlyConnections = 2; // the pool still holds two connections to the demoted primary
                            throw ScriptedDataSource.failure("08006");
                        },
                        c -> recognising.incrementAndGet() == 1 ? "read back" : "again");
        assertEquals("read back", value);
        assertEquals(1, normal.get(), "the work that may have committed never runs blind again");
        assertEquals(1, recognising.get());
        assertEquals(
                List.of(
                        "c1 borrowed",
                        "c1 abort",
                        "c2 borrowed",
                        "c2 asked read-only",
                        "c2 abort",
                        "c3 borrowed",
                        "c3 asked read-only",
                        "c3 abort",
                        "c4 borrowed",
                        "c4 asked read-only",
                        "c4 close"),
                db.log,
                "the lost connection is aborted (the pool drops it), and so is each read-only one the retry meets");
    }

    @Test
    void aReadOnlyRefusalCountsAsALostReplyForAnAutocommitWork() {
        List<String> forms = new ArrayList<>();
        tx().autocommit(
                        "op",
                        c -> {
                            forms.add("work");
                            throw ScriptedDataSource.failure("25006");
                        },
                        c -> forms.add("after lost reply"));
        assertEquals(List.of("work", "after lost reply"), forms);
    }

    @Test
    void evictionStopsAfterSixtyFourReadOnlyConnectionsAndUsesTheNextAsItIs() {
        AtomicInteger attempts = new AtomicInteger();
        assertThrows(DataAccessException.class, () -> tx().autocommit("op", c -> {
            if (attempts.incrementAndGet() == 1) {
                db.readOnlyConnections = 1000;
                throw ScriptedDataSource.failure("08006");
            }
            throw ScriptedDataSource.failure("25006");
        }));
        long asked = db.log.stream().filter(l -> l.endsWith("asked read-only")).count();
        assertEquals(2 * 64, asked, "each retry's borrow gives up after 64 evictions");
        assertEquals(3, attempts.get());
    }

    @Test
    void aCommitWhoseReplyIsLostLeavesTheMarkSetAndAWorkFailureLeavesItUnset() throws SQLException {
        Connections connections = tx().connections();
        db.commitFailures.add(ScriptedDataSource.failure("08006"));
        CommitMark lost = new CommitMark();
        assertThrows(
                SQLException.class,
                () -> connections.once(true, false, TransactionWork.committing(c -> 1), lost, null, null));
        assertTrue(lost.reached(), "the COMMIT was sent: it may have taken effect");
        assertTrue(db.log.contains("c1 abort"), "a lost connection is aborted, not handed back to the pool");

        CommitMark failed = new CommitMark();
        assertThrows(
                SQLException.class,
                () -> connections.once(
                        true,
                        false,
                        TransactionWork.committing(c -> {
                            throw ScriptedDataSource.failure("40001");
                        }),
                        failed,
                        null,
                        null));
        assertFalse(failed.reached(), "no COMMIT was sent: nothing of the attempt took effect");
    }

    @Test
    void aWorkThatEndsByRollingBackIsRolledBackAndNothingRunsAfterACommit() throws SQLException {
        CommitMark mark = new CommitMark();
        List<String> afterCommit = new ArrayList<>();
        String value = tx().connections()
                .once(true, false, c -> Ending.rollBack("found"), mark, "RELEASE", c -> afterCommit.add("ran"));
        assertEquals("found", value);
        assertFalse(mark.reached());
        assertTrue(afterCommit.isEmpty());
        assertTrue(db.log.contains("c1 rollback"));
        assertFalse(db.log.stream().anyMatch(l -> l.contains(" commit")), db.log.toString());
        assertEquals("c1 execute RELEASE", db.log.get(db.log.size() - 2), "the session lock is released after the end");
    }

    @Test
    void anIsolationPerTransactionIsSetByStatementAndTheSessionIsLeftAlone() {
        tx(DialectTraits.of(63).isolationPerTransaction(true), HostTransactions.NONE)
                .transaction("op", c -> 1);
        assertEquals(
                List.of(
                        "c1 borrowed",
                        "c1 begin",
                        "c1 execute SET TRANSACTION ISOLATION LEVEL READ COMMITTED",
                        "c1 commit (autocommit on)",
                        "c1 close"),
                db.log);
    }

    @Test
    void aRuntimeFailureOfBatonsOwnWorkIsFinalEvenWithATransientCause() {
        AtomicInteger runs = new AtomicInteger();
        OutcomeInDoubtException doubt = new OutcomeInDoubtException("in doubt", ScriptedDataSource.failure("40001"));
        assertSame(doubt, assertThrows(OutcomeInDoubtException.class, () -> tx().autocommit("op", c -> {
            runs.incrementAndGet();
            throw doubt;
        })));
        assertEquals(1, runs.get());
    }

    @Test
    void aCallersRuntimeFailureWithATransientCauseIsTriedAgain() {
        Transactions tx = tx();
        AtomicInteger runs = new AtomicInteger();
        String value = tx.retrying("op", new Transactions.Unit<String>() {
            @Override
            public String attempt(boolean afterFailover) {
                if (runs.incrementAndGet() == 1) {
                    throw new IllegalStateException("framework", ScriptedDataSource.failure("40001"));
                }
                return "done";
            }

            @Override
            public boolean callersWork() {
                return true;
            }
        });
        assertEquals("done", value);
        assertEquals(2, runs.get());
    }

    @Test
    void aUnitCanEndTheLoopWithItsOwnAnswer() {
        Transactions tx = tx();
        List<Boolean> afterFailover = new ArrayList<>();
        IllegalStateException answer = new IllegalStateException("its own");
        assertSame(
                answer,
                assertThrows(
                        IllegalStateException.class,
                        () -> tx.retrying("op", new Transactions.Unit<>() {
                            @Override
                            public Object attempt(boolean failover) throws SQLException {
                                afterFailover.add(failover);
                                throw ScriptedDataSource.failure("08006");
                            }

                            @Override
                            public RuntimeException exhausted(Exception failure) {
                                return answer;
                            }
                        })));
        assertEquals(List.of(false, true, true), afterFailover);
    }

    @Test
    void theLostReplyFormOfADrainMarksItsCountInDoubt() {
        Transactions tx = tx(DialectTraits.of(63).batchUpdateIsAtomic(true), HostTransactions.NONE);
        AtomicInteger batches = new AtomicInteger();
        Drain.Drained d = Drain.drainReporting(
                10,
                () -> tx.batchUpdateReporting("drain", c -> {
                    int n = batches.incrementAndGet();
                    if (n == 2) {
                        throw ScriptedDataSource.failure("08006");
                    }
                    return n < 3 ? 10 : 4;
                }));
        assertEquals(new Drain.Drained(14, 2, true), d);

        Drain.Drained clean = Drain.drain(5, () -> 3);
        assertEquals(new Drain.Drained(3, 1, false), clean);
    }

    @Test
    void aHostTransactionIsJoinedWithoutCommitOrRetryAndAReadOnlyOneRefusesWritesBeforeAnySql() throws SQLException {
        Connection hostConnection = db.dataSource().getConnection();
        db.log.clear();
        boolean[] readOnly = {false};
        List<Runnable> afterHostCommit = new ArrayList<>();
        HostTransaction host = new HostTransaction() {
            @Override
            public Connection connection() {
                return hostConnection;
            }

            @Override
            public boolean readOnly() {
                return readOnly[0];
            }

            @Override
            public void afterCommit(Runnable action) {
                afterHostCommit.add(action);
            }
        };
        Transactions tx = tx(DialectTraits.of(63), ds -> host);
        AtomicInteger runs = new AtomicInteger();
        DataAccessException e = assertThrows(
                DataAccessException.class,
                () -> tx.transaction("op", c -> {
                    runs.incrementAndGet();
                    assertSame(hostConnection, c);
                    throw ScriptedDataSource.failure("40001");
                }));
        assertEquals(1, runs.get(), "only the host's owner can roll back and run its transaction again");
        assertTrue(e.getMessage().startsWith("op failed in the host's transaction: "), e.getMessage());
        assertTrue(db.log.isEmpty(), "no commit, rollback or setting on the host's connection: " + db.log);

        List<String> ran = new ArrayList<>();
        tx.afterCommit(() -> ran.add("after"));
        assertTrue(ran.isEmpty());
        afterHostCommit.forEach(Runnable::run);
        assertEquals(List.of("after"), ran);

        readOnly[0] = true;
        assertInstanceOf(
                ReadOnlyTransactionException.class,
                assertThrows(RuntimeException.class, () -> tx.batchUpdate("claim", c -> 1, c -> 1)));
        assertThrows(
                ReadOnlyTransactionException.class,
                () -> tx.batchUpdateUnderLock("claim", new ExclusiveLock("SELECT 1", null), c -> 1, c -> 1));
        assertTrue(db.log.isEmpty());
    }
}
