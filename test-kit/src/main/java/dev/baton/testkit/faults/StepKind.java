package dev.baton.testkit.faults;

/** The kind of one JDBC call the {@link FaultyDataSource} records. */
public enum StepKind {
    /** {@code executeQuery}. */
    QUERY,
    /** {@code executeUpdate} or {@code executeLargeUpdate}. */
    UPDATE,
    /** {@code executeBatch} or {@code executeLargeBatch}. */
    BATCH,
    /** {@code execute}. */
    EXECUTE,
    /** {@code Connection.commit()}, or {@code setAutoCommit(true)} while a transaction was open (JDBC commits it). */
    COMMIT,
    /** {@code Connection.rollback()}; recorded, never counted by a {@link Fault}'s index, never faulted. */
    ROLLBACK;

    /** True for the kinds a {@link Fault} counts and can hit (every kind but {@link #ROLLBACK}). */
    public boolean faultable() {
        return this != ROLLBACK;
    }
}
