package dev.baton.testservers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** The local and container servers answer, or the tests skip (or fail, with CI=true) as the rules say. */
class LocalDatabasesTest {

    @Test
    void localPostgresAnswersOrTheTestIsSkipped() throws SQLException {
        TestDatabase db = TestDatabases.postgresLocal();
        System.out.println("postgresLocal(): " + db);
        assertEquals(DatabaseKind.POSTGRES, db.kind());
        assertTrue(db.majorVersion() >= 12, db.serverVersion());
        assertEquals(1, EmbeddedDatabasesTest.selectOne(db));
        assertSame(db, TestDatabases.postgresLocal());
    }

    @Test
    void localMariaDbAnswersOrTheTestIsSkipped() throws SQLException {
        TestDatabase db = TestDatabases.mariadbLocal();
        System.out.println("mariadbLocal(): " + db);
        assertEquals(DatabaseKind.MARIADB, db.kind());
        assertTrue(db.majorVersion() >= 10, db.serverVersion());
        assertEquals(1, EmbeddedDatabasesTest.selectOne(db));
        assertSame(db, TestDatabases.mariadbLocal());
    }

    @Test
    void mysqlAnswersOrTheTestIsSkipped() throws SQLException {
        TestDatabase db = TestDatabases.mysql();
        assertEquals(DatabaseKind.MYSQL, db.kind());
        assertTrue(db.majorVersion() >= 8, db.serverVersion());
        assertEquals(1, EmbeddedDatabasesTest.selectOne(db));
    }

    @Test
    void sqlServerAnswersOrTheTestIsSkipped() throws SQLException {
        TestDatabase db = TestDatabases.sqlServer();
        assertEquals(DatabaseKind.SQLSERVER, db.kind());
        assertEquals(1, EmbeddedDatabasesTest.selectOne(db));
    }
}
