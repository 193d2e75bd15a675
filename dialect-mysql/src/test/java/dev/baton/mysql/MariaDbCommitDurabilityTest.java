package dev.baton.mysql;

import dev.baton.testkit.compat.AbstractCommitDurabilityTest;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestServer;
import java.util.function.Supplier;

/**
 * {@code commitDurability} on the local, standalone MariaDB: it reports no replication progress (no binary log, no
 * semi-synchronous replica), so no commit is ever known durable.
 */
class MariaDbCommitDurabilityTest extends AbstractCommitDurabilityTest {
    @Override
    protected Supplier<TestDatabase> server() {
        return TestServer.MARIADB_LOCAL;
    }

    @Override
    protected boolean standbyHasCommits() {
        return false;
    }
}
