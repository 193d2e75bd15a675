package dev.baton.examples;

import dev.baton.testservers.TestServer;
import java.util.stream.Stream;

/**
 * The servers every example test runs on, for {@code @MethodSource("dev.baton.examples.Servers#all")}: the local
 * PostgreSQL and MariaDB (skipped with the reason when absent, unless {@code CI=true}) and the embedded ones this JVM
 * starts. The same {@link TestServer} values the dialect modules' {@code @ParameterizedClass} tests run over.
 */
public final class Servers {
    private Servers() {}

    /** PostgreSQL (local, embedded) and MariaDB (local, embedded). */
    // tag::servers[]
    public static Stream<TestServer> all() {
        return Stream.of(
                TestServer.POSTGRES_LOCAL,
                TestServer.POSTGRES_EMBEDDED,
                TestServer.MARIADB_LOCAL,
                TestServer.MARIADB_EMBEDDED);
    }
    // end::servers[]

    /**
     * One server of each product, the embedded PostgreSQL and MariaDB (there on every machine): for the example
     * programs, which show the API's use rather than a server version's behaviour (the dialects' suites run every
     * version), and take seconds each.
     */
    public static Stream<TestServer> oneOfEach() {
        return Stream.of(TestServer.POSTGRES_EMBEDDED, TestServer.MARIADB_EMBEDDED);
    }
}
