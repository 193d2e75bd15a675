package dev.baton.internal;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.jspecify.annotations.Nullable;

/**
 * The database clock as an instant, for reports (an admin action's time); Baton never reads the JVM's wall clock, and
 * decides nothing by what this returns. Also reads the dialect's time columns as instants.
 */
public final class DatabaseClock {
    private DatabaseClock() {}

    /** The database's now ({@code SELECT <currentTimestamp>}), or null when the driver returns a type not read. */
    public static @Nullable Instant now(Engine engine) {
        String sql = "SELECT " + engine.dialect().sql().currentTimestamp();
        boolean utc = engine.dialect().sql().clockIsUtcWallClock();
        return engine.tx().autocommit("read the database clock", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql);
                    ResultSet rs = ps.executeQuery()) {
                rs.next();
                return instant(rs.getObject(1), utc);
            }
        });
    }

    /**
     * A time column's value as an instant. Where the dialect's clock is the UTC wall clock without a zone (MySQL and
     * MariaDB {@code DATETIME(6)}, SQL Server {@code datetime2}), a zone-less value is UTC: a {@code LocalDateTime} as
     * is, a {@code Timestamp} by the wall clock the driver built it from (in the JVM's zone). Otherwise (PostgreSQL
     * {@code timestamptz}) a {@code Timestamp} is an instant, and a {@code LocalDateTime} is read in the JVM's zone as
     * drivers read timestamps. An {@code OffsetDateTime} is an instant everywhere; null for another type.
     */
    public static @Nullable Instant instant(@Nullable Object value, boolean utcWallClock) {
        if (value instanceof OffsetDateTime o) {
            return o.toInstant();
        } else if (value instanceof Timestamp t) {
            return utcWallClock ? t.toLocalDateTime().toInstant(ZoneOffset.UTC) : t.toInstant();
        } else if (value instanceof LocalDateTime l) {
            return utcWallClock
                    ? l.toInstant(ZoneOffset.UTC)
                    : l.atZone(ZoneId.systemDefault()).toInstant();
        }
        return null;
    }
}
