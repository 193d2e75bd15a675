package dev.baton.spi;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A piece of SQL text with its bind values in order. Identifiers in the text are already validated and quoted;
 * values only ever travel as binds. A bind may be a {@link Param}, filled in per execution.
 *
 * @param sql SQL text with {@code ?} placeholders
 * @param binds the values, one per placeholder
 */
public record SqlFragment(String sql, List<@Nullable Object> binds) {

    /** Creates a fragment; the bind list is copied (it may contain nulls). */
    public SqlFragment {
        binds = Collections.unmodifiableList(new ArrayList<>(binds));
    }

    /** A fragment without binds. */
    public static SqlFragment of(String sql) {
        return new SqlFragment(sql, List.of());
    }

    /** Joins fragments with a separator such as {@code " AND "}. */
    public static SqlFragment join(String separator, List<SqlFragment> parts) {
        StringBuilder sql = new StringBuilder();
        List<Object> binds = new ArrayList<>();
        for (int i = 0; i < parts.size(); i++) {
            if (i > 0) {
                sql.append(separator);
            }
            sql.append(parts.get(i).sql());
            binds.addAll(parts.get(i).binds());
        }
        return new SqlFragment(sql.toString(), binds);
    }

    /** {@code col = ?} for one value, {@code col IN (?, ?)} for several. */
    public static SqlFragment inList(String quotedColumn, List<?> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("an IN list needs at least one value");
        }
        if (values.size() == 1) {
            return new SqlFragment(quotedColumn + " = ?", new ArrayList<>(values));
        }
        return new SqlFragment(
                quotedColumn + " IN (" + String.join(", ", Collections.nCopies(values.size(), "?")) + ")",
                new ArrayList<>(values));
    }

    /** Resolves {@link Param}s against the per-execution arguments. */
    public static List<@Nullable Object> resolve(List<@Nullable Object> binds, @Nullable Object[] args) {
        List<@Nullable Object> out = new ArrayList<>(binds.size());
        for (@Nullable Object b : binds) {
            out.add(b instanceof Param p ? args[p.index()] : b);
        }
        return out;
    }
}
