package dev.baton.mysql;

import dev.baton.spi.BatchUpdate;
import dev.baton.spi.BatchUpdateSpec;
import dev.baton.spi.Rows;
import dev.baton.spi.SqlFragment;
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
        if (ranked) {
            List<String> all = new ArrayList<>();
            all.add(rankedSql);
            all.add(lockPrefix + "…" + lockSuffix);
            all.addAll(text.subList(1, text.size()));
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
                try (PreparedStatement ps = connection.prepareStatement(rankedSql)) {
                    Rows.bind(ps, 1, SqlFragment.resolve(rankedBinds, args));
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
