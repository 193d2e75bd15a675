package dev.baton.internal.tx;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.RetryPolicy;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** The one classifier: where a retryable failure may hide, and which policy a failure gets. */
class FailuresTest {
    private final Failures failures =
            new Failures(new ScriptedDataSource().diagnostics(), RetryPolicy.transientDefault());

    /** As Spring's TransactionSystemException: the rollback's failure thrown, the original kept beside it. */
    static final class FrameworkException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final Throwable original;

        FrameworkException(String message, Throwable original) {
            super(message);
            this.original = original;
        }

        public Throwable getApplicationException() {
            return original;
        }
    }

    @Test
    void aRetryableFailureIsFoundAmongCausesSuppressedAndTheFrameworksOriginal() {
        assertTrue(failures.retryable(ScriptedDataSource.failure("40001")));
        assertTrue(failures.retryable(new IllegalStateException(ScriptedDataSource.failure("08006"))));
        RuntimeException suppressing = new RuntimeException("outer");
        suppressing.addSuppressed(ScriptedDataSource.failure("40002"));
        assertTrue(failures.retryable(suppressing));
        assertTrue(failures.retryable(new FrameworkException("rollback failed", ScriptedDataSource.failure("40001"))));
        assertFalse(failures.retryable(ScriptedDataSource.failure("23505")));
        assertFalse(failures.retryable(new IllegalStateException("no SQL at all")));
    }

    @Test
    void aClosedConnectionCountsOnlyInTheFailureOfARollback() {
        SQLException closed = new SQLException("Connection is closed");
        assertFalse(failures.retryable(closed));
        assertTrue(failures.retryable(new RuntimeException("Could not roll back JDBC transaction", closed)));
    }

    @Test
    void anOldWritersRefusalIsAFailoverWhateverTheDialectSays() {
        StaleWriterException stale = new StaleWriterException("timeline 1", "timeline 2");
        assertTrue(failures.failover(stale), "its connection is aborted");
        assertTrue(failures.retryable(new IllegalStateException(stale)), "and the work tried on another");
        assertFalse(failures.lostConnection(stale), "nothing was sent that may have committed");
    }

    @Test
    void aWriteConflictGetsTheConflictPolicyAndEverythingElseTheTransientOne() {
        assertSame(failures.transientRetry(), failures.policyFor(ScriptedDataSource.failure("40001")));
        assertTrue(failures.policyFor(new RuntimeException(ScriptedDataSource.failure("40002")))
                        .maxAttempts()
                > failures.transientRetry().maxAttempts());
        assertSame(failures.transientRetry(), failures.policyFor(new IllegalStateException("no SQL")));
    }

    @Test
    void aFailoverIsTheFirstSqlFailureOfTheChainAndALostConnectionAnyOfIt() {
        assertTrue(failures.failover(ScriptedDataSource.failure("25006")));
        assertTrue(failures.failover(new RuntimeException(ScriptedDataSource.failure("08006"))));
        SQLException outer = new SQLException("outer", "23505", ScriptedDataSource.failure("08006"));
        assertFalse(failures.failover(outer), "the first SQL failure decides");
        assertTrue(failures.lostConnection(outer), "a lost connection anywhere in the chain");
    }
}
