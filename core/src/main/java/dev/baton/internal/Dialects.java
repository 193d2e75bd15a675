package dev.baton.internal;

import dev.baton.ConfigurationException;
import dev.baton.DataAccessException;
import dev.baton.UnsupportedDatabaseException;
import dev.baton.spi.DatabaseInfo;
import dev.baton.spi.Dialect;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import javax.sql.DataSource;

/** Finds the dialect for a data source among those registered through {@link ServiceLoader}. */
public final class Dialects {
    private Dialects() {}

    /** Reads what the server says about itself. */
    public static DatabaseInfo describe(Connection c) throws SQLException {
        DatabaseMetaData md = c.getMetaData();
        return new DatabaseInfo(
                        md.getDatabaseProductName(),
                        md.getDatabaseProductVersion(),
                        md.getDatabaseMajorVersion(),
                        md.getDatabaseMinorVersion())
                .normalized();
    }

    /** Connects once and picks the first registered dialect that supports the server. */
    public static Dialect detect(DataSource dataSource) {
        try (Connection c = dataSource.getConnection()) {
            DatabaseInfo info = describe(c);
            Dialect d = forDatabase(info, c, Dialects.class.getClassLoader());
            Optional<String> engine = d.diagnostics().engineProblem(c);
            if (engine.isPresent()) {
                throw new UnsupportedDatabaseException(engine.get());
            }
            List<String> problems = d.diagnostics().sessionProblems(c);
            if (!problems.isEmpty()) {
                throw new ConfigurationException("the " + d.name() + " sessions of this DataSource are not set up as"
                        + " Baton needs: " + String.join("; ", problems));
            }
            return d;
        } catch (SQLException e) {
            throw new DataAccessException("could not read the database product from the DataSource", e);
        }
    }

    /**
     * Picks the first dialect that supports {@code info}; failing that, the first whose diagnostics, asking the server
     * on {@code c}, do (Azure SQL reports version 12).
     */
    static Dialect forDatabase(DatabaseInfo info, Connection c, ClassLoader loader) throws SQLException {
        try {
            return forDatabase(info, loader);
        } catch (UnsupportedDatabaseException refused) {
            for (Dialect d : ServiceLoader.load(Dialect.class, loader)) {
                if (d.diagnostics().supportsOnAsking(info, c)) {
                    return d;
                }
            }
            throw refused;
        }
    }

    /** Picks the first dialect on the class path that supports {@code info}. */
    public static Dialect forDatabase(DatabaseInfo info, ClassLoader loader) {
        List<String> names = new ArrayList<>();
        for (Dialect d : ServiceLoader.load(Dialect.class, loader)) {
            if (d.supports(info)) {
                return d;
            }
            names.add(d.name());
        }
        throw new UnsupportedDatabaseException("no Baton dialect supports " + info.productName() + " "
                + info.productVersion() + " (dialects on the class path: " + (names.isEmpty() ? "none" : names)
                + "). Supported: PostgreSQL 12+ (baton-postgres), MySQL 8.0.1+ and MariaDB 10.6+ (baton-mysql),"
                + " SQL Server 2016+ (baton-sqlserver).");
    }
}
