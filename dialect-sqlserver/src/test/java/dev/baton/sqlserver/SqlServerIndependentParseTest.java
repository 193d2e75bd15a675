package dev.baton.sqlserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.ClaimQueueBuilder;
import dev.baton.Condition;
import dev.baton.ConfigurationException;
import dev.baton.GroupWeights;
import dev.baton.RateLimit;
import dev.baton.StateTable;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.compat.Sync;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Every statement the dialect renders, parsed a second time by a parser independent of Druid ({@link
 * TsqlIndependentParser}: Apache ShardingSphere's SQL Server grammar) and checked by {@link TsqlStrict}: what this
 * class renders itself (every combination of the claim's shapes, sweeps and health counts of each, the own tables'
 * DDL, the lock, the session probes), and what every other test class of the module recorded or parsed before it (it
 * runs last). The grammar is not a full T-SQL grammar: statements of the kinds it has no rule for are counted and
 * named, never parsed. A pass proves that the grammar reads each statement it has rules for, and that no statement
 * breaks the strict rules; it proves nothing about what SQL Server does with them.
 */
@Order(Integer.MAX_VALUE)
class SqlServerIndependentParseTest {
    private final SqlRecorder recorder = new SqlRecorder(0, text -> List.of());
    private final Baton baton =
            Baton.builder(recorder.dataSource()).dialect(new SqlServerDialect()).build();

    private ClaimQueueBuilder<Sync> jobs() {
        return baton.<Sync>queue("jobs")
                .table("app.jobs")
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .eligibleWhen(Condition.in("region", "eu", "us"), Condition.isNull("hold"))
                .deadState(Sync.FAILED)
                .lease(Duration.ofMinutes(1));
    }

    /** Every claim shape: priority or not, fair (weighted) or not, per-key limit or not, idempotent sink or not. */
    private List<ClaimQueue<Sync>> shapes() {
        List<ClaimQueue<Sync>> queues = new ArrayList<>();
        for (int shape = 0; shape < 48; shape++) {
            ClaimQueueBuilder<Sync> b = jobs();
            if ((shape & 1) != 0) {
                b.priority("prio");
            }
            switch ((shape >> 1) % 3) {
                case 1 -> b.fairAcross("tenant");
                case 2 -> b.fairAcross("tenant", GroupWeights.of(Map.of("gold", 3, "silver", 2)));
                default -> {}
            }
            if ((shape / 6) % 2 != 0) {
                b.concurrencyPerKey("acct", 2);
            }
            if ((shape / 12) % 2 != 0) {
                b.nonIdempotentSink(Sync.SENDING, Sync.UNKNOWN);
            }
            if ((shape / 24) % 2 != 0) {
                b.rateLimit(RateLimit.perSecond(50, 10));
            }
            try {
                queues.add(b.build());
            } catch (ConfigurationException refused) {
                // a combination the builder refuses renders nothing
            }
        }
        return queues;
    }

    private Set<String> rendered() {
        Set<String> out = new LinkedHashSet<>();
        for (ClaimQueue<Sync> q : shapes()) {
            out.addAll(q.claimSql(50));
            out.add(q.suggestedIndex());
            out.addAll(q.createTableSql());
            q.reclaimExpired();
            for (int limit : new int[] {0, 100}) {
                try {
                    QueueHealthOf.read(q, limit);
                } catch (RuntimeException noRows) {
                    // the recorder answers no rows: the counts' text is recorded all the same
                }
            }
        }
        var ordered = baton.outbox("baton_outbox").queue();
        out.addAll(ordered.claimSql(20));
        StateTable<Payment> orders = baton.table("orders").state("payment_status", Payment.MACHINE);
        out.add(orders.transition(1L, Payment.PENDING, Payment.PAID)
                .set("payment_transaction_id", "tx")
                .sql());
        out.addAll(orders.bulk(Payment.PENDING, Payment.EXPIRED)
                .where(Condition.olderThan("created_at", Duration.ofMinutes(15)))
                .sql());
        var own = baton.ownTables();
        out.addAll(own.idempotencyKeysDdl("baton_idempotency_keys"));
        out.addAll(own.inboxDdl("baton_inbox"));
        out.addAll(own.outboxDdl("baton_outbox"));
        out.addAll(own.receiptsDdl("baton_receipts"));
        out.addAll(own.rateLimitsDdl("baton_rate_limits"));
        out.add(new SqlServerSql().exclusiveLock(42L, "[app].[jobs]").acquire());
        out.addAll(List.of(
                SqlServerDiagnostics.ENGINE_EDITION_SQL,
                SqlServerDiagnostics.SESSION_OPTIONS_SQL,
                SqlServerDiagnostics.TRANSACTION_STATE_SQL,
                SqlServerDiagnostics.RCSI_SQL,
                SqlServerDiagnostics.UPDATEABILITY_SQL,
                OutputInto.TRIGGERS_SQL,
                OutputInto.COLUMNS_SQL));
        out.addAll(recorder.take());
        return out;
    }

    @Test
    void everyStatementTheDialectRendersParsesAgainWithAnIndependentGrammar() {
        Set<String> batches = new LinkedHashSet<>(rendered());
        batches.addAll(new TreeMap<String, Boolean>(Map.copyOf(toMap(SqlRecorder.SEEN))).keySet());
        int parsed = 0;
        int hintsLeftOut = 0;
        Map<String, Integer> outside = new TreeMap<>();
        List<String> failed = new ArrayList<>();
        for (String batch : batches) {
            for (String problem : TsqlStrict.problems(batch)) {
                failed.add(problem + ": " + batch);
            }
            for (String statement : TsqlIndependentParser.statements(batch)) {
                String construct = TsqlIndependentParser.outsideGrammar(statement);
                if (construct != null) {
                    outside.merge(construct, 1, Integer::sum);
                    continue;
                }
                List<String> errors = TsqlIndependentParser.errors(statement);
                if (errors.isEmpty()) {
                    parsed++;
                    hintsLeftOut += TsqlIndependentParser.hintsBeforeJoin(statement)
                                    || statement.endsWith(" OPTION (MAXRECURSION 0)")
                            ? 1
                            : 0;
                } else {
                    failed.add(errors.get(0) + ": " + statement);
                }
            }
        }
        System.out.println("independent T-SQL parse (ShardingSphere 5.5.2 SQL Server grammar): " + batches.size()
                + " batches, " + parsed + " statements parsed (" + hintsLeftOut
                + " without the hints of a joined table or MAXRECURSION), "
                + failed.size() + " failed; outside the grammar: " + outside);
        assertEquals(List.of(), failed, String.join("\n", failed));
        assertTrue(parsed > 100, "parsed " + parsed);
    }

    /** {@code health()} for 0, else {@code health(limit)}. */
    private static final class QueueHealthOf {
        static void read(ClaimQueue<Sync> q, int limit) {
            if (limit == 0) {
                q.health();
            } else {
                q.health(limit);
            }
        }
    }

    private static Map<String, Boolean> toMap(Set<String> texts) {
        Map<String, Boolean> m = new TreeMap<>();
        synchronized (texts) {
            for (String t : List.copyOf(texts)) {
                m.put(t, true);
            }
        }
        return m;
    }
}
