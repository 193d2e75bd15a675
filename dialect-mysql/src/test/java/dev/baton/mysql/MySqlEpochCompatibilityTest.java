package dev.baton.mysql;

import dev.baton.testkit.compat.AbstractEpochCompatibilityTest;
import dev.baton.testservers.TestServer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The epoch watch's suite on the local MariaDB, where a claim is a transaction of several statements: the failover is
 * a test dialect's epoch and plain SQL ({@link MariaDbFailoverTest} runs a real one).
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"MARIADB_LOCAL"})
class MySqlEpochCompatibilityTest {
    /** The server of this run; the nested suite finds it here (see {@code BatonDatabaseExtension}). */
    @Parameter
    TestServer server;

    @Nested
    class Epochs extends AbstractEpochCompatibilityTest {}
}
