package dev.baton.testservers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class EmbeddedDatabasesTest {

    @Test
    void embeddedPostgresStartsAndAnswers() throws SQLException {
        long started = System.nanoTime();
        TestDatabase db = TestDatabases.postgresEmbedded();
        System.out.println("postgresEmbedded() took " + TestDatabases.millisSince(started) + " ms: " + db);
        assertEquals(DatabaseKind.POSTGRES, db.kind());
        assertEquals("postgres-embedded", db.name());
        assertEquals(18, db.majorVersion(), db.serverVersion());
        assertEquals(1, selectOne(db));
        assertSame(db, TestDatabases.postgresEmbedded());
    }

    @Test
    void embeddedMariaDbStartsAndAnswers() throws SQLException {
        long started = System.nanoTime();
        TestDatabase db = TestDatabases.mariadbEmbedded();
        System.out.println("mariadbEmbedded() took " + TestDatabases.millisSince(started) + " ms: " + db);
        assertEquals(DatabaseKind.MARIADB, db.kind());
        assertEquals("mariadb-embedded", db.name());
        assertEquals(11, db.majorVersion(), db.serverVersion());
        assertTrue(db.serverVersion().startsWith("11.4"), db.serverVersion());
        assertEquals(1, selectOne(db));
        assertSame(db, TestDatabases.mariadbEmbedded());
    }

    static int selectOne(TestDatabase db) throws SQLException {
        try (Connection connection = db.connect();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT 1")) {
            assertTrue(rs.next());
            return rs.getInt(1);
        }
    }
}
