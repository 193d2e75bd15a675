package dev.baton.mysql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The decision of {@link GaleraDurability} on the status values a node reports, for the states the three-node test
 * cluster is never in while the suites run: one node left, a non-primary component, a node that is not synced.
 */
class GaleraDurabilityTest {

    private static Map<String, String> synced(int size) {
        Map<String, String> vars = new HashMap<>();
        vars.put("wsrep_ready", "ON");
        vars.put("wsrep_cluster_status", "Primary");
        vars.put("wsrep_cluster_size", String.valueOf(size));
        vars.put("wsrep_local_state_comment", "Synced");
        vars.put("wsrep_cluster_state_uuid", "6dc82d88-ee0a-11f1-9f63-cfe5b30dfcb2");
        return vars;
    }

    @Test
    void aSyncedNodeOfAPrimaryComponentOfTwoOrMoreHasItsCommitsOnTheOthers() {
        assertEquals(2, GaleraDurability.Status.of(synced(3)).otherNodesHolding());
        assertEquals(1, GaleraDurability.Status.of(synced(2)).otherNodesHolding());
        assertTrue(GaleraDurability.Status.of(synced(2)).problem().isEmpty());
    }

    @Test
    void aSingleNodeANonPrimaryComponentOrANodeNotSyncedHoldsItAlone() {
        assertEquals(0, GaleraDurability.Status.of(synced(1)).otherNodesHolding());
        assertTrue(
                GaleraDurability.Status.of(synced(1)).problem().orElseThrow().contains("of 1 node(s)"),
                GaleraDurability.Status.of(synced(1)).problem().orElseThrow());

        Map<String, String> nonPrimary = synced(3);
        nonPrimary.put("wsrep_cluster_status", "non-Primary");
        nonPrimary.put("wsrep_ready", "OFF");
        assertEquals(0, GaleraDurability.Status.of(nonPrimary).otherNodesHolding());

        Map<String, String> donor = synced(3);
        donor.put("wsrep_local_state_comment", "Donor/Desynced");
        assertEquals(0, GaleraDurability.Status.of(donor).otherNodesHolding());
    }

    @Test
    void aServerWithoutGaleraIsNoGaleraNode() {
        assertEquals(GaleraDurability.Status.NONE, GaleraDurability.Status.of(Map.of()));
        // what a MariaDB without a provider reports
        Map<String, String> off = Map.of(
                "wsrep_ready", "OFF",
                "wsrep_cluster_status", "Disconnected",
                "wsrep_cluster_size", "0",
                "wsrep_local_state_comment", "Initialized",
                "wsrep_cluster_state_uuid", "");
        assertEquals(GaleraDurability.Status.NONE, GaleraDurability.Status.of(off));
    }

    @Test
    void theReadBitOfSyncWaitIsWhatCounts() {
        assertEquals(List.of(), GaleraDurability.syncWaitProblems(1));
        assertEquals(List.of(), GaleraDurability.syncWaitProblems(3));
        assertEquals(List.of(), GaleraDurability.syncWaitProblems(15));
        assertEquals(1, GaleraDurability.syncWaitProblems(0).size());
        assertEquals(1, GaleraDurability.syncWaitProblems(2).size());
    }
}
