package dev.baton.mysql;

import static dev.baton.testservers.TestServer.MARIADB_GALERA;
import static dev.baton.testservers.TestServer.MARIADB_GALERA_SPREAD;

import dev.baton.testkit.CompatibilityServers;
import dev.baton.testkit.compat.AbstractCompatibilityTest;

/**
 * The suites of the test kit on a three-node MariaDB Galera cluster ({@code GaleraCluster}): written through node 1 (a
 * {@code sequential} URL, as behind a Galera-aware proxy) while the other two apply its writesets synchronously; then
 * with writes on all three nodes at once ({@code GaleraCluster.spread()}: a {@code loadbalance} URL, each connection on
 * a node picked at random, {@code wsrep_sync_wait=7}), so that concurrent units of work conflict at certification
 * (error 1213) and Baton must retry them. Two tests need one node's view and are skipped on the second, saying why
 * ({@code assumeOneWriterNode}). Which suite runs on the cluster is the test kit's {@code RunsOn}. Skipped only when
 * the machine has no {@code mariadbd} or {@code galera-4}.
 */
@CompatibilityServers({MARIADB_GALERA, MARIADB_GALERA_SPREAD})
class MySqlGaleraCompatibilityTest extends AbstractCompatibilityTest {}
