package dev.baton.testkit.faults;

/**
 * One recorded JDBC call of a {@link FaultyDataSource}.
 *
 * @param index the 1-based position among the faultable steps since the data source was last armed, or 0 for a step
 *     that is never counted ({@link StepKind#ROLLBACK})
 * @param kind what the call was
 * @param sql the statement text ({@code COMMIT} / {@code ROLLBACK} for those)
 * @param connection the 1-based number of the physical connection it ran on, in the order they were opened
 * @param outcome {@code ok}, {@code ok: n rows}, {@code failed SQLSTATE: message}, or {@code injected POINT ...}
 */
public record Step(int index, StepKind kind, String sql, int connection, String outcome) {
    /** True when a fault was injected at this step. */
    public boolean injected() {
        return outcome.startsWith("injected");
    }

    @Override
    public String toString() {
        return "#" + index + " " + kind + " on c" + connection + ": " + sql + " -> " + outcome;
    }
}
