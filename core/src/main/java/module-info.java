/**
 * Baton: exactly-once state changes in relational databases. {@code dev.baton} is the API, {@code dev.baton.spi} the
 * dialect SPI; {@code dev.baton.internal} is not exported.
 */
module dev.baton {
    requires transitive java.sql; // the API takes and returns JDBC types (Connection, DataSource, SQLException)
    requires org.slf4j;
    requires static transitive org.jspecify; // nullness annotations of the API: readers see them, run time needs none

    exports dev.baton;
    exports dev.baton.spi;

    uses dev.baton.spi.Dialect;
    uses dev.baton.spi.HostTransactions;
}
