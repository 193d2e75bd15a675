package dev.baton;

/**
 * The database behind a {@code DataSource} is not one Baton supports, or is too old for its claim semantics
 * (PostgreSQL 12+, MySQL 8.0.1+, MariaDB 10.6+, SQL Server 2016+), or no dialect module is on the class path.
 */
public final class UnsupportedDatabaseException extends ConfigurationException {
    private static final long serialVersionUID = 1L;

    /** Creates an exception naming the product and version found. */
    public UnsupportedDatabaseException(String message) {
        super(message);
    }
}
