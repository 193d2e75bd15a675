package dev.baton.spi;

import java.util.List;
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
