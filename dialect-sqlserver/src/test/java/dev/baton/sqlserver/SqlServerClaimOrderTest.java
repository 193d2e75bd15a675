package dev.baton.sqlserver;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.testkit.compat.Sync;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code OUTPUT} rows come in no defined order (learn.microsoft.com, OUTPUT clause), while a claim returns the queue's
 * order on every database. The claim outputs the order columns as they were before the update and the dialect sorts by
 * them. Here the statement's rows arrive shuffled, as SQL Server may send them.
 */
class SqlServerClaimOrderTest {

    @Test
    void claimedRowsComeInTheQueueOrderWhateverOrderOutputSendsThem() {
        // returned: id, attempts, then deleted.[sync_status], deleted.[created_at], deleted.[id]
        List<Object[]> shuffled = List.of(
                new Object[] {9L, 1, 0, java.sql.Timestamp.valueOf("2026-01-01 10:00:00"), 9L},
                new Object[] {4L, 2, 0, java.sql.Timestamp.valueOf("2026-01-01 09:00:00"), 4L},
                new Object[] {7L, 1, 0, java.sql.Timestamp.valueOf("2026-01-01 10:00:00"), 7L},
                new Object[] {2L, 1, 0, java.sql.Timestamp.valueOf("2026-01-01 11:00:00"), 2L});
        SqlRecorder recorder = new SqlRecorder(0, sql -> sql.startsWith("WITH baton_claim") ? shuffled : List.of());
        Baton baton = Baton.builder(recorder.dataSource())
                .dialect(new SqlServerDialect())
                .build();
        ClaimQueue<Sync> queue = baton.<Sync>queue("jobs")
                .table("jobs")
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .orderBy("created_at", "id")
                .deadState(Sync.FAILED)
                .lease(Duration.ofMinutes(1))
                .build();
        List<Object> ids = new ArrayList<>();
        for (ClaimedRow<Sync> row : queue.claim(10)) {
            ids.add(row.id());
        }
        assertEquals(List.of(4L, 7L, 9L, 2L), ids, "created_at, then id");
        assertEquals(
                "WITH baton_claim AS (SELECT TOP (10) * FROM [jobs] WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK) WHERE"
                        + " [sync_status] = 0 AND ([next_attempt_at] IS NULL OR [next_attempt_at] <= SYSUTCDATETIME())"
                        + " AND [attempts] < ? ORDER BY [sync_status], [created_at], [id]) UPDATE baton_claim SET [sync_status] = ?,"
                        + " [lease_until] = DATEADD(millisecond, 60000, SYSUTCDATETIME()), [claim_token] = ?,"
                        + " [attempts] = [attempts] + 1 OUTPUT inserted.[id], inserted.[attempts],"
                        + " deleted.[sync_status], deleted.[created_at], deleted.[id] WHERE [sync_status] = 0 AND"
                        + " ([next_attempt_at] IS NULL OR [next_attempt_at] <= SYSUTCDATETIME()) AND [attempts] < ?",
                recorder.take().get(1),
                "after the triggers query of the first run");
    }

    /** Rows read back from the table variable of the OUTPUT … INTO form are sorted the same way. */
    @Test
    void rowsThroughTheTableVariableComeInTheQueueOrderToo() {
        List<Object[]> shuffled = List.of(
                new Object[] {9L, 1, 0, java.sql.Timestamp.valueOf("2026-01-01 10:00:00"), 9L},
                new Object[] {4L, 2, 0, java.sql.Timestamp.valueOf("2026-01-01 09:00:00"), 4L},
                new Object[] {2L, 1, 0, java.sql.Timestamp.valueOf("2026-01-01 11:00:00"), 2L});
        List<Object[]> columns = List.of(
                new Object[] {"id", "bigint", 8, 19, 0, null},
                new Object[] {"attempts", "int", 4, 10, 0, null},
                new Object[] {"sync_status", "int", 4, 10, 0, null},
                new Object[] {"created_at", "datetime2", 8, 27, 7, null});
        SqlRecorder recorder = new SqlRecorder(0, sql -> {
            if (sql.contains("sys.triggers")) {
                return List.<Object[]>of(new Object[] {1});
            }
            return sql.contains("sys.columns") ? columns : sql.startsWith("DECLARE") ? shuffled : List.of();
        });
        ClaimQueue<Sync> queue = Baton.builder(recorder.dataSource())
                .dialect(new SqlServerDialect())
                .build()
                .<Sync>queue("jobs")
                .table("jobs")
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .orderBy("created_at", "id")
                .deadState(Sync.FAILED)
                .build();
        List<Object> ids = new ArrayList<>();
        for (ClaimedRow<Sync> row : queue.claim(10)) {
            ids.add(row.id());
        }
        assertEquals(List.of(4L, 9L, 2L), ids, "created_at, then id");
        String batch = recorder.take().get(2);
        assertEquals(
                "DECLARE @baton_rows TABLE ([r1] bigint, [r2] int, [r3] int, [r4] datetime2(7), [r5] bigint);",
                batch.substring(0, batch.indexOf(';') + 1));
    }

    @Test
    void descendingColumnsAndNullsSortAsSqlServerSortsThem() {
        List<Object[]> rows = new ArrayList<>(List.of(
                new Object[] {"a", 1, 3L}, new Object[] {"b", null, 5L}, new Object[] {"c", 1, 4L}, new Object[] {
                    "d", 2, 1L
                }));
        // ORDER BY priority, id DESC: NULL first ascending, as SQL Server sorts it
        List<Object[]> sorted =
                SqlServerBatchUpdate.sorted(rows, SqlServerBatchUpdate.queueOrder(1, List.of(false, true)), 1);
        List<Object> firsts = new ArrayList<>();
        for (Object[] r : sorted) {
            assertEquals(1, r.length, "the order columns are cut off");
            firsts.add(r[0]);
        }
        assertEquals(List.of("b", "c", "a", "d"), firsts);
        // mixed integer types of one column (INT and BIGINT read back) compare by value
        List<Object[]> mixed = new ArrayList<>(List.<Object[]>of(new Object[] {"x", 10L}, new Object[] {"y", 9}));
        assertEquals(
                "y",
                SqlServerBatchUpdate.sorted(mixed, SqlServerBatchUpdate.queueOrder(1, List.of(false)), 1)
                        .get(0)[0]);
    }
}
