package dev.baton.internal.queue;

import dev.baton.BlockedKey;
import dev.baton.UnknownStateException;
import dev.baton.internal.values.Identifiers;
import dev.baton.spi.Rows;
import dev.baton.spi.SqlFragment;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;

/**
 * The keys of a queue {@link dev.baton.ClaimQueueBuilder#orderedPerKey ordered per key} that a dead or unknown row
 * holds: for each such key its first dead or unknown row (no earlier row of the key is dead or unknown), listed by that
 * row's id with the state predicate, so a page reads the dead and unknown rows from the last id on and probes the
 * key's index once per row. Rendered once; thread-safe.
 *
 * @param <S> the enum of states
 */
public final class BlockedKeyStatements<S extends Enum<S>> {
    private final QueueShape<S> shape;
    private final List<Object> binds;
    private final String list;
    private final String listAfter;
    private final String fromBlocking;

    /** The reads of the queue of {@code shape}; a queue not ordered per key holds no key (its lists are empty). */
    public BlockedKeyStatements(QueueShape<S> shape) {
        this.shape = shape;
        if (shape.def.shaping().orderKeyColumn() == null) {
            this.binds = List.of();
            this.list = this.listAfter = this.fromBlocking = null;
            return;
        }
        List<S> holding = shape.send.map(p -> List.of(shape.dead, p.unknown())).orElse(List.of(shape.dead));
        List<Object> codes = new ArrayList<>();
        for (S s : holding) {
            codes.add(shape.machine.code(s));
        }
        String key = Identifiers.quote(shape.dialect, shape.def.shaping().orderKeyColumn());
        SqlFragment row = shape.dialect.sql().stateIn("baton_row." + shape.qState, codes);
        SqlFragment prior = shape.dialect.sql().stateIn("baton_prior." + shape.qState, codes);
        List<Object> b = new ArrayList<>(row.binds());
        b.addAll(prior.binds());
        this.binds = List.copyOf(b);
        this.fromBlocking = "FROM " + shape.qTable + " baton_row WHERE " + row.sql() + " AND baton_row." + key
                + " IS NOT NULL AND NOT EXISTS (SELECT 1 FROM " + shape.qTable + " baton_prior WHERE baton_prior."
                + key + " = baton_row." + key + " AND baton_prior." + shape.qId + " < baton_row." + shape.qId + " AND "
                + prior.sql() + ")";
        String select = "SELECT baton_row." + key + ", baton_row." + shape.qId + ", baton_row." + shape.qState
                + ", baton_row." + shape.qAttempts + ", baton_row." + shape.qError + " " + fromBlocking;
        this.list = select + " ORDER BY baton_row." + shape.qId;
        this.listAfter = select + " AND baton_row." + shape.qId + " > ? ORDER BY baton_row." + shape.qId;
    }

    /** Blocked keys by their first holding row's id, after {@code afterId} when it is not null, at most {@code limit}. */
    public List<BlockedKey<S>> list(Object afterId, int limit) {
        AdminPages.checkPage(limit, shape.name);
        if (list == null) {
            return List.of();
        }
        List<Object> all = new ArrayList<>(binds);
        if (afterId != null) {
            all.add(afterId);
        }
        String sql = shape.dialect.sql().firstRows(afterId == null ? list : listAfter, limit);
        return shape.engine.tx().autocommit("list blocked keys in queue '" + shape.name + "'", c -> {
            List<BlockedKey<S>> keys = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                Rows.bind(ps, 1, all);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        Object id = rs.getObject(2);
                        Object raw = rs.getObject(3);
                        S state = shape.machine
                                .fromCode(raw)
                                .orElseThrow(() -> new UnknownStateException(
                                        shape.table, shape.def.columns().state(), id, raw, shape.machine.name()));
                        keys.add(new BlockedKey<>(rs.getString(1), id, state, rs.getInt(4), rs.getString(5)));
                    }
                }
            }
            return keys;
        });
    }

    /** The number of blocked keys, counted up to {@code limit}. */
    public long count(int limit) {
        AdminPages.checkCount(limit, shape.name);
        if (fromBlocking == null) {
            return 0;
        }
        return AdminPages.count(shape, fromBlocking, binds, limit, "count blocked keys in queue '" + shape.name + "'");
    }
}
