package dev.baton;

/**
 * Thrown, before any SQL, when a Baton write would join a host transaction that is read-only (a Spring
 * {@code @Transactional(readOnly = true)} method, for example): the database would refuse the statement (PostgreSQL
 * {@code 25006}, MySQL and MariaDB {@code 1792}), and running it on a connection of Baton's own would commit it outside
 * the caller's transaction. Run the write in a read-write transaction.
 */
public final class ReadOnlyTransactionException extends BatonException {
    private static final long serialVersionUID = 1L;

    /** An exception with a message that names the operation. */
    public ReadOnlyTransactionException(String message) {
        super(message);
    }
}
