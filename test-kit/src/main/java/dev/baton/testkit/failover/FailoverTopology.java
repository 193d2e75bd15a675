package dev.baton.testkit.failover;

import dev.baton.testservers.MariaDbReplication;
import dev.baton.testservers.PostgresCluster;
import dev.baton.testservers.TestDatabase;

/**
 * A primary with one standby (or replica) that a failover suite can break the same way on every database: cut the
 * standby off (commits from then on exist only on the primary), kill the primary, promote the standby, and give the new
 * primary a standby again. Not thread-safe: one test drives one topology.
 */
public interface FailoverTopology {
    /** The writer, through a URL that finds it after a promotion. */
    TestDatabase database();

    /** Replication mode, for the figures. */
    String replication();

    /** The writer's epoch as the test reads it (PostgreSQL: the timeline; MariaDB: the server id). */
    String writerEpoch();

    /** The standby stops receiving the primary's changes: what the primary commits from now on a promotion loses. */
    void cutStandby();

    /** {@code kill -9} of the primary. */
    void killPrimary();

    /** Promotes the standby; returns once it takes writes. */
    void promote();

    /** The old primary's node comes back as the new primary's standby (sends under REQUIRE wait for one). */
    void rebuildStandby();

    /** A PostgreSQL primary and streaming standby. */
    static FailoverTopology of(PostgresCluster cluster) {
        return new FailoverTopology() {
            @Override
            public TestDatabase database() {
                return cluster.database();
            }

            @Override
            public String replication() {
                return "PostgreSQL " + cluster.replication();
            }

            @Override
            public String writerEpoch() {
                return String.valueOf(cluster.timeline());
            }

            @Override
            public void cutStandby() {
                cluster.detachStandby();
            }

            @Override
            public void killPrimary() {
                cluster.killPrimary();
            }

            @Override
            public void promote() {
                cluster.promoteStandby();
            }

            @Override
            public void rebuildStandby() {
                cluster.rebuildStandby();
            }
        };
    }

    /** A MariaDB primary and GTID replica. */
    static FailoverTopology of(MariaDbReplication topology) {
        return new FailoverTopology() {
            @Override
            public TestDatabase database() {
                return topology.database();
            }

            @Override
            public String replication() {
                return "MariaDB " + topology.replication();
            }

            @Override
            public String writerEpoch() {
                return String.valueOf(topology.writerServerId());
            }

            @Override
            public void cutStandby() {
                topology.pauseReplication();
            }

            @Override
            public void killPrimary() {
                topology.killPrimary();
            }

            @Override
            public void promote() {
                topology.promoteReplica();
            }

            @Override
            public void rebuildStandby() {
                topology.rebuildOldPrimaryAsReplica();
            }
        };
    }
}
