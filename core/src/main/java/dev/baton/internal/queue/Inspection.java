package dev.baton.internal.queue;

import dev.baton.Condition;
import dev.baton.QueueHealth;
import dev.baton.RateLimit;
import dev.baton.SchemaMismatchException;
import dev.baton.SendDurability;
import dev.baton.internal.SchemaCheck;
import dev.baton.internal.TableDdl;
import dev.baton.internal.UsedColumns;
import dev.baton.internal.tables.OwnTableSql;
import dev.baton.internal.values.Identifiers;
import dev.baton.spi.ColumnType;
import dev.baton.spi.Dialect;
import dev.baton.spi.OwnTableDialect.OwnTable;
import dev.baton.spi.Rows;
import dev.baton.spi.SqlFragment;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;

/**
 * What the queue reports about its table: health (one query, database clock), verify (columns, unique id and, where
 * the dialect can tell, an index that serves the claim) and the DDL of that index. Thread-safe.
 *
 * @param <S> the enum of states
 */
public final class Inspection<S extends Enum<S>> {
    private final QueueShape<S> shape;
    private final Claimer<S, ?> claimer;
    private final Sweeps<S> sweeps;

    /**
     * Inspection of the queue of {@code shape}; {@code claimer} and {@code sweeps} supply the claim and the expiry
     * sweep the planner is asked about.
     */
    public Inspection(QueueShape<S> shape, Claimer<S, ?> claimer, Sweeps<S> sweeps) {
        this.shape = shape;
        this.claimer = claimer;
        this.sweeps = sweeps;
    }

    /** Measures the queue (one query, database clock). */
    public QueueHealth health() {
        Dialect d = shape.dialect;
        String now = d.sql().currentTimestamp();
        String qLease = shape.qLease;
        String ageColumn = shape.def.columns().age();
        SqlFragment eligibleNow = shape.claimWhere;
        String rows = shape.qTable;
        List<Object> rowsBinds = List.of();
        if (shape.pickGuard != null) {
            // A row held behind an older row of its key (one in flight, or a dead one) is not eligible: no worker can
            // claim it. SQL Server allows no subquery inside an aggregate, so the test is a column of a derived table
            // named as the table, and it runs only for the rows the claim's guard lets through.
            String self = shape.qTable.substring(shape.qTable.lastIndexOf('.') + 1);
            rows = "(SELECT " + shape.qTable + ".*, CASE WHEN " + eligibleNow.sql() + " THEN CASE WHEN "
                    + shape.pickGuard.sql() + " THEN 1 ELSE 0 END ELSE 0 END AS baton_eligible FROM " + shape.qTable
                    + ") " + self;
            List<Object> binds = new ArrayList<>(eligibleNow.binds());
            binds.addAll(shape.pickGuard.binds());
            rowsBinds = binds;
            eligibleNow = SqlFragment.of("baton_eligible = 1");
        }
        SqlFragment isClaimable = shape.in(List.of(shape.claimable));
        SqlFragment isProcessing = shape.in(List.of(shape.processing));
        SqlFragment isDead = shape.in(List.of(shape.dead));
        SqlFragment isUnknown = shape.send.isPresent() ? shape.unknownIn() : SqlFragment.of("1=0");
        String age = ageColumn == null
                ? "NULL"
                : "MIN(CASE WHEN " + eligibleNow.sql() + " THEN " + Identifiers.quote(d, ageColumn) + " END)";
        String sql = "SELECT SUM(CASE WHEN " + eligibleNow.sql() + " THEN 1 ELSE 0 END), "
                + "SUM(CASE WHEN " + isClaimable.sql() + " THEN 1 ELSE 0 END), "
                + "SUM(CASE WHEN " + isProcessing.sql() + " AND " + qLease + " >= " + now + " THEN 1 ELSE 0 END), "
                + "SUM(CASE WHEN " + isProcessing.sql() + " AND " + qLease + " < " + now + " THEN 1 ELSE 0 END), "
                + "SUM(CASE WHEN " + isDead.sql() + " THEN 1 ELSE 0 END), "
                + "SUM(CASE WHEN " + isUnknown.sql() + " THEN 1 ELSE 0 END), "
                + age + ", " + now + " FROM " + rows;
        List<Object> b = new ArrayList<>();
        b.addAll(eligibleNow.binds());
        b.addAll(isClaimable.binds());
        b.addAll(isProcessing.binds());
        b.addAll(isProcessing.binds());
        b.addAll(isDead.binds());
        b.addAll(isUnknown.binds());
        if (ageColumn != null) {
            b.addAll(eligibleNow.binds());
        }
        b.addAll(rowsBinds);
        QueueHealth counted = shape.engine.reader().tx().autocommit("measure queue '" + shape.name + "'", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                Rows.bind(ps, 1, b);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    long eligibleCount = rs.getLong(1);
                    Duration oldest = age(ageColumn == null ? null : rs.getTimestamp(7), rs.getTimestamp(8));
                    return new QueueHealth(
                            eligibleCount,
                            rs.getLong(2) - eligibleCount,
                            rs.getLong(3),
                            rs.getLong(4),
                            rs.getLong(5),
                            rs.getLong(6),
                            oldest);
                }
            }
        });
        return withDurability(counted);
    }

    /** {@code counted} with the writer's standbys and the send-durability problem, for a queue whose policy is not OFF. */
    private QueueHealth withDurability(QueueHealth counted) {
        if (shape.sendDurability() == SendDurability.OFF) {
            return counted;
        }
        // the standbys are the writer's: asked there even when the counts came from a reader
        OptionalInt standbys = shape.engine
                .tx()
                .autocommit(
                        "read the standbys of queue '" + shape.name + "'",
                        c -> shape.dialect.diagnostics().failoverStandbys(c));
        QueueHealth h = counted;
        return new QueueHealth(
                h.eligible(),
                h.waiting(),
                h.inFlight(),
                h.expiredLeases(),
                h.dead(),
                h.unknown(),
                h.oldestEligibleAge(),
                standbys.orElse(-1),
                durabilityProblem(standbys).orElse(null));
    }

    /**
     * Why the queue's SENDING marks cannot be durable on a standby now, for a queue whose policy is not {@code OFF}:
     * no standby a failover could promote, or none the database (or its user) reports.
     */
    private Optional<String> durabilityProblem(OptionalInt standbys) {
        SendDurability policy = shape.sendDurability();
        String effect = policy == SendDurability.REQUIRE
                ? "every send is refused (sendDurability REQUIRE)"
                : "every send waits "
                        + shape.send.orElseThrow().durabilityWait().toMillis() + " ms, then goes out (sendDurability"
                        + " WARN)";
        if (standbys.isEmpty()) {
            return Optional.of("queue '" + shape.name + "': the database does not report its standbys' progress to this"
                    + " user (PostgreSQL: GRANT pg_monitor; MySQL and MariaDB: only a Galera node reports it), so no SENDING mark"
                    + " is known durable: " + effect);
        }
        if (standbys.getAsInt() == 0) {
            return Optional.of("queue '" + shape.name + "': no standby streams from the writer (Galera: the writer"
                    + " is not a Synced node of a Primary component of two or more), so no SENDING mark can be durable"
                    + " on a failover target: " + effect);
        }
        return Optional.empty();
    }

    /**
     * Measures the queue with each count stopped at {@code limit}: one bounded statement per count ({@code SELECT
     * COUNT(*) FROM (SELECT 1 … WHERE <state> … LIMIT limit)}), so that none reads more than {@code limit} rows of its
     * state however many rows the table holds; the oldest eligible age is taken over the first {@code limit} eligible
     * rows in claim order (exact when fewer are eligible, or when the queue is ordered by its age column).
     */
    public QueueHealth health(int limit) {
        AdminPages.checkCount(limit, shape.name);
        Dialect d = shape.dialect;
        String now = d.sql().currentTimestamp();
        String from = "FROM " + shape.qTable + " WHERE ";
        // a row held behind an older row of its key is not eligible (see health())
        SqlFragment eligibleNow = shape.pickGuard == null
                ? shape.claimWhere
                : SqlFragment.join(" AND ", List.of(shape.claimWhere, shape.pickGuard));
        SqlFragment isClaimable = shape.in(List.of(shape.claimable));
        SqlFragment isProcessing = shape.in(List.of(shape.processing));
        SqlFragment isDead = shape.in(List.of(shape.dead));
        List<Object> waitingBinds = new ArrayList<>(isClaimable.binds());
        waitingBinds.addAll(eligibleNow.binds());
        String ageColumn = shape.def.columns().age();
        String oldest = ageColumn == null
                ? null
                : "SELECT MIN(baton_first.baton_age), " + now + " FROM ("
                        + d.sql()
                                .firstRows(
                                        "SELECT " + Identifiers.quote(d, ageColumn) + " AS baton_age " + from
                                                + eligibleNow.sql() + " ORDER BY " + String.join(", ", shape.orderBy),
                                        limit)
                        + ") baton_first";
        QueueHealth counted = shape.engine
                .reader()
                .tx()
                .autocommit("measure queue '" + shape.name + "' (counts up to " + limit + ")", c -> {
                    long eligible = AdminPages.count(c, shape, from + eligibleNow.sql(), eligibleNow.binds(), limit);
                    // NOT (guard) would drop rows whose guard is NULL; the CASE counts them as not eligible, as
                    // health() does
                    long waiting = AdminPages.count(
                            c,
                            shape,
                            from + isClaimable.sql() + " AND (CASE WHEN " + eligibleNow.sql()
                                    + " THEN 1 ELSE 0 END) = 0",
                            waitingBinds,
                            limit);
                    long inFlight = AdminPages.count(
                            c,
                            shape,
                            from + isProcessing.sql() + " AND " + shape.qLease + " >= " + now,
                            isProcessing.binds(),
                            limit);
                    long expired = AdminPages.count(
                            c,
                            shape,
                            from + isProcessing.sql() + " AND " + shape.qLease + " < " + now,
                            isProcessing.binds(),
                            limit);
                    long dead = AdminPages.count(c, shape, from + isDead.sql(), isDead.binds(), limit);
                    long unknown = 0;
                    if (shape.send.isPresent()) {
                        SqlFragment isUnknown = shape.unknownIn();
                        unknown = AdminPages.count(c, shape, from + isUnknown.sql(), isUnknown.binds(), limit);
                    }
                    Duration age = null;
                    if (oldest != null) {
                        try (PreparedStatement ps = c.prepareStatement(oldest)) {
                            Rows.bind(ps, 1, eligibleNow.binds());
                            try (ResultSet rs = ps.executeQuery()) {
                                rs.next();
                                age = age(rs.getTimestamp(1), rs.getTimestamp(2));
                            }
                        }
                    }
                    return new QueueHealth(eligible, waiting, inFlight, expired, dead, unknown, age);
                });
        return withDurability(counted);
    }

    private static @Nullable Duration age(@Nullable Timestamp oldest, @Nullable Timestamp now) {
        return oldest == null || now == null ? null : Duration.ofMillis(Math.max(0, now.getTime() - oldest.getTime()));
    }

    /** The names, each checked as a plain identifier (before any SQL). */
    public static List<String> checked(String... columns) {
        List<String> checked = new ArrayList<>(columns.length);
        for (String c : columns) {
            checked.add(Identifiers.check(java.util.Objects.requireNonNull(c, "column")));
        }
        return checked;
    }

    /**
     * Checks the table: the columns the queue needs, those its conditions, order and selection name, {@code
     * columnsUsed}, a unique id, and an index that serves the claim where the dialect's planner check can tell. A
     * missing table gets the whole {@link #createTableSql}.
     *
     * @throws dev.baton.SchemaMismatchException listing every problem and the DDL that fixes it
     */
    public void verify(List<String> columnsUsed) {
        QueueDefinition<S> def = shape.def;
        UsedColumns used = used(columnsUsed);
        shape.engine.tx().autocommit("verify queue '" + shape.name + "'", c -> {
            Dialect d = shape.dialect;
            SchemaCheck check = new SchemaCheck(c, d, shape.table);
            if (!check.tableFound()) {
                throw new SchemaMismatchException(
                        shape.table, List.of("table " + shape.table + " does not exist"), createTableSql(columnsUsed));
            }
            check.requireUniqueKey(def.columns().id());
            check.requireStateColumn(def.columns().state(), shape.machine);
            check.requireColumn(def.columns().lease(), ColumnType.TIMESTAMP, "");
            check.requireColumn(def.columns().token(), ColumnType.BIGINT, "");
            check.requireColumn(def.columns().attempts(), ColumnType.INT, "NOT NULL DEFAULT 0");
            check.requireColumn(def.columns().nextAttempt(), ColumnType.TIMESTAMP, "");
            check.requireColumn(def.columns().error(), ColumnType.TEXT, "");
            requireRoomForTheMaybeSentMark(check);
            used.check(check, d, shape.table);
            String priority = def.shaping().priorityColumn();
            if (priority != null) {
                // a NULL sorts above every value in PostgreSQL's DESC and below them in MySQL's and SQL Server's
                check.requireNotNull(
                        priority,
                        "named by priority, which claims higher values first: a NULL has no rank, PostgreSQL"
                                + " claims it first and MySQL last",
                        "0");
            }
            requireZoneSafeTimes(check, def);
            if (check.tableFound() && !check.hasProblems()) { // the planner needs every column to exist
                Optional<String> plan = d.diagnostics().claimPlanProblem(c, claimer.spec(10), claimer.planArgs());
                plan.ifPresent(p -> check.problem("queue '" + shape.name + "': " + p, suggestedIndex()));
                if (plan.isEmpty()) {
                    // the claim's index serves the expiry sweep too (state first, the lease in it or included)
                    d.diagnostics()
                            .batchPlanProblem(c, sweeps.expirySweep())
                            .ifPresent(p -> check.problem(
                                    "queue '" + shape.name + "': its expiry sweep: " + p, suggestedIndex()));
                }
            }
            if (shape.sendDurability() == SendDurability.REQUIRE) {
                // the precondition must be able to hold, or no send ever starts
                durabilityProblem(d.diagnostics().failoverStandbys(c))
                        .ifPresent(p -> check.problem(p + "; start a streaming standby or choose WARN or OFF", null));
            }
            check.requireWriter();
            check.requireSession();
            RateLimit limit = shape.def.shaping().rateLimit();
            if (limit != null && !new SchemaCheck(c, d, limit.table()).tableFound()) {
                check.problemFixedBy(
                        "queue '" + shape.name + "': its rate limit's table " + limit.table() + " does not exist",
                        OwnTableSql.ddl(d, OwnTable.RATE_LIMITS, limit.table()));
            }
            check.throwIfProblems();
            return null;
        });
    }

    /** The narrowest error column a non-idempotent queue accepts: the maybe-sent mark and some of the reason. */
    static final int MIN_ERROR_WIDTH_WHEN_SENDING = 64;

    /**
     * On a non-idempotent queue the maybe-sent mark is the start of the error text, cut to the column's width: a
     * column too narrow for it would lose the mark, and a requeue would send the row again.
     */
    private void requireRoomForTheMaybeSentMark(SchemaCheck check) {
        if (shape.send.isEmpty()) {
            return;
        }
        SchemaCheck.ColumnInfo error = check.column(shape.def.columns().error());
        if (error != null && error.size() > 0 && error.size() < MIN_ERROR_WIDTH_WHEN_SENDING) {
            check.problem(
                    "queue '" + shape.name + "': column " + shape.def.columns().error() + " holds " + error.size()
                            + " characters; a queue with a non-idempotent sink needs at least "
                            + MIN_ERROR_WIDTH_WHEN_SENDING + " to keep the mark of a row that may have been sent",
                    null);
        }
    }

    /**
     * The DDL of a table that fits the queue: {@code CREATE TABLE} with the id ({@code BIGINT} primary key), the state
     * column, the queue's managed columns with the types {@link #verify} accepts, the columns its conditions, order and
     * selection name and {@code columnsUsed}; then the index that serves the claim ({@link #suggestedIndex()}).
     */
    public List<String> createTableSql(List<String> columnsUsed) {
        QueueDefinition<S> def = shape.def;
        TableDdl ddl = new TableDdl(shape.dialect, shape.table, def.columns().id())
                .state(def.columns().state(), shape.machine)
                .column(def.columns().lease(), ColumnType.TIMESTAMP, "")
                .column(def.columns().token(), ColumnType.BIGINT, "")
                .column(def.columns().attempts(), ColumnType.INT, "NOT NULL DEFAULT 0")
                .column(def.columns().nextAttempt(), ColumnType.TIMESTAMP, "")
                .column(def.columns().error(), ColumnType.TEXT, "");
        used(columnsUsed).addTo(ddl);
        return ddl.render(List.of(suggestedIndex()));
    }

    /** The columns the queue uses besides those it manages. */
    private UsedColumns used(List<String> columnsUsed) {
        QueueDefinition<S> def = shape.def;
        UsedColumns used = new UsedColumns().addConditions(def.claiming().eligible(), "named by eligibleWhen");
        for (String o : def.claiming().orderBy()) {
            used.add(o, null, "named by orderBy");
        }
        if (def.shaping().orderKeyColumn() != null) {
            used.add(def.shaping().orderKeyColumn(), null, "named by orderedPerKey");
        }
        QueueDefinition.Shaping shaping = def.shaping();
        if (shaping.keyLimitColumn() != null) {
            used.add(shaping.keyLimitColumn(), null, "named by concurrencyPerKey");
        }
        if (shaping.groupColumn() != null) {
            used.add(shaping.groupColumn(), null, "named by fairAcross");
        }
        if (shaping.priorityColumn() != null) {
            used.add(shaping.priorityColumn(), ColumnType.INT, "named by priority", "NOT NULL DEFAULT 0");
        }
        if (def.columns().age() != null) {
            used.add(def.columns().age(), ColumnType.TIMESTAMP, "named by ageColumn");
        }
        for (String s : def.claiming().select()) {
            used.add(s, null, "named by select");
        }
        for (String u : columnsUsed) {
            used.add(u, null, "used by the code");
        }
        return used.without(List.of(
                def.columns().id(),
                def.columns().state(),
                def.columns().lease(),
                def.columns().token(),
                def.columns().attempts(),
                def.columns().nextAttempt(),
                def.columns().error()));
    }

    /**
     * Lease and backoff columns, the age column and the host's columns in {@code olderThan}/{@code due} conditions
     * are compared with the database's clock: their type must not depend on the session's time zone.
     */
    private static void requireZoneSafeTimes(SchemaCheck check, QueueDefinition<?> def) {
        check.requireZoneSafeTimestamp(def.columns().lease(), "lease");
        check.requireZoneSafeTimestamp(def.columns().nextAttempt(), "next-attempt");
        if (def.columns().age() != null) {
            check.requireZoneSafeTimestamp(def.columns().age(), "age");
        }
        for (String column : timeColumns(def.claiming().eligible())) {
            check.requireZoneSafeTimestamp(column, "condition");
        }
    }

    private static java.util.Set<String> timeColumns(List<Condition> conditions) {
        java.util.Set<String> out = new java.util.LinkedHashSet<>();
        for (Condition c : conditions) {
            if (c instanceof Condition.OlderThan o) {
                out.add(o.column());
            } else if (c instanceof Condition.Due d) {
                out.add(d.column());
            } else if (c instanceof Condition.AnyOf any) {
                for (List<Condition> alternative : any.alternatives()) {
                    out.addAll(timeColumns(alternative));
                }
            }
        }
        return out;
    }

    /**
     * DDL for an index that serves the claim: state, then equality guards, then (round-robin across groups without a
     * priority or per-key limit) the group, then the order.
     */
    public String suggestedIndex() {
        Dialect d = shape.dialect;
        String[] parts = Identifiers.splitTable(shape.table);
        String base = "ix_" + parts[parts.length - 1] + "_" + shape.name.replaceAll("[^A-Za-z0-9_]", "_") + "_claim";
        if (base.length() > d.traits().maxIdentifierLength()) {
            base = base.substring(0, d.traits().maxIdentifierLength());
        }
        // the partial form covers the processing state too, so the expiry sweep has an index as well
        List<S> active = new ArrayList<>(List.of(shape.claimable));
        active.addAll(shape.held);
        List<String> key = new ArrayList<>();
        for (String c : shape.indexOrder) {
            key.add(c.endsWith(" DESC") ? c.substring(0, c.length() - " DESC".length()) : c);
        }
        List<String> residual = new ArrayList<>();
        for (String c : new dev.baton.internal.UsedColumns()
                .addConditions(shape.def.claiming().eligible(), "")
                .names()) {
            residual.add(Identifiers.quote(d, c));
        }
        residual.addAll(List.of(shape.qLease, shape.qNext, shape.qAttempts));
        residual = residual.stream().distinct().filter(c -> !key.contains(c)).toList();
        return d.sql()
                .claimIndex(
                        Identifiers.quote(d, base),
                        shape.qTable,
                        shape.indexOrder,
                        shape.in(active).sql(),
                        residual);
    }
}
