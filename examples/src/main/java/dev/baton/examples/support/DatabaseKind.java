package dev.baton.examples.support;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;
import javax.sql.DataSource;
import org.jooq.SQLDialect;

/** The databases the examples run on, told apart by the connection's metadata. */
public enum DatabaseKind {
    /** PostgreSQL 12 and later. */
    POSTGRES("postgres.sql", SQLDialect.POSTGRES),
    /** MariaDB 10.6 and later. */
    MARIADB("mariadb.sql", SQLDialect.MARIADB),
    /** MySQL 8.0.1 and later (same DDL as MariaDB). */
    MYSQL("mariadb.sql", SQLDialect.MYSQL);

    private final String schemaFile;
    private final SQLDialect jooqDialect;

    DatabaseKind(String schemaFile, SQLDialect jooqDialect) {
        this.schemaFile = schemaFile;
        this.jooqDialect = jooqDialect;
    }

    /** The example schema's DDL file for this database, in {@code dev/baton/examples/schema/}. */
    public String schemaFile() {
        return schemaFile;
    }

    /** jOOQ's dialect for this database. */
    public SQLDialect jooqDialect() {
        return jooqDialect;
    }

    /** The kind of the database behind a data source (connects once). */
    public static DatabaseKind of(DataSource dataSource) {
        try (Connection c = dataSource.getConnection()) {
            return of(c.getMetaData());
        } catch (SQLException e) {
            throw new IllegalStateException("cannot connect to find the database kind: " + e.getMessage(), e);
        }
    }

    /** The kind of database a connection's metadata describes. */
    public static DatabaseKind of(DatabaseMetaData metaData) throws SQLException {
        String product = metaData.getDatabaseProductName().toLowerCase(Locale.ROOT);
        String version = metaData.getDatabaseProductVersion().toLowerCase(Locale.ROOT);
        if (product.contains("postgres")) {
            return POSTGRES;
        }
        if (product.contains("mariadb") || version.contains("mariadb")) {
            return MARIADB;
        }
        if (product.contains("mysql")) {
            return MYSQL;
        }
        throw new IllegalStateException(
                "the examples run on PostgreSQL, MariaDB and MySQL, not on " + metaData.getDatabaseProductName());
    }
}
