package dev.baton.sqlserver;

import dev.baton.testkit.compat.AbstractCompatibilityTest;
import dev.baton.testservers.TestServer;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The suites of the test kit on SQL Server: {@code BATON_TEST_SQLSERVER_URL}, or a container where Docker answers;
 * skipped with the reason when there is neither. Which suite runs on it is the test kit's {@code RunsOn}.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"SQLSERVER"})
class SqlServerCompatibilityTest extends AbstractCompatibilityTest {}
