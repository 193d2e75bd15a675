package dev.baton.testkit;

/** The database products that the test kit can provision. */
public enum DatabaseKind {
    /** PostgreSQL. */
    POSTGRES,
    /** MariaDB (served by Baton's MySQL dialect). */
    MARIADB,
    /** MySQL 8.0 or later (served by Baton's MySQL dialect). */
    MYSQL,
    /** Microsoft SQL Server. */
    SQLSERVER
}
