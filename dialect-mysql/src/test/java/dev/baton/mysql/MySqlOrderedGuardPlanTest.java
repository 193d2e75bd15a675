package dev.baton.mysql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.Outbox;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import dev.baton.testservers.TestServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The per-key order guard of an outbox claim ("no older pending, processing or dead message of this key") on a table
 * with a delivered history: each probe must seek the key index by the key and the status, not by the key alone. With
 * one probe over a status list, MariaDB 10.11 sought {@code (msg_key, status, id)} by {@code msg_key} only and read
 * every delivered message of the key; the outbox claim then took about 20 ms more per million delivered messages
 * (bench {@code outbox-purge}, {@code bench/results/20261202-outbox-purge-before}). Reads the plan (EXPLAIN), not a time.
 */
class MySqlOrderedGuardPlanTest {

    @ParameterizedTest(name = "{0}")
    @EnumSource(
            value = TestServer.class,
            names = {"MARIADB_LOCAL", "MARIADB_EMBEDDED"})
    void theOutboxClaimsKeyGuardSeeksByKeyAndStatusAboveADeliveredHistory(TestServer server) throws Exception {
        TestDatabase db = server.get();
        String table = TestDatabases.uniqueName("og_outbox");
        try (HikariDataSource pool = db.newDataSource(2)) {
            Baton baton = Baton.using(pool);
            baton.ownTables().createOutboxTable(table);
            try (Connection c = pool.getConnection();
                    Statement st = c.createStatement()) {
                st.execute(
                        "INSERT INTO " + table + " (topic, msg_key, payload, status, attempts, created_at) SELECT 't',"
                                + " CONCAT('k', seq % 16), 'x', 2, 1, UTC_TIMESTAMP(6) FROM seq_1_to_20000");
                st.execute("INSERT INTO " + table
                        + " (topic, msg_key, payload, status, created_at) SELECT 't', CONCAT('k', seq %"
                        + " 16), 'x', 0, UTC_TIMESTAMP(6) FROM seq_1_to_200");
                st.execute("ANALYZE TABLE " + table);
            }
            Outbox outbox = baton.outbox(table);
            String pick = outbox.queue().claimSql(10).get(0);
            assertTrue(pick.contains("FOR UPDATE SKIP LOCKED"), pick);

            List<String> probes = new ArrayList<>();
            try (Connection c = pool.getConnection();
                    PreparedStatement ps = c.prepareStatement("EXPLAIN " + pick)) {
                for (int i = 1; i <= pick.chars().filter(ch -> ch == '?').count(); i++) {
                    ps.setInt(i, 10); // the attempts bound
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        if ("DEPENDENT SUBQUERY".equals(rs.getString("select_type"))) {
                            probes.add(rs.getString("key") + " ref " + rs.getString("ref"));
                        }
                    }
                }
            }
            assertEquals(3, probes.size(), "one probe per blocking status (pending, processing, dead): " + probes);
            for (String probe : probes) {
                // a probe that seeks by the key alone has the key column as its whole ref
                assertFalse(probe.matches(".*_key ref [^,]*msg_key"), "a probe seeks by the key alone: " + probes);
            }
        } finally {
            db.dropTableIfExists(table);
        }
    }
}
