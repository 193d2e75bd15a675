package dev.baton.sqlserver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.alibaba.druid.DbType;
import com.alibaba.druid.sql.SQLUtils;
import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.DataAccessException;
import dev.baton.spi.BatchUpdateSpec;
import dev.baton.spi.SqlFragment;
import dev.baton.testkit.compat.Sync;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code OUTPUT} without {@code INTO} fails on a table with enabled triggers (error 334). The first
 * run of a statement that returns rows asks {@code sys.triggers}; with triggers it returns them through a table
 * variable typed from {@code sys.columns}, in one batch. Pinned by exact text as Baton prepares it, and parsed as
 * T-SQL.
 */
class SqlServerOutputIntoTest {
    /** The claimed row: id 7, attempt 1, the selected column, and the order columns before the update. */
    private static final Object[] CLAIMED = {7L, 1, "tx", 0, 1, 7L};

    private static final List<Object[]> ORDERS_COLUMNS = List.of(
            new Object[] {"id", "bigint", 8, 19, 0, null},
            new Object[] {"sync_status", "int", 4, 10, 0, null},
            new Object[] {"payment_status", "smallint", 2, 5, 0, null},
            new Object[] {"attempts", "int", 4, 10, 0, null},
            new Object[] {"payment_transaction_id", "nvarchar", -1, 0, 0, "SQL_Latin1_General_CP1_CI_AS"},
            new Object[] {"total", "decimal", 9, 18, 2, null});

    private volatile int triggers;

    private final SqlRecorder recorder = new SqlRecorder(0, sql -> {
        if (sql.contains("sys.triggers")) {
            return List.<Object[]>of(new Object[] {triggers});
        }
        if (sql.contains("sys.columns")) {
            return ORDERS_COLUMNS;
        }
        return sql.startsWith("WITH baton_claim") || sql.startsWith("DECLARE")
                ? List.<Object[]>of(CLAIMED.clone())
                : List.<Object[]>of();
    });

    private final Baton baton =
            Baton.builder(recorder.dataSource()).dialect(new SqlServerDialect()).build();
    private final ClaimQueue<Sync> queue =
            SqlServerLeaseSqlTest.orderSync(baton).lease(Duration.ofMinutes(2)).build();

    private final String plain = queue.claimSql(10).get(0);

    private static final String DECLARE = "DECLARE @baton_rows TABLE ([r1] bigint, [r2] int, [r3] nvarchar(max)"
            + " COLLATE SQL_Latin1_General_CP1_CI_AS, [r4] int, [r5] smallint, [r6] bigint); ";

    @Test
    void withoutTriggersTheClaimOutputsItsRowsDirectlyAndAsksOnce() {
        assertEquals(1, queue.claim(10).size());
        assertEquals(List.of(OutputInto.TRIGGERS_SQL, plain), recorder.take());
        assertEquals(1, queue.claim(10).size());
        assertEquals(List.of(plain), recorder.take(), "the catalog is asked on the first run only");
    }

    @Test
    void withTriggersTheClaimReturnsItsRowsThroughATableVariableTypedFromTheCatalog() {
        triggers = 2;
        List<ClaimedRow<Sync>> rows = queue.claim(10);
        String batch = DECLARE
                + plain.replace("deleted.[id] WHERE", "deleted.[id] INTO @baton_rows WHERE")
                + "; SELECT [r1], [r2], [r3], [r4], [r5], [r6] FROM @baton_rows";
        assertEquals("[[orders]]", recorder.bindsOf(0), "triggers of the table by its quoted name");
        assertEquals("[[orders]]", recorder.bindsOf(1), "columns of the table by its quoted name");
        assertEquals(List.of(OutputInto.TRIGGERS_SQL, OutputInto.COLUMNS_SQL, batch), recorder.take());
        assertEquals(1, rows.size());
        assertEquals(7L, rows.get(0).id());
        assertEquals(1, rows.get(0).attempt());
        assertEquals("tx", rows.get(0).get("payment_transaction_id"));
        parseBatch(batch);
        parseBatch(OutputInto.TRIGGERS_SQL.replace("?", "'[orders]'"));
        parseBatch(OutputInto.COLUMNS_SQL.replace("?", "'[orders]'"));

        queue.claim(10);
        assertEquals(List.of(batch), recorder.take(), "the catalog is asked on the first run only");
    }

    @Test
    void aTriggerEnabledAfterTheFirstRunFailsOneRunAndTheNextAsksAgain() {
        queue.claim(10);
        recorder.take();
        triggers = 1;
        recorder.failure = text -> text.equals(plain)
                ? new SQLException(
                        "The target table 'orders' of the DML statement cannot have any enabled triggers"
                                + " if the statement contains an OUTPUT clause without INTO clause.",
                        "S0001",
                        334)
                : null;
        assertThrows(DataAccessException.class, () -> queue.claim(10));
        assertEquals(List.of(plain), recorder.take());
        assertEquals(1, queue.claim(10).size());
        List<String> sql = recorder.take();
        assertEquals(List.of(OutputInto.TRIGGERS_SQL, OutputInto.COLUMNS_SQL), sql.subList(0, 2));
        assertEquals(3, sql.size());
        assertEquals(true, sql.get(2).startsWith(DECLARE), sql.get(2));
    }

    /** A statement without order (an unordered batch that returns rows) takes the UPDATE TOP form with INTO. */
    @Test
    void anUnorderedBatchReturningRowsTakesTheSameForm() throws Exception {
        triggers = 1;
        BatchUpdateSpec spec = BatchUpdateSpec.builder("[orders]", "[id]")
                .where(SqlFragment.of("[sync_status] = 1"))
                .set(SqlFragment.of("[sync_status] = 0"))
                .limit(100)
                .returning(List.of("[id]", "[payment_transaction_id]"))
                .build();
        String expected = "DECLARE @baton_rows TABLE ([r1] bigint, [r2] nvarchar(max) COLLATE"
                + " SQL_Latin1_General_CP1_CI_AS); UPDATE TOP (100) [orders] WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK) SET"
                + " [sync_status] = 0 OUTPUT inserted.[id], inserted.[payment_transaction_id] INTO @baton_rows WHERE"
                + " [sync_status] = 1; SELECT [r1], [r2] FROM @baton_rows";
        SqlRecorder r = new SqlRecorder(0, sql -> {
            if (sql.contains("sys.triggers")) {
                return List.<Object[]>of(new Object[] {1});
            }
            return sql.contains("sys.columns") ? ORDERS_COLUMNS : List.<Object[]>of(new Object[] {3L, "x"});
        });
        try (Connection c = r.dataSource().getConnection()) {
            List<Object[]> rows = SqlServerBatchUpdate.render(spec).execute(c, new Object[0]);
            assertEquals(1, rows.size());
            assertArrayEquals(new Object[] {3L, "x"}, rows.get(0));
        }
        assertEquals(List.of(OutputInto.TRIGGERS_SQL, OutputInto.COLUMNS_SQL, expected), r.take());
        parseBatch(expected);
    }

    @Test
    void tableVariableColumnsTakeTheCatalogsTypes() {
        assertEquals(
                "varchar(50) COLLATE Latin1_General_CI_AS",
                OutputInto.declaredType("varchar", 50, 0, 0, "Latin1_General_CI_AS"));
        assertEquals(
                "nvarchar(50) COLLATE Latin1_General_100_BIN2",
                OutputInto.declaredType("nvarchar", 100, 0, 0, "Latin1_General_100_BIN2"));
        assertEquals("nchar(10)", OutputInto.declaredType("nchar", 20, 0, 0, null));
        assertEquals("varbinary(max)", OutputInto.declaredType("varbinary", -1, 0, 0, null));
        assertEquals("binary(16)", OutputInto.declaredType("binary", 16, 0, 0, null));
        assertEquals("decimal(18, 2)", OutputInto.declaredType("decimal", 9, 18, 2, null));
        assertEquals("numeric(38, 0)", OutputInto.declaredType("numeric", 17, 38, 0, null));
        assertEquals("datetime2(6)", OutputInto.declaredType("datetime2", 8, 26, 6, null));
        assertEquals("datetimeoffset(7)", OutputInto.declaredType("datetimeoffset", 10, 34, 7, null));
        assertEquals("time(3)", OutputInto.declaredType("time", 4, 12, 3, null));
        assertEquals("float(53)", OutputInto.declaredType("float", 8, 53, 0, null));
        assertEquals("binary(8)", OutputInto.declaredType("timestamp", 8, 0, 0, null), "rowversion");
        assertEquals(
                "nvarchar(max) COLLATE Latin1_General_CI_AS",
                OutputInto.declaredType("ntext", 16, 0, 0, "Latin1_General_CI_AS"));
        assertEquals("datetime", OutputInto.declaredType("datetime", 8, 23, 3, null));
        assertEquals("uniqueidentifier", OutputInto.declaredType("uniqueidentifier", 16, 0, 0, null));
        assertEquals("geography", OutputInto.declaredType("geography", -1, 0, 0, null));
        assertThrows(
                dev.baton.ConfigurationException.class,
                () -> OutputInto.declaredType("int; DROP TABLE x", 4, 10, 0, null));
        String declared =
                "DECLARE @t TABLE ([a] " + OutputInto.declaredType("varchar", 50, 0, 0, "Latin1_General_CI_AS")
                        + ", [b] " + OutputInto.declaredType("decimal", 9, 18, 2, null) + ", [c] "
                        + OutputInto.declaredType("varbinary", -1, 0, 0, null) + "); SELECT [a] FROM @t";
        parseBatch(declared);
    }

    /** Parses a T-SQL batch with Druid's SQL Server grammar: every statement, completely. */
    static void parseBatch(String tsql) {
        int statements = tsql.split("; ").length;
        assertEquals(
                statements, SQLUtils.parseStatements(tsql, DbType.sqlserver).size(), tsql);
    }
}
