package dev.baton.sqlserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.druid.DbType;
import com.alibaba.druid.sql.SQLUtils;
import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.GroupWeights;
import dev.baton.RateLimit;
import dev.baton.spi.ExclusiveLock;
import dev.baton.testkit.compat.Sync;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Shaped claims on SQL Server, which cannot run here: the claim of a queue with a per-key limit, fairness
 * and a priority, its index and its lock, and the token bucket of a rate limit around a claim, are pinned by exact text
 * and parsed as T-SQL. The shared suite
 * ({@code AbstractClaimShapeCompatibilityTest}, {@code AbstractRateLimitCompatibilityTest}) runs them for real wherever {@code BATON_TEST_SQLSERVER_URL} is set.
 */
class SqlServerClaimShapeSqlTest {
    private static final String GUARD =
            "[sync_status] = 0 AND ([next_attempt_at] IS NULL OR [next_attempt_at] <= SYSUTCDATETIME()) AND [attempts] < ?";
    private final Baton baton = Baton.builder(new SqlServerSqlTest.NoConnections())
            .dialect(new SqlServerDialect())
            .build();

    private dev.baton.ClaimQueueBuilder<Sync> jobs() {
        return baton.<Sync>queue("jobs")
                .table("jobs")
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .deadState(Sync.FAILED)
                .lease(Duration.ofMinutes(1));
    }

    @Test
    void aPriorityComesBeforeTheOrderInTheClaimAndItsIndex() {
        ClaimQueue<Sync> q = jobs().priority("prio").build();
        String sql = q.claimSql(50).get(0);
        assertEquals(
                "WITH baton_claim AS (SELECT TOP (50) * FROM [jobs] WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK) WHERE "
                        + GUARD
                        + " ORDER BY [sync_status], [prio] DESC, [id]) UPDATE baton_claim SET [sync_status] = ?,"
                        + " [lease_until] = DATEADD(millisecond, 60000, SYSUTCDATETIME()), [claim_token] = ?,"
                        + " [attempts] = [attempts] + 1 OUTPUT inserted.[id], inserted.[attempts],"
                        + " deleted.[sync_status], deleted.[prio], deleted.[id] WHERE " + GUARD,
                sql);
        SqlServerSqlTest.parse(sql);
        assertEquals(
                "CREATE INDEX [ix_jobs_jobs_claim] ON [jobs] ([sync_status], [prio] DESC, [id])"
                        + " INCLUDE ([lease_until], [next_attempt_at], [attempts])",
                q.suggestedIndex());
    }

    @Test
    void fairnessAndAPerKeyLimitRankCandidatesBeforeThePick() {
        ClaimQueue<Sync> q = jobs().fairAcross("tenant")
                .concurrencyPerKey("acct", 3)
                .priority("prio")
                .build();
        String sql = q.claimSql(50).get(0);
        String order = "[sync_status], [prio] DESC, [id]";
        assertEquals(
                "WITH baton_claim AS (SELECT TOP (50) [jobs].* FROM [jobs] WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK) JOIN"
                        + " (SELECT baton_ranked.baton_id, baton_ranked.baton_rank FROM (SELECT [id] AS baton_id,"
                        + " ROW_NUMBER() OVER (PARTITION BY [tenant], [prio] ORDER BY " + order + ") AS baton_rank,"
                        + " [acct] AS baton_key, ROW_NUMBER() OVER (PARTITION BY [acct] ORDER BY " + order
                        + ") AS baton_in_key FROM [jobs] WHERE " + GUARD + ") baton_ranked LEFT JOIN (SELECT [acct] AS"
                        + " baton_key, COUNT(*) AS baton_held FROM [jobs] WHERE [sync_status] = 1 GROUP BY [acct])"
                        + " baton_holding ON baton_holding.baton_key = baton_ranked.baton_key WHERE"
                        + " baton_ranked.baton_rank <= 200 AND (baton_ranked.baton_key IS NULL OR"
                        + " baton_ranked.baton_in_key + COALESCE(baton_holding.baton_held, 0) <= 3)) baton_candidate"
                        + " ON baton_candidate.baton_id"
                        + " = [jobs].[id] WHERE " + GUARD + " ORDER BY [sync_status], [prio] DESC,"
                        + " baton_candidate.baton_rank, [id]) UPDATE baton_claim SET [sync_status] = ?, [lease_until] ="
                        + " DATEADD(millisecond, 60000, SYSUTCDATETIME()), [claim_token] = ?, [attempts] = [attempts]"
                        + " + 1 OUTPUT inserted.[id], inserted.[attempts], deleted.[sync_status], deleted.[prio],"
                        + " deleted.[id] WHERE " + GUARD,
                sql);
        SqlServerSqlTest.parse(sql);
    }

    /**
     * FairAcross alone reads group by group: a recursive CTE walks the distinct groups (TOP 1 in a derived table of the anchor, as ORDER BY may only follow the last query of a UNION; the first
     * row by ROW_NUMBER of a join in the recursive member, where T-SQL allows no TOP or subquery), CROSS APPLY reads
     * each group's first 4 × n rows, NULL apart; the best 4 × n in round-robin order are the candidates. Its index has
     * the group before the order; the returned rows keep the queue's order.
     */
    @Test
    void fairnessAloneReadsGroupByGroupThroughItsIndex() {
        ClaimQueue<Sync> q = jobs().fairAcross("tenant").build();
        String sql = q.claimSql(50).get(0);
        String first = "SELECT TOP (200) [id] AS baton_id, [id] AS baton_o1 FROM [jobs] WHERE " + GUARD + " AND ";
        assertEquals(
                "WITH baton_groups(baton_group) AS (SELECT baton_first_group.baton_group FROM (SELECT TOP (1)"
                        + " [tenant] AS baton_group FROM [jobs] WHERE " + GUARD + " AND [tenant] IS NOT NULL ORDER BY"
                        + " [tenant]) baton_first_group UNION ALL SELECT baton_next.baton_group FROM"
                        + " (SELECT [jobs].[tenant] AS baton_group, ROW_NUMBER() OVER (ORDER BY [jobs].[tenant]) AS"
                        + " baton_n FROM [jobs] JOIN baton_groups ON [jobs].[tenant] > baton_groups.baton_group WHERE "
                        + GUARD + ") baton_next WHERE baton_next.baton_n = 1), baton_claim AS (SELECT TOP (50)"
                        + " [jobs].* FROM [jobs] WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK) JOIN (SELECT TOP (200) baton_id,"
                        + " baton_rank FROM (SELECT baton_id, ROW_NUMBER() OVER (PARTITION BY baton_group ORDER BY"
                        + " baton_o1) AS baton_rank, baton_o1 FROM (SELECT baton_groups.baton_group, baton_first.* FROM"
                        + " baton_groups CROSS APPLY (" + first + "[tenant] = baton_groups.baton_group ORDER BY"
                        + " [tenant], [id]) baton_first UNION ALL SELECT NULL, baton_nulls.* FROM (" + first
                        + "[tenant] IS NULL ORDER BY [tenant], [id]) baton_nulls) baton_rows) baton_per_group ORDER BY"
                        + " baton_rank, baton_o1) baton_candidate ON baton_candidate.baton_id = [jobs].[id] WHERE "
                        + GUARD + " ORDER BY [sync_status], baton_candidate.baton_rank, [id]) UPDATE baton_claim SET"
                        + " [sync_status] = ?, [lease_until] = DATEADD(millisecond, 60000, SYSUTCDATETIME()),"
                        + " [claim_token] = ?, [attempts] = [attempts] + 1 OUTPUT inserted.[id], inserted.[attempts],"
                        + " deleted.[sync_status], deleted.[id] WHERE " + GUARD + " OPTION (MAXRECURSION 0)",
                sql);
        String hint = " OPTION (MAXRECURSION 0)";
        SqlServerSqlTest.parse(sql.substring(0, sql.length() - hint.length())); // the parser knows no query hints
        assertEquals(
                "CREATE INDEX [ix_jobs_jobs_claim] ON [jobs] ([sync_status], [tenant], [id])"
                        + " INCLUDE ([lease_until], [next_attempt_at], [attempts])",
                q.suggestedIndex());
    }

    /**
     * Weights per group change only the rank of the round-robin read: the place within the group becomes the turn,
     * {@code (place + w - 1) / w} (integer division of {@code bigint} by {@code int} in T-SQL), {@code w} a {@code CASE}
     * over the group with the weights bound, never in the text; the rest of the claim is the unweighted one.
     */
    @Test
    void groupWeightsMakeTheRankATurnWithTheWeightsBound() {
        ClaimQueue<Sync> plain = jobs().fairAcross("tenant").build();
        ClaimQueue<Sync> weighted =
                jobs().fairAcross("tenant", GroupWeights.of(Map.of("gold", 3))).build();
        String place = "ROW_NUMBER() OVER (PARTITION BY baton_group ORDER BY baton_o1)";
        String weight = "CASE baton_group WHEN ? THEN ? ELSE 1 END";
        String sql = weighted.claimSql(50).get(0);
        assertEquals(
                plain.claimSql(50).get(0).replace(place, "(" + place + " + " + weight + " - 1) / (" + weight + ")"),
                sql);
        assertTrue(sql.contains("(" + place + " + " + weight + " - 1) / (" + weight + ") AS baton_rank"), sql);
        assertFalse(sql.contains("gold"), "the group is bound: " + sql);
        String hint = " OPTION (MAXRECURSION 0)";
        SqlServerSqlTest.parse(sql.substring(0, sql.length() - hint.length()));
        assertEquals(plain.suggestedIndex(), weighted.suggestedIndex());
    }

    /**
     * With a priority as well, the claim ranks every eligible row: the turn is taken over the group column of the table,
     * and the rows a group may offer are bounded by their place ({@code baton_in_group}), not by the turn.
     */
    @Test
    void groupWeightsInTheRankingOfEveryCandidate() {
        ClaimQueue<Sync> q = jobs().fairAcross("tenant", GroupWeights.of(Map.of("gold", 3, "silver", 2)))
                .priority("prio")
                .build();
        String sql = q.claimSql(50).get(0);
        String order = "[sync_status], [prio] DESC, [id]";
        String place = "ROW_NUMBER() OVER (PARTITION BY [tenant], [prio] ORDER BY " + order + ")";
        String weight = "CASE [tenant] WHEN ? THEN ? WHEN ? THEN ? ELSE 1 END";
        assertEquals(
                "WITH baton_claim AS (SELECT TOP (50) [jobs].* FROM [jobs] WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK) JOIN"
                        + " (SELECT baton_ranked.baton_id, baton_ranked.baton_rank FROM (SELECT [id] AS baton_id, ("
                        + place + " + " + weight + " - 1) / (" + weight + ") AS baton_rank, " + place
                        + " AS baton_in_group FROM [jobs] WHERE " + GUARD + ") baton_ranked WHERE"
                        + " baton_ranked.baton_in_group <= 200) baton_candidate ON baton_candidate.baton_id = [jobs].[id]"
                        + " WHERE " + GUARD + " ORDER BY [sync_status], [prio] DESC, baton_candidate.baton_rank, [id])"
                        + " UPDATE baton_claim SET [sync_status] = ?, [lease_until] = DATEADD(millisecond, 60000,"
                        + " SYSUTCDATETIME()), [claim_token] = ?, [attempts] = [attempts] + 1 OUTPUT inserted.[id],"
                        + " inserted.[attempts], deleted.[sync_status], deleted.[prio], deleted.[id] WHERE " + GUARD,
                sql);
        SqlServerSqlTest.parse(sql);
    }

    /**
     * Mssql-jdbc's {@code setAutoCommit(false)} begins no transaction until a statement reads or writes a table, and
     * {@code sp_getapplock} owned by a transaction outside one returns -999 without the lock: the batch reads the
     * claimed table first (no row) and throws if there is still no transaction.
     */
    @Test
    void theClaimLockIsAnApplicationLockOwnedByATransactionTheBatchBegins() {
        ExclusiveLock lock = new SqlServerDialect().sql().exclusiveLock(42L, "[app].[jobs]");
        assertEquals(
                "DECLARE @baton_lock INT = -999; SELECT @baton_lock = 0 FROM [app].[jobs] WHERE 1 = 0;"
                        + " IF @@TRANCOUNT = 0 THROW 51000, N'the claim lock needs a transaction', 1;"
                        + " EXEC @baton_lock = sp_getapplock @Resource = N'baton_claim_000000000000002a',"
                        + " @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 60000;"
                        + " SELECT CASE WHEN @baton_lock >= 0 THEN 1 ELSE 0 END",
                lock.acquire());
        // Druid knows no THROW (SQL Server 2012+): the other four statements are parsed, THROW is pinned by its text
        String withoutThrow = lock.acquire()
                .replace(" IF @@TRANCOUNT = 0 THROW 51000, N'the claim lock needs a transaction', 1;", "");
        assertEquals(4, SQLUtils.parseStatements(withoutThrow, DbType.sqlserver).size(), withoutThrow);
        assertNull(lock.releaseAfterEnd(), "the end of the transaction releases it");
        assertThrows(
                UnsupportedOperationException.class,
                () -> new SqlServerDialect().sql().exclusiveLock(42L));
    }

    @Test
    void aClaimOfAQueueWithAPerKeyLimitTakesTheLockThroughItsTable() {
        SqlRecorder recorder = new SqlRecorder(
                0, text -> text.startsWith("DECLARE @baton_lock") ? List.<Object[]>of(new Object[] {1}) : List.of());
        Baton recorded = Baton.builder(recorder.dataSource())
                .dialect(new SqlServerDialect())
                .build();
        recorded.<Sync>queue("jobs")
                .table("app.jobs")
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .deadState(Sync.FAILED)
                .concurrencyPerKey("acct", 3)
                .build()
                .claim(10);
        String lock = recorder.take().get(0);
        assertTrue(
                lock.startsWith(
                        "DECLARE @baton_lock INT = -999; SELECT @baton_lock = 0 FROM [app].[jobs] WHERE 1 = 0;"),
                lock);
    }

    /**
     * A fair claim binds its guard's values six times: 350 values of a Condition.in list would exceed the 2,100
     * parameters of a request (error 8003), refused when the claim is rendered, before any SQL.
     */
    @Test
    void aClaimOverTheParameterLimitIsRefusedBeforeAnySql() {
        List<Object> regions = new java.util.ArrayList<>();
        for (int i = 0; i < 350; i++) {
            regions.add("r" + i);
        }
        dev.baton.ConfigurationException e =
                assertThrows(dev.baton.ConfigurationException.class, () -> jobs().eligibleWhen(
                                dev.baton.Condition.in("region", regions.toArray()))
                        .fairAcross("tenant")
                        .build()
                        .claimSql(50));
        assertTrue(e.getMessage().contains("2,100 parameters"), e.getMessage());
        assertEquals(
                1,
                jobs().eligibleWhen(dev.baton.Condition.in(
                                "region", regions.subList(0, 300).toArray()))
                        .fairAcross("tenant")
                        .build()
                        .claimSql(50)
                        .size());
    }

    @Test
    void aRateLimitLocksItsBucketRowAroundTheClaimInOneTransaction() {
        String clock = "DATEDIFF_BIG(MICROSECOND, CAST('19700101' AS DATETIME2(6)), SYSUTCDATETIME())";
        ClaimQueue<Sync> q = jobs().rateLimit(RateLimit.perSecond(50, 10).table("ops.limits"))
                .build();
        List<String> sql = q.claimSql(50);
        assertEquals(
                List.of(
                        "SELECT [full_at_micros], " + clock + " FROM [ops].[limits] WITH (UPDLOCK, ROWLOCK) WHERE"
                                + " [queue_name] = ?",
                        jobs().build().claimSql(50).get(0),
                        "INSERT INTO [ops].[limits] ([queue_name], [full_at_micros]) SELECT [queue_name],"
                                + " [full_at_micros] FROM (VALUES (?, " + clock + ")) AS baton_new ([queue_name],"
                                + " [full_at_micros]) WHERE NOT EXISTS (SELECT 1 FROM [ops].[limits] AS baton_old WITH"
                                + " (UPDLOCK, HOLDLOCK, INDEX([limits_pk])) WHERE baton_old.[queue_name] ="
                                + " baton_new.[queue_name])",
                        "UPDATE [ops].[limits] SET [full_at_micros] = CASE WHEN [full_at_micros] > " + clock
                                + " + ? THEN " + clock + " + ? WHEN [full_at_micros] > " + clock
                                + " THEN [full_at_micros] ELSE " + clock + " END + ? WHERE [queue_name] = ?"),
                sql);
        for (String s : sql) {
            SqlServerSqlTest.parse(s);
        }
        List<String> ddl = baton.ownTables().rateLimitsDdl("ops.limits");
        assertEquals(1, ddl.size(), ddl.toString());
        assertTrue(ddl.get(0).contains("CONSTRAINT [limits_pk] PRIMARY KEY ([queue_name])"), ddl.get(0));
        SqlServerSqlTest.parse(ddl.get(0));
    }
}
