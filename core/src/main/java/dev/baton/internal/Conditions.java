package dev.baton.internal;

import dev.baton.Condition;
import dev.baton.internal.values.Identifiers;
import dev.baton.spi.Dialect;
import dev.baton.spi.SqlFragment;
import java.util.ArrayList;
import java.util.List;

/** Renders {@link Condition}s to SQL fragments for one dialect. */
public final class Conditions {
    private Conditions() {}

    /** Renders the conjunction of the conditions; an empty list renders as {@code 1=1}. */
    public static SqlFragment and(Dialect d, List<Condition> conditions) {
        if (conditions.isEmpty()) {
            return SqlFragment.of("1=1");
        }
        List<SqlFragment> parts = new ArrayList<>();
        for (Condition c : conditions) {
            parts.add(render(d, c));
        }
        return SqlFragment.join(" AND ", parts);
    }

    /** Renders one condition. */
    public static SqlFragment render(Dialect d, Condition c) {
        if (c instanceof Condition.IsNull n) {
            return SqlFragment.of(Identifiers.quote(d, n.column()) + " IS NULL");
        } else if (c instanceof Condition.IsNotNull n) {
            return SqlFragment.of(Identifiers.quote(d, n.column()) + " IS NOT NULL");
        } else if (c instanceof Condition.Equals e) {
            return new SqlFragment(Identifiers.quote(d, e.column()) + " = ?", List.of(e.value()));
        } else if (c instanceof Condition.In in) {
            return SqlFragment.inList(Identifiers.quote(d, in.column()), in.values());
        } else if (c instanceof Condition.StateIn s) {
            return d.sql().stateIn(Identifiers.quote(d, s.column()), s.codes());
        } else if (c instanceof Condition.OlderThan o) {
            return SqlFragment.of(Identifiers.quote(d, o.column()) + " < "
                    + d.sql().plusMillis(d.sql().currentTimestamp(), -o.age().toMillis()));
        } else if (c instanceof Condition.Due due) {
            String col = Identifiers.quote(d, due.column());
            return SqlFragment.of(
                    "(" + col + " IS NULL OR " + col + " <= " + d.sql().currentTimestamp() + ")");
        } else if (c instanceof Condition.AnyOf any) {
            List<SqlFragment> alts = new ArrayList<>();
            for (List<Condition> alt : any.alternatives()) {
                SqlFragment f = and(d, alt);
                alts.add(new SqlFragment("(" + f.sql() + ")", f.binds()));
            }
            SqlFragment joined = SqlFragment.join(" OR ", alts);
            return new SqlFragment("(" + joined.sql() + ")", joined.binds());
        }
        throw new IllegalArgumentException("unknown condition " + c);
    }
}
