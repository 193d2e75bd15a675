package dev.baton;

import java.sql.SQLException;

/**
 * Thrown when a statement Baton ran inside the caller's transaction failed in a way that rolled back the whole
 * transaction, where Baton would otherwise return an expected result that leaves it usable: on SQL Server with
 * {@code SET XACT_ABORT ON} a unique violation ({@link TransitionResult.Conflict} otherwise) rolls back everything the
 * transaction did, and the driver opens a new one, so a later commit would persist only what came after. The caller
 * must treat its transaction as gone: nothing it wrote before this call is committed. Keeps the driver's error as its
 * cause.
 */
public final class TransactionRolledBackException extends DataAccessException {
    private static final long serialVersionUID = 1L;

    /** Wraps the error that ended the transaction, with a message that says what Baton was doing. */
    public TransactionRolledBackException(String message, SQLException cause) {
        super(message, cause);
    }
}
