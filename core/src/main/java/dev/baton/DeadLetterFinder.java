package dev.baton;

import dev.baton.internal.queue.AdminPages;
import dev.baton.internal.queue.DeadLetterStatements;
import dev.baton.internal.queue.QueueShape;
import dev.baton.internal.values.Identifiers;
import dev.baton.spi.Rows;
import dev.baton.spi.SqlFragment;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The statements of {@link DeadLetters#find}, {@link DeadLetters#countMatching} and {@link DeadLetters#row}: rendered
 * per call from the query (a few string joins), every value bound. The indexed part of a query (the dead state, the
 * key, the id range, the keyset) narrows by the state-and-id and the key-and-id indexes; the error text and the time
 * range are applied within a window of at most {@link DeadLetters#SEARCH_SCAN} rows of it. Thread-safe.
 */
final class DeadLetterFinder<S extends Enum<S>> {
    private final QueueShape<S> shape;
    private final SqlFragment isDead;
    private final @Nullable String qKey;
    private final String columns;
    /** 0 until learnt: the JDBC type of the key column, to bind a key typed as text to a numeric column. */
    private volatile int keyType;

    DeadLetterFinder(QueueShape<S> shape) {
        this.shape = shape;
        this.isDead = shape.in(List.of(shape.dead));
        this.qKey = shape.def.shaping().orderKeyColumn() == null
                ? null
                : Identifiers.quote(shape.dialect, shape.def.shaping().orderKeyColumn());
        List<String> cols = new ArrayList<>(List.of(shape.qId, shape.qAttempts, shape.qError));
        cols.addAll(shape.returning.subList(2, shape.returning.size()));
        this.columns = String.join(", ", cols);
    }

    List<String> columnNames() {
        return java.util.stream.Stream.of(
                        shape.def.columns().id(),
                        shape.def.columns().state(),
                        shape.def.columns().attempts(),
                        shape.def.columns().nextAttempt(),
                        shape.def.columns().error())
                .map(n -> n.toLowerCase(Locale.ROOT))
                .toList();
    }

    boolean hasKey() {
        return qKey != null;
    }

    /** The WHERE of the indexed part, and its binds (the key's bind is converted on the connection). */
    private record Where(String sql, List<Object> binds) {}

    private Where indexed(Connection c, DeadLetterQuery q, @Nullable Object after) throws SQLException {
        StringBuilder sql = new StringBuilder(" FROM " + shape.qTable + " WHERE " + isDead.sql());
        List<Object> binds = new ArrayList<>(isDead.binds());
        if (q.key() != null) {
            if (qKey == null) {
                throw new ConfigurationException(
                        "queue '" + shape.name + "' has no key column (orderedPerKey) to search by");
            }
            sql.append(" AND ").append(qKey).append(" = ?");
            binds.add(keyBind(c, q.key()));
        }
        if (q.idFrom() != null) {
            sql.append(" AND ").append(shape.qId).append(" >= ?");
            binds.add(q.idFrom());
        }
        if (q.idTo() != null) {
            sql.append(" AND ").append(shape.qId).append(" <= ?");
            binds.add(q.idTo());
        }
        if (after != null) {
            sql.append(" AND ").append(shape.qId).append(q.highestFirst() ? " < ?" : " > ?");
            binds.add(after);
        }
        return new Where(sql.toString(), binds);
    }

    /** The error-text and time predicates (empty when the query has none), and their binds. */
    private Where scanned(DeadLetterQuery q, String error, String time) {
        StringBuilder sql = new StringBuilder();
        List<Object> binds = new ArrayList<>();
        if (q.errorContains() != null) {
            // '!' escapes: the same ESCAPE clause on every database, and no backslash for MySQL to read
            sql.append(" AND LOWER(").append(error).append(") LIKE ? ESCAPE '!'");
            binds.add("%"
                    + q.errorContains()
                            .toLowerCase(Locale.ROOT)
                            .replace("!", "!!")
                            .replace("%", "!%")
                            .replace("_", "!_")
                    + "%");
        }
        if (q.from() != null) {
            sql.append(" AND ").append(time).append(" >= ?");
            binds.add(Timestamp.from(q.from()));
        }
        if (q.to() != null) {
            sql.append(" AND ").append(time).append(" < ?");
            binds.add(Timestamp.from(q.to()));
        }
        return new Where(sql.toString(), binds);
    }

    private String order(DeadLetterQuery q) {
        return " ORDER BY " + shape.qId + (q.highestFirst() ? " DESC" : "");
    }

    private String timeColumn(DeadLetterQuery q) {
        return q.timeColumn() == null ? "NULL" : Identifiers.quote(shape.dialect, q.timeColumn());
    }

    DeadRowPage find(DeadLetterQuery q, @Nullable Object after, int limit) {
        AdminPages.checkPage(limit, shape.name);
        String time = timeColumn(q);
        List<String> select = shape.def.claiming().select();
        return shape.engine.reader().tx().autocommit("find dead rows in queue '" + shape.name + "'", c -> {
            Where where = indexed(c, q, after);
            if (!q.scans()) {
                String sql = shape.dialect.sql().firstRows("SELECT " + columns + where.sql() + order(q), limit);
                List<DeadRow> rows = read(c, sql, where.binds(), select);
                Object next = rows.size() == limit ? rows.get(rows.size() - 1).id() : null;
                return new DeadRowPage(rows, next, rows.size());
            }
            String window = "SELECT " + (q.highestFirst() ? "MIN" : "MAX") + "(baton_w.baton_id), COUNT(*) FROM ("
                    + shape.dialect
                            .sql()
                            .firstRows(
                                    "SELECT " + shape.qId + " AS baton_id" + where.sql() + order(q),
                                    DeadLetterStatements.SEARCH_SCAN)
                    + ") baton_w";
            Object edge;
            int looked;
            try (PreparedStatement ps = c.prepareStatement(window)) {
                Rows.bind(ps, 1, where.binds());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    edge = rs.getObject(1);
                    looked = rs.getInt(2);
                }
            }
            if (edge == null || looked == 0) {
                return new DeadRowPage(List.of(), null, 0);
            }
            Where filter = scanned(q, shape.qError, time);
            List<Object> binds = new ArrayList<>(where.binds());
            binds.add(edge);
            binds.addAll(filter.binds());
            String sql = shape.dialect
                    .sql()
                    .firstRows(
                            "SELECT " + columns + where.sql() + " AND " + shape.qId
                                    + (q.highestFirst() ? " >= ?" : " <= ?") + filter.sql() + order(q),
                            limit);
            List<DeadRow> rows = read(c, sql, binds, select);
            Object next = rows.size() == limit
                    ? rows.get(rows.size() - 1).id()
                    : looked == DeadLetterStatements.SEARCH_SCAN ? edge : null;
            return new DeadRowPage(rows, next, looked);
        });
    }

    DeadRowCount countMatching(DeadLetterQuery q, int bound) {
        AdminPages.checkCount(bound, shape.name);
        String time = timeColumn(q);
        return shape.engine.reader().tx().autocommit("count dead rows in queue '" + shape.name + "'", c -> {
            Where where = indexed(c, q, null);
            Where filter = scanned(q, "baton_c.baton_e", "baton_c.baton_t");
            String inner = shape.dialect
                    .sql()
                    .firstRows(
                            "SELECT " + shape.qId + " AS baton_id, " + shape.qError + " AS baton_e, " + time
                                    + " AS baton_t" + where.sql() + " ORDER BY " + shape.qId,
                            bound);
            String sql = "SELECT COUNT(*), SUM(CASE WHEN 1 = 1" + filter.sql() + " THEN 1 ELSE 0 END) FROM (" + inner
                    + ") baton_c";
            List<Object> binds = new ArrayList<>(filter.binds()); // the CASE comes first in the text
            binds.addAll(where.binds());
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                Rows.bind(ps, 1, binds);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    long looked = rs.getLong(1);
                    long matching = rs.getLong(2);
                    return new DeadRowCount(matching, looked, looked < bound);
                }
            }
        });
    }

    Optional<Map<String, @Nullable Object>> row(Object id) {
        String sql = "SELECT * FROM " + shape.qTable + " WHERE " + shape.qId + " = ?";
        return shape.engine.reader().tx().autocommit("read row " + id + " of queue '" + shape.name + "'", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                Rows.bind(ps, 1, List.of(id));
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.empty();
                    }
                    ResultSetMetaData md = rs.getMetaData();
                    Map<String, @Nullable Object> values = new LinkedHashMap<>();
                    for (int i = 1; i <= md.getColumnCount(); i++) {
                        values.put(md.getColumnLabel(i).toLowerCase(Locale.ROOT), rs.getObject(i));
                    }
                    return Optional.of(values);
                }
            }
        });
    }

    /** {@code key} as the key column takes it: a text of digits for an integer column is bound as a number. */
    private Object keyBind(Connection c, Object key) throws SQLException {
        if (!(key instanceof String text)) {
            return key;
        }
        int type = keyType;
        if (type == 0) {
            try (PreparedStatement ps =
                            c.prepareStatement("SELECT " + qKey + " FROM " + shape.qTable + " WHERE 1 = 0");
                    ResultSet rs = ps.executeQuery()) {
                type = rs.getMetaData().getColumnType(1);
                keyType = type == 0 ? Types.OTHER : type;
            }
        }
        if (type == Types.BIGINT || type == Types.INTEGER || type == Types.SMALLINT || type == Types.TINYINT) {
            try {
                return Long.parseLong(text.trim());
            } catch (NumberFormatException e) {
                throw new ConfigurationException(
                        "the key column of queue '" + shape.name + "' holds integers, not '" + text + "'");
            }
        }
        return text;
    }

    private static List<DeadRow> read(Connection c, String sql, List<Object> binds, List<String> select)
            throws SQLException {
        List<DeadRow> rows = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            Rows.bind(ps, 1, binds);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Map<String, Object> values = new LinkedHashMap<>();
                    for (int i = 0; i < select.size(); i++) {
                        values.put(select.get(i), rs.getObject(4 + i));
                    }
                    rows.add(new DeadRow(rs.getObject(1), rs.getInt(2), rs.getString(3), values));
                }
            }
        }
        return rows;
    }
}
