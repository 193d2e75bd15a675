package dev.baton.sqlserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.ConfigurationException;
import dev.baton.StateTable;
import dev.baton.testkit.compat.Payment;
import dev.baton.testservers.TestServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * READPAST fails at SNAPSHOT and SERIALIZABLE (error 650). The level handling is plain JDBC, so it
 * runs here on the local PostgreSQL: a statement in autocommit mode runs at READ COMMITTED and the connection gets its
 * level back; a caller's transaction at another level is refused before any SQL.
 */
class SqlServerReadpastIsolationTest {

    @Test
    void anAutocommitStatementRunsAtReadCommittedAndTheLevelIsRestored() throws Exception {
        try (Connection c = TestServer.POSTGRES_LOCAL.get().connect()) {
            c.setAutoCommit(true);
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            String during = ReadpastIsolation.run(c, x -> {
                try (Statement s = x.createStatement();
                        ResultSet rs = s.executeQuery("SHOW transaction_isolation")) {
                    rs.next();
                    return rs.getString(1);
                }
            });
            assertEquals("read committed", during);
            assertEquals(Connection.TRANSACTION_SERIALIZABLE, c.getTransactionIsolation());
        }
    }

    @Test
    void aBulkTransitionInACallersSerializableTransactionIsRefusedBeforeSql() throws Exception {
        SqlRecorder recorder = new SqlRecorder(0, sql -> List.of());
        Baton baton = Baton.builder(recorder.dataSource())
                .dialect(new SqlServerDialect())
                .build();
        StateTable<Payment> orders = baton.table("orders").state("payment_status", Payment.MACHINE);
        for (int level : new int[] {Connection.TRANSACTION_SERIALIZABLE, ReadpastIsolation.SNAPSHOT}) {
            try (Connection c = recorder.dataSource().getConnection()) {
                c.setAutoCommit(false);
                c.setTransactionIsolation(level);
                ConfigurationException e =
                        assertThrows(ConfigurationException.class, () -> orders.bulk(Payment.PENDING, Payment.EXPIRED)
                                .apply(c));
                assertTrue(e.getMessage().contains("error 650"), e.getMessage());
            }
            assertEquals(List.of(), recorder.take(), "no SQL");
        }
        try (Connection c = recorder.dataSource().getConnection()) {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            orders.bulk(Payment.PENDING, Payment.EXPIRED).apply(c);
        }
        assertEquals(1, recorder.take().size(), "REPEATABLE READ allows READPAST");
    }

    @Test
    void retentionDeletesRunAtReadCommittedFromAPoolAtSnapshotOrSerializable() {
        for (int level : new int[] {Connection.TRANSACTION_SERIALIZABLE, ReadpastIsolation.SNAPSHOT}) {
            SqlRecorder recorder = new SqlRecorder(0, sql -> List.of());
            recorder.poolLevel = level;
            Baton baton = Baton.builder(recorder.dataSource())
                    .dialect(new SqlServerDialect())
                    .build();
            baton.inbox(dev.baton.Inbox.DEFAULT_TABLE).deleteOlderThan(java.time.Duration.ofDays(7));
            baton.idempotencyKeys(dev.baton.IdempotencyKeys.DEFAULT_TABLE).deleteExpired();
            List<String> sql = List.copyOf(recorder.sql);
            assertEquals(2, sql.size(), sql.toString());
            assertTrue(sql.stream().allMatch(s -> s.startsWith("DELETE TOP (500)") && s.contains("READPAST")));
            assertEquals(
                    List.of(Connection.TRANSACTION_READ_COMMITTED, Connection.TRANSACTION_READ_COMMITTED),
                    recorder.levels);
        }
    }
}
