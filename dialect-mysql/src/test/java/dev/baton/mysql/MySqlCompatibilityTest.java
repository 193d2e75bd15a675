package dev.baton.mysql;

import static dev.baton.testservers.TestServer.MARIADB_EMBEDDED;
import static dev.baton.testservers.TestServer.MARIADB_EMBEDDED_CONNECTORJ;
import static dev.baton.testservers.TestServer.MARIADB_LOCAL;
import static dev.baton.testservers.TestServer.MARIADB_LOCAL_CONNECTORJ;
import static dev.baton.testservers.TestServer.MYSQL8;

import dev.baton.testkit.CompatibilityServers;
import dev.baton.testkit.compat.AbstractCompatibilityTest;

/**
 * The suites of the test kit on each single server of the MySQL dialect: the local MariaDB 10.11 (skipped with the
 * reason when it does not answer, unless {@code CI=true}), the embedded MariaDB 11.4 this JVM starts, both again
 * through MySQL Connector/J ({@code jdbc:mysql:} URLs; the embedded one with {@code rewriteBatchedStatements=true}), as
 * MySQL users connect, and MySQL 8 (a URL or a container; skipped with the reason when there is neither). Through
 * Connector/J run the suites that exercise driver-specific paths: error codes and SQLStates, generated keys, batch and
 * update counts, column types, lost connections and replies as the driver reports them. Which suite runs on which
 * server is the test kit's {@code RunsOn}.
 */
@CompatibilityServers({MARIADB_LOCAL, MARIADB_EMBEDDED, MARIADB_LOCAL_CONNECTORJ, MARIADB_EMBEDDED_CONNECTORJ, MYSQL8})
class MySqlCompatibilityTest extends AbstractCompatibilityTest {}
