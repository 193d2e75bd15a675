package dev.baton.mysql;

import dev.baton.spi.BatchUpdate;
import dev.baton.spi.BatchUpdateSpec;
import dev.baton.spi.Rows;
import dev.baton.spi.SqlFragment;
import dev.baton.spi.SqlVocabulary;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLTransientException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A batch update on MySQL and MariaDB is {@code SELECT id, <returned values> … ORDER BY … LIMIT n FOR UPDATE SKIP
 * LOCKED}, then {@code UPDATE … WHERE id IN (…) AND <guard>} (and, only when the returned values cannot be computed
 * before the update, a read of the updated rows), in one READ COMMITTED transaction: REPEATABLE READ would take gap
 * locks. The order must be served by an index, or the locking read locks every candidate (the queue's start-up check
 * runs EXPLAIN to prove it, {@link MySqlDiagnostics}).
 */
final class MySqlBatchUpdate {
    private static final SqlVocabulary SQL = new MySqlSql();

    private MySqlBatchUpdate() {}

    /** The first statement: the locking read that picks the batch. */
    static String lockingPick(BatchUpdateSpec spec) {
        String columns = readsWhilePicking(spec) ? String.join(", ", pickedColumns(spec)) : spec.idColumn();
        return spec.pickSql(columns) + " LIMIT " + spec.limit() + " FOR UPDATE SKIP LOCKED";
    }

    private static boolean readsWhilePicking(BatchUpdateSpec spec) {
        return !spec.returning().isEmpty() && !spec.returningBeforeUpdate().isEmpty();
    }

    /** The locking read's columns when it returns the updated values: those values, with the id first if absent. */
    private static List<String> pickedColumns(BatchUpdateSpec spec) {
        List<String> columns = new ArrayList<>(spec.returningBeforeUpdate());
        if (!columns.contains(spec.idColumn())) {
            columns.add(0, spec.idColumn());
        }
        return columns;
    }

    static BatchUpdate render(BatchUpdateSpec spec) {
        String selectSql = lockingPick(spec);
        String updatePrefix =
                "UPDATE " + spec.table() + " SET " + spec.set().sql() + " WHERE " + spec.idColumn() + " IN (";
        String updateSuffix = ") AND " + spec.where().sql();
        String readPrefix = "SELECT " + String.join(", ", spec.returning()) + " FROM " + spec.table() + " WHERE "
                + spec.idColumn() + " IN (";
        List<Object> pickBinds = spec.pickWhere().binds();
        List<Object> whereBinds = spec.where().binds();
        List<Object> setBinds = spec.set().binds();
        int width = spec.returning().size();
        // MariaDB has no UPDATE … RETURNING: the locking read returns the values the update will write where the spec
        // can say them before it (one round trip less), else the updated rows are read again after the update.
        boolean readWhilePicking = readsWhilePicking(spec);
        List<String> picked = readWhilePicking ? pickedColumns(spec) : List.of(spec.idColumn());
        int idAt = picked.indexOf(spec.idColumn()) + 1;
        int valuesFrom = picked.size() - width + 1; // the returned values are the last columns of the locking read
        String[] updateByCount = new String[spec.limit() + 1];
        String[] readByCount = new String[spec.limit() + 1];
        List<String> text0 = width == 0 || readWhilePicking
                ? List.of(selectSql, updatePrefix + "…" + updateSuffix)
                : List.of(selectSql, updatePrefix + "…" + updateSuffix, readPrefix + "…)");
        List<String> text = text0;
        boolean ranked = spec.candidates().isPresent();
        // A ranked pick is sorted by a window over every candidate: as one locking read it would lock each candidate
        // before the sort. So the candidates are read without locks first (READ COMMITTED: a fresh read of what is
        // committed), and only the chosen rows are locked, by id, with the guard re-checked on their latest version.
        String rankedSql = ranked
                ? spec.rankedPickSql(spec.tableReference() + "." + spec.idColumn()) + " LIMIT " + spec.limit()
                : null;
        List<Object> rankedBinds = ranked ? spec.rankedPickBinds() : List.of();
        String lockPrefix =
                "SELECT " + String.join(", ", picked) + " FROM " + spec.table() + " WHERE " + spec.idColumn() + " IN (";
        String lockSuffix = ") AND " + spec.pickWhere().sql() + " FOR UPDATE SKIP LOCKED";
        String[] lockByCount = new String[spec.limit() + 1];
        BatchUpdateSpec.FairGroups fair = spec.fairGroups().orElse(null);
        String firstGroupSql = fair == null ? null : nextGroup(spec, fair, true);
        String nextGroupSql = fair == null ? null : nextGroup(spec, fair, false);
        String[] fairPickByCount = new String[FAIR_GROUPS];
        List<Object> weightBinds = fair == null ? List.of() : fairTurn(fair).binds();
        if (ranked) {
            List<String> all = new ArrayList<>();
            all.add(rankedSql);
            all.add(lockPrefix + "…" + lockSuffix);
            all.addAll(text.subList(1, text.size()));
            text = List.copyOf(all);
        }
        if (fair != null) {
            List<String> all = new ArrayList<>();
            all.add(firstGroupSql);
            all.add(nextGroupSql);
            all.addAll(text);
            text = List.copyOf(all);
        }
        return BatchUpdate.of(text, (connection, args) -> {
            List<Object> ids = new ArrayList<>();
            List<Object[]> values = readWhilePicking ? new ArrayList<>() : List.of();
            String pick = selectSql;
            List<Object> binds = SqlFragment.resolve(pickBinds, args);
            Map<Object, Integer> rank = null;
            if (ranked) {
                rank = new HashMap<>();
                String rankSql = rankedSql;
                List<Object> rankBinds = SqlFragment.resolve(rankedBinds, args);
                if (fair != null) {
                    List<Object> eligible = SqlFragment.resolve(fair.eligible().binds(), args);
                    List<Object> groups = new ArrayList<>();
                    try (PreparedStatement firstPs = connection.prepareStatement(firstGroupSql);
                            PreparedStatement nextPs = connection.prepareStatement(nextGroupSql)) {
                        PreparedStatement ps = firstPs;
                        List<Object> groupBinds = new ArrayList<>(eligible);
                        while (groups.size() < FAIR_GROUPS) {
                            Rows.bind(ps, 1, groupBinds);
                            Object group = null;
                            try (ResultSet rs = ps.executeQuery()) {
                                if (rs.next()) {
                                    group = rs.getObject(1);
                                }
                            }
                            if (group == null) {
                                break;
                            }
                            groups.add(group);
                            ps = nextPs;
                            groupBinds = new ArrayList<>(eligible);
                            groupBinds.add(group);
                        }
                    }
                    if (groups.size() < FAIR_GROUPS) { // else: more groups than one bounded read takes, rank them all
                        int g = groups.size();
                        rankSql = fairPickByCount[g];
                        if (rankSql == null) {
                            rankSql = fairPick(spec, fair, g);
                            fairPickByCount[g] = rankSql; // benign race: every thread computes the same string
                        }
                        List<Object> fairBinds = new ArrayList<>(SqlFragment.resolve(weightBinds, args));
                        fairBinds.addAll(eligible);
                        for (Object group : groups) {
                            fairBinds.addAll(eligible);
                            fairBinds.add(group);
                        }
                        fairBinds.addAll(binds);
                        rankBinds = fairBinds;
                    }
                }
                try (PreparedStatement ps = connection.prepareStatement(rankSql)) {
                    Rows.bind(ps, 1, rankBinds);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            rank.put(rs.getObject(1), rank.size());
                        }
                    }
                }
                if (rank.isEmpty()) {
                    return List.of();
                }
                int k = rank.size();
                pick = lockByCount[k];
                if (pick == null) {
                    pick = lockPrefix + Rows.placeholders(k) + lockSuffix;
                    lockByCount[k] = pick; // benign race: every thread computes the same string
                }
                List<Object> lockBinds = new ArrayList<>(rank.keySet());
                lockBinds.addAll(binds);
                binds = lockBinds;
            }
            try (PreparedStatement ps = connection.prepareStatement(pick)) {
                Rows.bind(ps, 1, binds);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getObject(idAt));
                        if (readWhilePicking) {
                            Object[] row = new Object[width];
                            for (int i = 0; i < width; i++) {
                                row[i] = rs.getObject(valuesFrom + i);
                            }
                            values.add(row);
                        }
                    }
                }
            }
            if (ids.isEmpty()) {
                return List.of();
            }
            if (rank != null) {
                inRankOrder(ids, values, rank);
            }
            int n = ids.size();
            String update = updateByCount[n];
            if (update == null) {
                update = updatePrefix + Rows.placeholders(n) + updateSuffix;
                updateByCount[n] = update; // benign race: every thread computes the same string
            }
            int updated;
            try (PreparedStatement ps = connection.prepareStatement(update)) {
                int i = Rows.bind(ps, 1, SqlFragment.resolve(setBinds, args));
                i = Rows.bind(ps, i, ids);
                Rows.bind(ps, i, SqlFragment.resolve(whereBinds, args));
                updated = ps.executeUpdate();
            }
            if (updated != n) {
                // Cannot happen while the rows are locked and the guard is repeated; if it does, claim nothing.
                throw new SQLTransientException(
                        "claim locked " + n + " rows but updated " + updated + "; rolled back", "40001");
            }
            if (width == 0) {
                return Rows.empty(n);
            }
            if (readWhilePicking) {
                return values;
            }
            String read = readByCount[n];
            if (read == null) {
                read = readPrefix + Rows.placeholders(n) + ")";
                readByCount[n] = read;
            }
            try (PreparedStatement ps = connection.prepareStatement(read)) {
                Rows.bind(ps, 1, ids);
                try (ResultSet rs = ps.executeQuery()) {
                    return Rows.read(rs, width);
                }
            }
        });
    }

    /**
     * The most groups a round-robin claim reads group by group: with as many or more groups with eligible rows, it
     * ranks every eligible row as before. It bounds the probes ({@link #nextGroup}) and the statement (one subquery
     * per group).
     */
    static final int FAIR_GROUPS = 500;

    /**
     * The first group of the eligible rows after {@code ?} in the group's order (or, with {@code first}, the first
     * group, NULL left out): one probe of the index on (state, guards, group, order), a step of a loose index scan.
     * MariaDB runs a recursive CTE of such steps as a scan of every claimable row per step (the bound, coming from the
     * CTE, is no constant its range optimizer can use: 1.7 s at 1,000,000 rows), so the claim takes the steps from
     * here, one statement each. Binds: the eligible guard's, then the last group.
     */
    static String nextGroup(BatchUpdateSpec spec, BatchUpdateSpec.FairGroups f, boolean first) {
        String g = f.groupColumn();
        return "SELECT " + g + " FROM " + spec.table() + " WHERE "
                + f.eligible().sql() + " AND " + g + (first ? " IS NOT NULL" : " > ?") + " ORDER BY " + g + " LIMIT 1";
    }

    /**
     * The ranked read of a round-robin claim over {@code groups} known groups: the first {@code perGroup} eligible
     * rows of each (one ordered, limited subquery per group, which the index serves without reading the rest of the
     * group: MariaDB has no LATERAL), and of the NULL group, ranked by their turn within their group ({@link
     * #fairTurn}); then picked as {@link BatchUpdateSpec#rankedPickSql(String)} does. Binds: the weights' ({@link
     * #fairTurn}), then the eligible guard's (NULL group), then for each
     * group the eligible guard's and the group, then the pick guard's. As on PostgreSQL, the best {@code perGroup}
     * of them in round-robin order are the candidates.
     */
    static String fairPick(BatchUpdateSpec spec, BatchUpdateSpec.FairGroups f, int groups) {
        String t = spec.table();
        String g = f.groupColumn();
        List<String> columns = new ArrayList<>();
        columns.add(spec.idColumn() + " AS baton_id");
        List<String> rankOrder = new ArrayList<>();
        for (int i = 0; i < f.order().size(); i++) {
            columns.add(f.order().get(i) + " AS baton_o" + (i + 1));
            rankOrder.add("baton_o" + (i + 1));
        }
        if (!f.weights().isEmpty()) {
            columns.add(g + " AS baton_value"); // the group's value, which its weight names (baton_group numbers it)
        }
        String cols = String.join(", ", columns);
        // the order alone: MariaDB sorts a group's rows ordered by the group too, though it is one value (seen for IS
        // NULL)
        String tail = " ORDER BY " + String.join(", ", f.order()) + " LIMIT " + f.perGroup() + ")";
        StringBuilder union = new StringBuilder("(SELECT 0 AS baton_group, ")
                .append(cols)
                .append(" FROM ")
                .append(t)
                .append(" WHERE ")
                .append(f.eligible().sql())
                .append(" AND ")
                .append(g)
                .append(" IS NULL")
                .append(tail);
        for (int i = 1; i <= groups; i++) {
            union.append(" UNION ALL (SELECT ")
                    .append(i)
                    .append(", ")
                    .append(cols)
                    .append(" FROM ")
                    .append(t)
                    .append(" WHERE ")
                    .append(f.eligible().sql())
                    .append(" AND ")
                    .append(g)
                    .append(" = ?")
                    .append(tail);
        }
        String candidates = "SELECT baton_id, " + fairTurn(f).sql() + " AS baton_rank FROM (" + union
                + ") baton_per_group ORDER BY baton_rank, "
                + String.join(", ", rankOrder) + " LIMIT " + f.perGroup();
        return spec.rankedPickSql(spec.tableReference() + "." + spec.idColumn(), candidates) + " LIMIT " + spec.limit();
    }

    /**
     * The turn of a row of the round-robin read ({@link #fairPick}): its place within its group, or with weights the
     * place divided by its group's weight ({@link BatchUpdateSpec.FairGroups#turn}); binds: the weights'.
     */
    static SqlFragment fairTurn(BatchUpdateSpec.FairGroups f) {
        List<String> rankOrder = new ArrayList<>();
        for (int i = 0; i < f.order().size(); i++) {
            rankOrder.add("baton_o" + (i + 1));
        }
        return f.turn(
                "ROW_NUMBER() OVER (PARTITION BY baton_group ORDER BY " + String.join(", ", rankOrder) + ")",
                "baton_value",
                SQL);
    }

    /** Sorts the locked ids (and their values) into the order the ranked read gave them. */
    private static void inRankOrder(List<Object> ids, List<Object[]> values, Map<Object, Integer> rank) {
        Integer[] order = new Integer[ids.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        java.util.Arrays.sort(order, java.util.Comparator.comparingInt(i -> rank.getOrDefault(ids.get(i), 0)));
        List<Object> sortedIds = new ArrayList<>(ids.size());
        List<Object[]> sortedValues = new ArrayList<>(values.size());
        for (Integer i : order) {
            sortedIds.add(ids.get(i));
            if (!values.isEmpty()) {
                sortedValues.add(values.get(i));
            }
        }
        ids.clear();
        ids.addAll(sortedIds);
        if (!values.isEmpty()) {
            values.clear();
            values.addAll(sortedValues);
        }
    }
}
