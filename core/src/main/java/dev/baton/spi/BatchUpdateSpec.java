package dev.baton.spi;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a bounded batch update must do, independent of the database: pick up to {@link #limit()} rows of
 * {@link #table()} that match {@link #where()}, in {@link #orderBy()} order, skipping rows other transactions hold
 * locked; apply {@link #set()} to them, re-checking {@code where} in the same statement; return the
 * {@link #returning()} columns as they are after the update. A claim is one (ordered, returning the claimed rows);
 * so are an expiry sweep and a bulk transition (no order, returning only the count). Identifiers are validated and
 * quoted by the dialect already. Immutable and thread-safe; built by {@link #builder}.
 *
 * <pre>{@code
 * BatchUpdateSpec spec = BatchUpdateSpec.builder(quotedTable, quotedId)
 *         .where(guard)
 *         .set(assignments)
 *         .limit(100)
 *         .orderBy(List.of(quotedId))
 *         .returning(List.of(quotedId))
 *         .build();
 * }</pre>
 */
public final class BatchUpdateSpec {
    private final String table;
    private final String idColumn;
    private final SqlFragment where;
    private final List<String> orderBy;
    private final SqlFragment set;
    private final List<String> returning;
    private final int limit;
    private final SqlFragment pickGuard;
    private final List<String> returningBeforeUpdate;
    private final SqlFragment candidates;
    private final List<String> rankedOrderBy;
    private final FairGroups fairGroups;

    private BatchUpdateSpec(Builder b) {
        this.table = b.table;
        this.idColumn = b.idColumn;
        this.where = Objects.requireNonNull(b.where, "where");
        this.orderBy = b.orderBy;
        this.set = Objects.requireNonNull(b.set, "set");
        this.returning = b.returning;
        this.limit = b.limit;
        this.pickGuard = b.pickGuard;
        this.returningBeforeUpdate = b.returningBeforeUpdate;
        this.candidates = b.candidates;
        this.rankedOrderBy = b.rankedOrderBy;
        this.fairGroups = b.fairGroups;
        if (fairGroups != null && candidates == null) {
            throw new IllegalArgumentException("fairGroups needs the ranked candidates it bounds");
        }
        if (!returningBeforeUpdate.isEmpty() && returningBeforeUpdate.size() != returning.size()) {
            throw new IllegalArgumentException("returningBeforeUpdate must be empty or match returning, was "
                    + returningBeforeUpdate + " for " + returning);
        }
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be positive, was " + limit);
        }
    }

    /**
     * Starts a spec over {@code table}; {@link Builder#where}, {@link Builder#set} and {@link Builder#limit} are
     * required.
     *
     * @param table quoted (possibly schema-qualified) table name
     * @param idColumn quoted primary key column
     */
    public static Builder builder(String table, String idColumn) {
        return new Builder(table, idColumn);
    }

    /** Quoted (possibly schema-qualified) table name. */
    public String table() {
        return table;
    }

    /** Quoted primary key column. */
    public String idColumn() {
        return idColumn;
    }

    /** The eligibility guard, repeated in the update. */
    public SqlFragment where() {
        return where;
    }

    /** Quoted columns, each optionally followed by {@code DESC}; empty for any order. */
    public List<String> orderBy() {
        return orderBy;
    }

    /** The assignments, e.g. {@code "state" = ?, "attempts" = "attempts" + 1}. */
    public SqlFragment set() {
        return set;
    }

    /** Quoted columns to return; empty to return only the row count. */
    public List<String> returning() {
        return returning;
    }

    /**
     * The batch size, rendered into the SQL text: a constant in the text lets the planner size the pick, and never
     * leaves a server-side prepared statement on a generic plan. Bounded by {@link DialectTraits#maxBatchSize()}.
     */
    public int limit() {
        return limit;
    }

    /**
     * An extra guard applied only when picking rows, not repeated in the update (e.g. per-key ordering, a
     * {@code NOT EXISTS} over the same table, which MySQL does not allow in an UPDATE); it may refer to the picked row
     * as {@code <bare quoted table>.<column>}.
     */
    public Optional<SqlFragment> pickGuard() {
        return Optional.ofNullable(pickGuard);
    }

    /**
     * The values of {@link #returning()} written as expressions over the row before the update (e.g.
     * {@code "attempts" + 1} where the update increments {@code "attempts"}), so that a dialect without
     * {@code UPDATE … RETURNING} can read them with its locking read instead of reading the rows again; empty when the
     * update changes a returned column in a way no such expression gives.
     */
    public List<String> returningBeforeUpdate() {
        return returningBeforeUpdate;
    }

    /**
     * The ranked candidates a pick takes from, or empty for a plain pick: a query over the table selecting
     * {@code baton_id} (the id) and {@code baton_rank} (a number) of each row a pick may take. A ranked pick joins it as
     * {@code baton_candidate} and takes rows in {@link #rankedOrderBy()} order ({@link #rankedPickSql}); rows it does
     * not list are not picked. A per-key limit or round-robin across groups is such a ranking.
     */
    public Optional<SqlFragment> candidates() {
        return Optional.ofNullable(candidates);
    }

    /**
     * The order of a ranked pick: {@link #orderBy()}'s columns and {@code baton_candidate.baton_rank}, each optionally
     * followed by {@code DESC}; empty without {@link #candidates()}.
     */
    public List<String> rankedOrderBy() {
        return rankedOrderBy;
    }

    /**
     * Round-robin across groups that a dialect may read group by group instead of ranking every candidate, or empty:
     * {@link #candidates()} is then the same ranking as one window over every eligible row, which a dialect without a
     * bounded form runs as it is.
     */
    public Optional<FairGroups> fairGroups() {
        return Optional.ofNullable(fairGroups);
    }

    /**
     * The candidates of a round-robin claim, by their parts: the rows {@code eligible} admits, the first {@code
     * perGroup} of each value of {@code groupColumn} (NULL being one group) in {@code order}, ranked by their turn within
     * their group in that order ({@link #turn}: 1, 2, … without weights). An index on ({@link #orderBy()}), which then
     * holds the group before the order, serves both reading the distinct groups (each the next group after the last,
     * one index probe) and each group's first rows.
     *
     * @param groupColumn the quoted group column
     * @param eligible the guard of a candidate, over unqualified columns of the table
     * @param order the quoted order within a group, ascending
     * @param perGroup the most rows of one group a claim ranks
     * @param weights the weights of some groups (group value to 1..1000; others weigh 1), bound as parameters
     */
    public record FairGroups(
            String groupColumn, SqlFragment eligible, List<String> order, int perGroup, Map<Object, Integer> weights) {
        /** Copies {@code order} and {@code weights}. */
        public FairGroups {
            Objects.requireNonNull(groupColumn, "groupColumn");
            Objects.requireNonNull(eligible, "eligible");
            order = List.copyOf(order);
            weights = Collections.unmodifiableMap(new LinkedHashMap<>(weights));
            if (order.isEmpty() || perGroup < 1) {
                throw new IllegalArgumentException("fair groups need an order and perGroup >= 1");
            }
            for (Integer w : weights.values()) {
                if (w == null || w < 1) {
                    throw new IllegalArgumentException("a group weight must be at least 1, was " + w);
                }
            }
        }

        /** Round-robin without weights. */
        public FairGroups(String groupColumn, SqlFragment eligible, List<String> order, int perGroup) {
            this(groupColumn, eligible, order, perGroup, Map.of());
        }

        /**
         * The turn of a row within its group: {@code rowNumber} (its place in the group, from 1) without weights, else
         * {@code (rowNumber + w - 1) / w} in integers, {@code w} being the weight of the row's group ({@code CASE group
         * WHEN ? THEN ? … ELSE 1 END}, twice, its values bound): a group of weight 3 has its first three rows in turn
         * 1. Rows of one turn then follow the queue's order.
         *
         * @param rowNumber the place of the row within its group, from 1
         * @param group an expression of the row's group value (NULL has weight 1)
         * @param sql the dialect's vocabulary, for the integer quotient
         */
        public SqlFragment turn(String rowNumber, String group, SqlVocabulary sql) {
            return weightedTurn(weights, rowNumber, group, sql);
        }

        /** {@link #turn} over any weights: the ranking of every candidate uses it as the bounded read does. */
        public static SqlFragment weightedTurn(
                Map<Object, Integer> weights, String rowNumber, String group, SqlVocabulary sql) {
            if (weights.isEmpty()) {
                return SqlFragment.of(rowNumber);
            }
            StringBuilder w = new StringBuilder("CASE ").append(group);
            List<Object> binds = new ArrayList<>();
            for (Map.Entry<Object, Integer> e : weights.entrySet()) {
                w.append(" WHEN ? THEN ?");
                binds.add(e.getKey());
                binds.add(e.getValue());
            }
            w.append(" ELSE 1 END");
            List<Object> twice = new ArrayList<>(binds);
            twice.addAll(binds);
            return new SqlFragment(sql.integerQuotient(rowNumber + " + " + w + " - 1", w.toString()), twice);
        }
    }

    /**
     * {@link #rankedPickSql(String)} with {@code candidates} in place of {@link #candidates()}' text (a dialect's
     * bounded form of the same ranking); its binds are the given candidates', then {@link #pickWhere()}'s.
     */
    public String rankedPickSql(String columns, String candidates) {
        return "SELECT " + columns + " FROM " + table + " JOIN (" + candidates
                + ") baton_candidate ON baton_candidate.baton_id = " + tableReference() + "." + idColumn + " WHERE "
                + pickWhere().sql() + " ORDER BY " + String.join(", ", rankedOrderBy);
    }

    /**
     * The name the pick refers to the table by: the bare quoted table, without its schema ({@code "s"."t"} gives
     * {@code "t"}); identifiers are plain, so the last dot separates it.
     */
    public String tableReference() {
        return table.substring(table.lastIndexOf('.') + 1);
    }

    /**
     * {@code SELECT <columns> FROM <table> JOIN (<candidates>) baton_candidate ON baton_candidate.baton_id =
     * <table>.<id> WHERE <pickWhere> ORDER BY <rankedOrderBy>}: the picking query of a ranked pick, without its limit
     * and locking clause. Its binds are {@link #rankedPickBinds()}.
     *
     * @throws IllegalStateException if the spec has no candidates
     */
    public String rankedPickSql(String columns) {
        if (candidates == null) {
            throw new IllegalStateException("not a ranked pick: " + this);
        }
        return "SELECT " + columns + " FROM " + table + " JOIN (" + candidates.sql()
                + ") baton_candidate ON baton_candidate.baton_id = " + tableReference() + "." + idColumn + " WHERE "
                + pickWhere().sql() + " ORDER BY " + String.join(", ", rankedOrderBy);
    }

    /** The binds of {@link #rankedPickSql}: the candidates', then {@link #pickWhere()}'s. */
    public List<Object> rankedPickBinds() {
        List<Object> binds = new java.util.ArrayList<>(candidates == null ? List.of() : candidates.binds());
        binds.addAll(pickWhere().binds());
        return java.util.Collections.unmodifiableList(binds);
    }

    /** The guard for picking rows: {@code where}, and the pick-only guard if there is one. */
    public SqlFragment pickWhere() {
        return pickGuard == null ? where : SqlFragment.join(" AND ", List.of(where, pickGuard));
    }

    /**
     * {@code SELECT <columns> FROM <table> WHERE <pickWhere> [ORDER BY <orderBy>]}: the picking query, without its
     * limit and locking clause, which differ per database. Its binds are {@link #pickWhere()}'s.
     */
    public String pickSql(String columns) {
        StringBuilder sql = new StringBuilder("SELECT ")
                .append(columns)
                .append(" FROM ")
                .append(table)
                .append(" WHERE ")
                .append(pickWhere().sql());
        if (!orderBy.isEmpty()) {
            sql.append(" ORDER BY ").append(String.join(", ", orderBy));
        }
        return sql.toString();
    }

    @Override
    public String toString() {
        return "BatchUpdateSpec[" + table + " SET " + set.sql() + " WHERE "
                + pickWhere().sql() + " ORDER BY " + orderBy + " LIMIT " + limit + " RETURNING " + returning + "]";
    }

    /** Builds a {@link BatchUpdateSpec}; not thread-safe, {@link #build()} copies into an immutable spec. */
    public static final class Builder {
        private final String table;
        private final String idColumn;
        private SqlFragment where;
        private List<String> orderBy = List.of();
        private SqlFragment set;
        private List<String> returning = List.of();
        private int limit;
        private SqlFragment pickGuard;
        private List<String> returningBeforeUpdate = List.of();
        private SqlFragment candidates;
        private List<String> rankedOrderBy = List.of();
        private FairGroups fairGroups;

        private Builder(String table, String idColumn) {
            this.table = Objects.requireNonNull(table, "table");
            this.idColumn = Objects.requireNonNull(idColumn, "idColumn");
        }

        /** The eligibility guard, repeated in the update. Required. */
        public Builder where(SqlFragment where) {
            this.where = Objects.requireNonNull(where, "where");
            return this;
        }

        /** The assignments. Required. */
        public Builder set(SqlFragment set) {
            this.set = Objects.requireNonNull(set, "set");
            return this;
        }

        /** The most rows to update, at least 1. Required. */
        public Builder limit(int limit) {
            this.limit = limit;
            return this;
        }

        /** The order rows are picked in; default none (any order, which lets the database use the state index). */
        public Builder orderBy(List<String> orderBy) {
            this.orderBy = List.copyOf(orderBy);
            return this;
        }

        /** The columns to return; default none (only the row count). */
        public Builder returning(List<String> returning) {
            this.returning = List.copyOf(returning);
            return this;
        }

        /** A guard applied only when picking rows ({@link BatchUpdateSpec#pickGuard()}); default none. */
        public Builder pickGuard(SqlFragment pickGuard) {
            this.pickGuard = Objects.requireNonNull(pickGuard, "pickGuard");
            return this;
        }

        /**
         * Makes the pick a ranked one ({@link BatchUpdateSpec#candidates()}); default a plain pick.
         *
         * @param candidates the query of {@code baton_id} and {@code baton_rank}
         * @param rankedOrderBy the order of the ranked pick
         */
        public Builder ranked(SqlFragment candidates, List<String> rankedOrderBy) {
            this.candidates = Objects.requireNonNull(candidates, "candidates");
            this.rankedOrderBy = List.copyOf(rankedOrderBy);
            return this;
        }

        /**
         * Marks the ranked pick as round-robin across groups ({@link BatchUpdateSpec#fairGroups()}); default none.
         * Needs {@link #ranked}.
         */
        public Builder fairGroups(FairGroups fairGroups) {
            this.fairGroups = Objects.requireNonNull(fairGroups, "fairGroups");
            return this;
        }

        /**
         * The returned values as expressions over the row before the update
         * ({@link BatchUpdateSpec#returningBeforeUpdate()}); default none.
         */
        public Builder returningBeforeUpdate(List<String> returningBeforeUpdate) {
            this.returningBeforeUpdate = List.copyOf(returningBeforeUpdate);
            return this;
        }

        /**
         * The spec.
         *
         * @throws NullPointerException if {@code where} or {@code set} is missing
         * @throws IllegalArgumentException if the limit is below 1, or {@code returningBeforeUpdate} does not match
         *     {@code returning}
         */
        public BatchUpdateSpec build() {
            return new BatchUpdateSpec(this);
        }
    }
}
