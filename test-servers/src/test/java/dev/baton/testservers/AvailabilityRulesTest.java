package dev.baton.testservers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.testservers.TestDatabases.Outcome;
import dev.baton.testservers.TestDatabases.Unavailable;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

/** The skip-or-fail rules, checked against a made-up environment and a port where nothing listens. */
class AvailabilityRulesTest {
    private static int closedPort;

    @BeforeAll
    static void findClosedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
    }

    private static Function<String, String> env(String... pairs) {
        Map<String, String> map = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put(pairs[i], pairs[i + 1]);
        }
        return map::get;
    }

    private static String deadPostgres() {
        return "jdbc:postgresql://127.0.0.1:" + closedPort + "/test";
    }

    private static String deadMariaDb() {
        return "jdbc:mariadb://127.0.0.1:" + closedPort + "/test";
    }

    @Test
    void aMissingLocalServerIsSkippedOutsideCi() {
        Outcome outcome = TestDatabases.postgresLocal(env("BATON_TEST_POSTGRES_URL", deadPostgres()));
        Unavailable unavailable = assertInstanceOf(Unavailable.class, outcome);
        assertFalse(unavailable.failure());
        assertTrue(unavailable.reason().contains(deadPostgres()), unavailable.reason());
        assertTrue(unavailable.reason().contains("BATON_TEST_POSTGRES_URL"), unavailable.reason());
        TestAbortedException skipped = assertThrows(TestAbortedException.class, outcome::resolve);
        assertTrue(skipped.getMessage().contains(deadPostgres()), skipped.getMessage());
    }

    @Test
    void aMissingLocalServerFailsInCi() {
        Outcome outcome = TestDatabases.mariadbLocal(env("CI", "true", "BATON_TEST_MYSQL_URL", deadMariaDb()));
        Unavailable unavailable = assertInstanceOf(Unavailable.class, outcome);
        assertTrue(unavailable.failure());
        AssertionError failure = assertThrows(AssertionError.class, outcome::resolve);
        assertTrue(failure.getMessage().contains(deadMariaDb()), failure.getMessage());
        assertTrue(failure.getMessage().contains("CI=true"), failure.getMessage());
        assertTrue(failure.getMessage().contains("BATON_TEST_LOCAL=off"), failure.getMessage());
        assertNotNull(failure.getCause());
    }

    @Test
    void localServersCanBeSwitchedOffEvenInCi() {
        for (Outcome outcome : new Outcome[] {
            TestDatabases.postgresLocal(env("CI", "true", "BATON_TEST_LOCAL", "off")),
            TestDatabases.mariadbLocal(env("CI", "true", "BATON_TEST_LOCAL", "off"))
        }) {
            Unavailable unavailable = assertInstanceOf(Unavailable.class, outcome);
            assertFalse(unavailable.failure());
            assertTrue(unavailable.reason().contains("BATON_TEST_LOCAL=off"), unavailable.reason());
        }
    }

    @Test
    void probingADeadServerIsFast() {
        long started = System.nanoTime();
        TestDatabases.postgresLocal(env("BATON_TEST_POSTGRES_URL", deadPostgres()));
        TestDatabases.mariadbLocal(env("BATON_TEST_MYSQL_URL", deadMariaDb()));
        assertTrue(TestDatabases.millisSince(started) < 8_000);
    }

    @Test
    void aMySqlUrlIsNotTakenForMariaDb() {
        // BATON_TEST_MYSQL_URL naming a MySQL server belongs to mysql(); mariadbLocal() then uses its default.
        Outcome outcome = TestDatabases.mariadbLocal(
                env("BATON_TEST_MYSQL_URL", "jdbc:mysql://127.0.0.1:" + closedPort + "/test", "BATON_TEST_LOCAL", ""));
        if (outcome instanceof Unavailable unavailable) {
            assertTrue(unavailable.reason().contains("127.0.0.1:3306"), unavailable.reason());
        } else {
            assertEquals("mariadb-local", outcome.resolve().name());
        }
    }

    @Test
    void aServerOfTheWrongProductIsRefused() {
        // MySQL Connector/J talks to MariaDB too; the local MariaDB offered as "MySQL 8" must be refused.
        assumeReady(TestDatabases.mariadbLocal(env()));
        Outcome outcome = TestDatabases.mysql(env("BATON_TEST_MYSQL8_URL", "jdbc:mysql://127.0.0.1:3306/test"));
        Unavailable unavailable = assertInstanceOf(Unavailable.class, outcome);
        assertFalse(unavailable.failure(), "a configured server is a skip outside CI");
        assertTrue(unavailable.reason().contains("not MYSQL"), unavailable.reason());
        assertTrue(unavailable.reason().contains("BATON_TEST_MYSQL8_URL"), unavailable.reason());
    }

    @Test
    void withoutUrlOrDockerMySqlAndSqlServerAreSkippedEvenInCi() {
        Outcome mysql = TestDatabases.mysql(env("CI", "true"));
        Outcome sqlServer = TestDatabases.sqlServer(env("CI", "true"));
        if (mysql instanceof Unavailable unavailable) {
            assertFalse(unavailable.failure(), unavailable.reason());
            assertTrue(unavailable.reason().contains("BATON_TEST_MYSQL8_URL"), unavailable.reason());
        }
        if (sqlServer instanceof Unavailable unavailable) {
            assertFalse(unavailable.failure(), unavailable.reason());
            assertTrue(unavailable.reason().contains("BATON_TEST_SQLSERVER_URL"), unavailable.reason());
        }
    }

    @Test
    void aConfiguredButDeadSqlServerFailsInCi() {
        Outcome outcome = TestDatabases.sqlServer(env(
                "CI",
                "true",
                "BATON_TEST_SQLSERVER_URL",
                "jdbc:sqlserver://127.0.0.1:" + closedPort + ";encrypt=false",
                "BATON_TEST_SQLSERVER_PASSWORD",
                "secret"));
        Unavailable unavailable = assertInstanceOf(Unavailable.class, outcome);
        assertTrue(unavailable.failure());
        assertFalse(unavailable.reason().contains("secret"), "no password in messages");
    }

    @Test
    void theLocalMariaDbOfThisMachineIsFoundByDefault() {
        Outcome outcome = TestDatabases.mariadbLocal(env());
        assumeReady(outcome);
        assertEquals("mariadb-local", outcome.resolve().name());
        assertEquals("jdbc:mariadb://127.0.0.1:3306/test", outcome.resolve().jdbcUrl());
    }

    private static void assumeReady(Outcome outcome) {
        if (outcome instanceof Unavailable unavailable) {
            Assumptions.abort(unavailable.reason());
        }
    }

    @Test
    void theConnectorJViewOfAMariaDbServerKeepsHostPortAndDatabaseOnly() {
        assertEquals(
                "jdbc:mysql://127.0.0.1:3306/h8",
                TestDatabases.connectorJUrl("jdbc:mariadb://127.0.0.1:3306/h8?useBulkStmts=true", ""));
        assertEquals(
                "jdbc:mysql://localhost:4000/test?rewriteBatchedStatements=true",
                TestDatabases.connectorJUrl("jdbc:mariadb://localhost:4000/test", "rewriteBatchedStatements=true"));
    }
}
