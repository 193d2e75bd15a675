package dev.baton.sqlserver;

import static dev.baton.testservers.TestServer.SQLSERVER;

import dev.baton.testkit.CompatibilityServers;
import dev.baton.testkit.compat.AbstractCompatibilityTest;

/**
 * The suites of the test kit on SQL Server: {@code BATON_TEST_SQLSERVER_URL}, or a container where Docker answers;
 * skipped with the reason when there is neither. Which suite runs on it is the test kit's {@code RunsOn}.
 */
@CompatibilityServers({SQLSERVER})
class SqlServerCompatibilityTest extends AbstractCompatibilityTest {}
