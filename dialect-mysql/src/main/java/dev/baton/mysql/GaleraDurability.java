package dev.baton.mysql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Whether a commit on a MariaDB Galera node survives the loss of that node ({@link dev.baton.SendDurability}), and
 * whether its sessions read what the cluster committed ({@code wsrep_sync_wait}).
 *
 * <p>A Galera node returns from {@code COMMIT} only after the transaction's writeset was delivered, in the total
 * order, to every member of its primary component and certified; the members that survive a node's loss all have it
 * and apply it (virtual synchrony). So a commit made on a node that is ready ({@code wsrep_ready=ON}), synced ({@code
 * wsrep_local_state_comment=Synced}) and part of a primary component ({@code wsrep_cluster_status=Primary}) of {@code
 * wsrep_cluster_size} members is held by the {@code size - 1} others: on a component of two or more, a SENDING mark is
 * durable when the {@code COMMIT} returns, and on a one-node component (a single node, or the last one left) it is
 * not. The status is read after the commit, on the same connection: a member that joined since received the state
 * (with the commit) by state transfer; one still joining is counted too (Galera's {@code wsrep_cluster_size} counts
 * it). The position carries the cluster's state UUID, so that a node that now belongs to another cluster history
 * (bootstrapped anew) counts nothing.
 *
 * <p>A server that reports no cluster state UUID (MySQL, or a MariaDB without a Galera provider) is no Galera node: nothing is
 * known (empty), and Baton treats the mark as not durable. Stateless.
 */
final class GaleraDurability {
    /**
     * The status variables read, one round trip; MySQL returns none of them, a MariaDB without a Galera provider an
     * empty state UUID.
     */
    static final String STATUS_SQL = "SHOW STATUS WHERE Variable_name IN ('wsrep_ready', 'wsrep_cluster_status',"
            + " 'wsrep_cluster_size', 'wsrep_local_state_comment', 'wsrep_cluster_state_uuid')";

    /** The prefix of a Galera commit position: {@code galera:<cluster state uuid>}. */
    private static final String PREFIX = "galera:";

    /** The read bit of {@code wsrep_sync_wait}: reads wait until the node applied what the cluster committed. */
    static final int SYNC_WAIT_READ = 1;

    private GaleraDurability() {}

    /** What a node says of itself. */
    record Status(
            boolean galera,
            boolean ready,
            String clusterStatus,
            int clusterSize,
            String localState,
            String clusterStateUuid) {

        /** A server without Galera. */
        static final Status NONE = new Status(false, false, "", 0, "", "");

        /** How many other nodes hold every commit this node made: {@code size - 1} when synced in a primary one. */
        int otherNodesHolding() {
            return galera && ready && "Primary".equals(clusterStatus) && "Synced".equals(localState)
                    ? Math.max(0, clusterSize - 1)
                    : 0;
        }

        /** Why a commit here is not held by another node, for a message; empty when it is. */
        Optional<String> problem() {
            if (!galera) {
                return Optional.of("not a Galera node (no wsrep_cluster_state_uuid)");
            }
            if (otherNodesHolding() > 0) {
                return Optional.empty();
            }
            return Optional.of("the Galera node is " + (ready ? "ready" : "not ready (wsrep_ready=OFF)") + ", "
                    + localState + ", in a " + clusterStatus + " component of " + clusterSize
                    + " node(s): a commit is held by another node only on a Synced node of a Primary component of"
                    + " two or more");
        }

        /** The status from the rows of {@link #STATUS_SQL}. */
        static Status of(Map<String, String> vars) {
            // MariaDB without a provider (wsrep_on=OFF) reports the variables too: Disconnected, no state UUID
            if (vars.getOrDefault("wsrep_cluster_state_uuid", "").isEmpty()) {
                return NONE;
            }
            int size;
            try {
                size = Integer.parseInt(vars.getOrDefault("wsrep_cluster_size", "0"));
            } catch (NumberFormatException e) {
                size = 0;
            }
            return new Status(
                    true,
                    "ON".equalsIgnoreCase(vars.get("wsrep_ready")),
                    vars.getOrDefault("wsrep_cluster_status", ""),
                    size,
                    vars.getOrDefault("wsrep_local_state_comment", ""),
                    vars.getOrDefault("wsrep_cluster_state_uuid", ""));
        }
    }

    /** Reads the node's status on {@code c}. */
    static Status status(Connection c) throws SQLException {
        Map<String, String> vars = new HashMap<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(STATUS_SQL)) {
            while (rs.next()) {
                vars.put(rs.getString(1).toLowerCase(java.util.Locale.ROOT), rs.getString(2));
            }
        }
        return Status.of(vars);
    }

    /** {@code galera:<uuid>} on a Galera node, else empty. */
    static Optional<String> commitPosition(Connection c) throws SQLException {
        Status s = status(c);
        return s.galera() ? Optional.of(PREFIX + s.clusterStateUuid()) : Optional.empty();
    }

    /** Whether {@code position} is a Galera commit position ({@link #commitPosition}). */
    static boolean isPosition(String position) {
        return position.startsWith(PREFIX);
    }

    /** The other nodes holding what was committed at {@code position} (0 unless it is a Galera position). */
    static int nodesHolding(Connection c, String position) throws SQLException {
        if (!position.startsWith(PREFIX)) {
            return 0;
        }
        Status s = status(c);
        return position.equals(PREFIX + s.clusterStateUuid()) ? s.otherNodesHolding() : 0;
    }

    /** On a Galera node, the other nodes a commit here is held by; elsewhere empty (the server cannot say). */
    static OptionalInt failoverNodes(Connection c) throws SQLException {
        Status s = status(c);
        return s.galera() ? OptionalInt.of(s.otherNodesHolding()) : OptionalInt.empty();
    }

    /**
     * On a Galera node whose session's {@code wsrep_sync_wait} lacks the read bit, the problem: a read after a write
     * made on another node (Baton's read-back after a guarded update that changed nothing) may see the state from
     * before it. Nothing elsewhere.
     */
    static List<String> sessionProblems(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@GLOBAL.wsrep_on, @@SESSION.wsrep_sync_wait")) {
            if (!rs.next() || !rs.getBoolean(1)) {
                return List.of();
            }
            return syncWaitProblems(rs.getInt(2));
        } catch (SQLException e) {
            if (e.getErrorCode() == UNKNOWN_SYSTEM_VARIABLE) {
                return List.of(); // MySQL, or a MariaDB built without wsrep
            }
            throw e;
        }
    }

    /** MariaDB and MySQL: {@code Unknown system variable}. */
    private static final int UNKNOWN_SYSTEM_VARIABLE = 1193;

    /** The problems of a Galera session with {@code wsrep_sync_wait = syncWait}. */
    static List<String> syncWaitProblems(int syncWait) {
        if ((syncWait & SYNC_WAIT_READ) != 0) {
            return List.of();
        }
        return List.of("wsrep_sync_wait is " + syncWait + " on this Galera node, without the read bit (1): a read may"
                + " miss a write another node committed, and Baton's read-back after a guarded update that changed"
                + " nothing could report a state the row has already left; set wsrep_sync_wait=3 for Baton's"
                + " connections (for example sessionVariables=wsrep_sync_wait=3 in the MariaDB Connector/J URL)");
    }
}
