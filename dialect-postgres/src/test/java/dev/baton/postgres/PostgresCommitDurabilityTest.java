package dev.baton.postgres;

import dev.baton.testkit.compat.AbstractCommitDurabilityTest;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestServer;
import java.util.function.Supplier;
import org.junit.jupiter.api.Nested;

/**
 * {@code commitDurability} on PostgreSQL: the local server has no standby, so no commit is ever known durable; the
 * writer of a primary with an asynchronous streaming standby has every commit on the standby within the wait.
 */
class PostgresCommitDurabilityTest {
    @Nested
    class WithoutAStandby extends AbstractCommitDurabilityTest {
        @Override
        protected Supplier<TestDatabase> server() {
            return TestServer.POSTGRES_LOCAL;
        }

        @Override
        protected boolean standbyHasCommits() {
            return false;
        }
    }

    @Nested
    class WithAStreamingStandby extends AbstractCommitDurabilityTest {
        @Override
        protected Supplier<TestDatabase> server() {
            return TestServer.POSTGRES_STREAMING_ASYNC;
        }

        @Override
        protected boolean standbyHasCommits() {
            return true;
        }
    }
}
