package dev.baton.internal.queue;

import dev.baton.UnknownRow;
import dev.baton.internal.DatabaseClock;
import dev.baton.spi.Rows;
import dev.baton.spi.SqlFragment;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The operator's reads of a queue's unknown sends: every row in the unknown state, in quarantine or not, with its
 * attempts, last error, the end of its quarantine (kept in the lease column) and whether it passed by the database
 * clock; and a bounded count. Rendered once; thread-safe.
 *
 * @param <S> the enum of states
 */
public final class UnknownStatements<S extends Enum<S>> {
    private final QueueShape<S> shape;
    private final SqlFragment isUnknown;
    private final String list;
    private final String listAfter;
    private final String fromUnknown;

    /** The reads of the queue of {@code shape}; a queue without an unknown state has none (its lists are empty). */
    public UnknownStatements(QueueShape<S> shape) {
        this.shape = shape;
        if (shape.send.isEmpty()) {
            this.isUnknown = null;
            this.list = this.listAfter = this.fromUnknown = null;
            return;
        }
        this.isUnknown = shape.unknownIn();
        List<String> columns = new ArrayList<>(List.of(
                shape.qId,
                shape.qAttempts,
                shape.qError,
                shape.qLease,
                "CASE WHEN " + shape.qLease + " IS NULL OR " + shape.qLease + " < "
                        + shape.dialect.sql().currentTimestamp() + " THEN 1 ELSE 0 END"));
        columns.addAll(shape.returning.subList(2, shape.returning.size())); // the selected columns
        this.fromUnknown = "FROM " + shape.qTable + " WHERE " + isUnknown.sql();
        String select = "SELECT " + String.join(", ", columns) + " " + fromUnknown;
        this.list = select + " ORDER BY " + shape.qId;
        this.listAfter = select + " AND " + shape.qId + " > ? ORDER BY " + shape.qId;
    }

    /** Unknown rows, lowest id first, after {@code afterId} when it is not null, at most {@code limit}. */
    public List<UnknownRow> list(Object afterId, int limit) {
        AdminPages.checkPage(limit, shape.name);
        if (isUnknown == null) {
            return List.of();
        }
        List<Object> binds = new ArrayList<>(isUnknown.binds());
        if (afterId != null) {
            binds.add(afterId);
        }
        String sql = shape.dialect.sql().firstRows(afterId == null ? list : listAfter, limit);
        List<String> select = shape.def.claiming().select();
        boolean utc = shape.dialect.sql().clockIsUtcWallClock();
        return shape.engine.tx().autocommit("list unknown sends in queue '" + shape.name + "'", c -> {
            List<UnknownRow> rows = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                Rows.bind(ps, 1, binds);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        Map<String, Object> values = new LinkedHashMap<>();
                        for (int i = 0; i < select.size(); i++) {
                            values.put(select.get(i), rs.getObject(6 + i));
                        }
                        rows.add(new UnknownRow(
                                rs.getObject(1),
                                rs.getInt(2),
                                rs.getString(3),
                                DatabaseClock.instant(rs.getObject(4), utc),
                                rs.getInt(5) == 1,
                                values));
                    }
                }
            }
            return rows;
        });
    }

    /** The number of rows in the unknown state, counted up to {@code limit}. */
    public long count(int limit) {
        AdminPages.checkCount(limit, shape.name);
        if (isUnknown == null) {
            return 0;
        }
        return AdminPages.count(
                shape, fromUnknown, isUnknown.binds(), limit, "count unknown sends in queue '" + shape.name + "'");
    }
}
