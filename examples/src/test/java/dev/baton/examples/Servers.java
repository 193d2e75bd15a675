package dev.baton.examples;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;

/**
 * The servers every example test runs on, for {@code @MethodSource("dev.baton.examples.Servers#all")}: the local
 * PostgreSQL and MariaDB (skipped when absent, unless {@code CI=true}) and the embedded ones this JVM starts.
 */
public final class Servers {
    private Servers() {}

    /** PostgreSQL (local, embedded) and MariaDB (local, embedded). */
    // tag::servers[]
    public static Stream<Named<Supplier<TestDatabase>>> all() {
        return Stream.of(
                Named.of("postgres-local", TestDatabases::postgresLocal),
                Named.of("postgres-embedded", TestDatabases::postgresEmbedded),
                Named.of("mariadb-local", TestDatabases::mariadbLocal),
                Named.of("mariadb-embedded", TestDatabases::mariadbEmbedded));
    }
    // end::servers[]
}
