package dev.baton.spi;

import java.util.Locale;

/**
 * What a connection says about its server: product name and version as {@code DatabaseMetaData} reports them.
 *
 * @param productName e.g. {@code PostgreSQL}, {@code MySQL}, {@code MariaDB}, {@code Microsoft SQL Server}
 * @param productVersion the full version string
 * @param major major version
 * @param minor minor version
 */
public record DatabaseInfo(String productName, String productVersion, int major, int minor) {

    /** True when the server is MariaDB, whichever driver reports it (Connector/J calls it MySQL 5.5.5-10.x). */
    public boolean isMariaDb() {
        return productName.toLowerCase(Locale.ROOT).contains("mariadb")
                || productVersion.toLowerCase(Locale.ROOT).contains("mariadb");
    }

    /** True when this version is at least {@code major.minor}. */
    public boolean atLeast(int major, int minor) {
        return this.major > major || (this.major == major && this.minor >= minor);
    }

    /**
     * Reads the real MariaDB version out of a version string such as {@code 5.5.5-10.11.19-MariaDB-0+deb12u1} that
     * older MySQL drivers report.
     */
    public DatabaseInfo normalized() {
        String v = productVersion;
        if (v.startsWith("5.5.5-")) {
            v = v.substring("5.5.5-".length());
        }
        String[] parts = v.split("[.\\-]");
        try {
            int ma = Integer.parseInt(parts[0]);
            int mi = parts.length > 1 ? Integer.parseInt(parts[1].replaceAll("\\D.*", "")) : 0;
            if (ma != major || mi != minor) {
                return new DatabaseInfo(productName, productVersion, ma, mi);
            }
        } catch (NumberFormatException e) {
            // keep the driver's figures
        }
        return this;
    }
}
