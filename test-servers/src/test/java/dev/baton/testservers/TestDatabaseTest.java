package dev.baton.testservers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The helpers of {@link TestDatabase}, on both embedded servers. */
class TestDatabaseTest {

    static Stream<String> embedded() {
        return Stream.of("postgres", "mariadb");
    }

    private static TestDatabase database(String which) {
        return which.equals("postgres") ? TestDatabases.postgresEmbedded() : TestDatabases.mariadbEmbedded();
    }

    @ParameterizedTest
    @MethodSource("embedded")
    void executeCreatesTablesAndDropTableIfExistsRemovesThem(String which) throws SQLException {
        TestDatabase db = database(which);
        String table = TestDatabases.uniqueName("helper");
        try {
            db.execute(
                    "CREATE TABLE " + table + " (id INT PRIMARY KEY, state VARCHAR(20) NOT NULL)",
                    "INSERT INTO " + table + " (id, state) VALUES (1, 'PENDING'), (2, 'PAID')");
            assertEquals(2, count(db.dataSource(), table));
            assertSame(db.dataSource(), db.dataSource());
            try (HikariDataSource own = db.newDataSource(2)) {
                assertNotEquals(db.dataSource(), own);
                assertEquals(2, own.getMaximumPoolSize());
                assertEquals(2, count(own, table));
                try (Connection connection = own.getConnection()) {
                    assertTrue(connection.getAutoCommit());
                }
            }
        } finally {
            db.dropTableIfExists(table);
            db.dropTableIfExists(table); // twice: it does not exist any more
        }
        UncheckedSQLException gone =
                assertThrows(UncheckedSQLException.class, () -> db.execute("SELECT * FROM " + table));
        assertTrue(gone.getMessage().contains("SELECT * FROM " + table), gone.getMessage());
        assertEquals("SELECT * FROM " + table, gone.sql());
        assertInstanceOf(SQLException.class, gone.getCause());
    }

    @Test
    void sharedPoolHasTheAgreedSettings() {
        HikariDataSource pool =
                (HikariDataSource) TestDatabases.postgresEmbedded().dataSource();
        assertEquals(64, pool.getMaximumPoolSize());
        assertEquals(0, pool.getMinimumIdle());
        assertEquals(30_000, pool.getConnectionTimeout());
        assertTrue(pool.isAutoCommit());
    }

    @Test
    void connectOpensANewUnpooledConnection() throws SQLException {
        TestDatabase db = TestDatabases.postgresEmbedded();
        try (Connection a = db.connect();
                Connection b = db.connect()) {
            assertNotEquals(pid(a), pid(b));
            assertTrue(a.getAutoCommit());
        }
    }

    @Test
    void dropTableIfExistsRefusesAnythingButAName() {
        TestDatabase db = TestDatabases.postgresEmbedded();
        assertThrows(IllegalArgumentException.class, () -> db.dropTableIfExists("x; DROP TABLE y"));
        assertThrows(IllegalArgumentException.class, () -> db.dropTableIfExists("\"quoted\""));
        db.dropTableIfExists("public." + TestDatabases.uniqueName("absent"));
    }

    @Test
    void toStringDoesNotShowThePassword() {
        TestDatabase db = new TestDatabase(
                "x-env", DatabaseKind.SQLSERVER, "jdbc:sqlserver://h:1", "sa", "hunter2", "16.0.1000.6", 16);
        assertFalse(db.toString().contains("hunter2"), db.toString());
        assertTrue(db.toString().contains("x-env"), db.toString());
    }

    @Test
    void uniqueNamesAreShortLowerCaseIdentifiers() {
        Set<String> names = new HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            String name = TestDatabases.uniqueName("Orders");
            assertTrue(name.matches("orders_[a-z0-9]{8}"), name);
            names.add(name);
        }
        assertEquals(1_000, names.size());
        String longest = TestDatabases.uniqueName("a234567890123456789012345678901");
        assertEquals(40, longest.length());
        assertThrows(
                IllegalArgumentException.class, () -> TestDatabases.uniqueName("a2345678901234567890123456789012"));
        assertThrows(IllegalArgumentException.class, () -> TestDatabases.uniqueName("1abc"));
        assertThrows(IllegalArgumentException.class, () -> TestDatabases.uniqueName("a-b"));
        assertThrows(IllegalArgumentException.class, () -> TestDatabases.uniqueName(""));
    }

    private static long count(DataSource dataSource, String table) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static int pid(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
