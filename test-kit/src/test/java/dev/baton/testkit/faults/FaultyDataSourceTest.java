package dev.baton.testkit.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Each fault point does what its Javadoc says, on the local PostgreSQL and MariaDB. */
class FaultyDataSourceTest {
    static Stream<TestDatabase> databases() {
        return Stream.of(TestDatabases.postgresLocal(), TestDatabases.mariadbLocal());
    }

    private static String table(TestDatabase db) {
        String t = TestDatabases.uniqueName("fds");
        db.execute("CREATE TABLE " + t + " (id INT PRIMARY KEY)");
        return t;
    }

    private static long count(TestDatabase db, String table) throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void insert(FaultyDataSource ds, String table, int id, boolean transaction) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            c.setAutoCommit(!transaction);
            s.executeUpdate("INSERT INTO " + table + " VALUES (" + id + ")");
            if (transaction) {
                c.commit();
            }
        }
    }

    @ParameterizedTest
    @MethodSource("databases")
    void lostReplyOnAnAutocommitWriteCommitsItAndThrows08006(TestDatabase db) throws SQLException {
        String t = table(db);
        try {
            FaultyDataSource ds = new FaultyDataSource(db);
            ds.arm(Fault.on(FaultPoint.LOST_REPLY, StepKind.UPDATE, 1));
            SQLException e = assertThrows(SQLException.class, () -> insert(ds, t, 1, false));
            assertEquals("08006", e.getSQLState());
            assertEquals(1, count(db, t), "the write committed");
            assertTrue(ds.fired().orElseThrow().injected());
            insert(ds, t, 2, false); // one-shot: the next step runs normally
            assertEquals(2, count(db, t));
            assertEquals(2, ds.stepCount());
        } finally {
            db.dropTableIfExists(t);
        }
    }

    @ParameterizedTest
    @MethodSource("databases")
    void lostReplyOnTheCommitCommitsAndFailBeforeTheCommitDoesNot(TestDatabase db) throws SQLException {
        String t = table(db);
        try {
            FaultyDataSource ds = new FaultyDataSource(db);
            ds.arm(Fault.on(FaultPoint.LOST_REPLY, StepKind.COMMIT, 1));
            assertEquals(
                    "08006",
                    assertThrows(SQLException.class, () -> insert(ds, t, 1, true))
                            .getSQLState());
            assertEquals(1, count(db, t));
            ds.arm(Fault.on(FaultPoint.FAIL_BEFORE, StepKind.COMMIT, 1));
            assertEquals(
                    "08006",
                    assertThrows(SQLException.class, () -> insert(ds, t, 2, true))
                            .getSQLState());
            assertEquals(1, count(db, t), "never committed");
        } finally {
            db.dropTableIfExists(t);
        }
    }

    @ParameterizedTest
    @MethodSource("databases")
    void aKilledBackendLosesItsTransactionAndTheDriverReportsIt(TestDatabase db) throws SQLException {
        String t = table(db);
        try {
            FaultyDataSource ds = new FaultyDataSource(db);
            ds.arm(Fault.whenSql(FaultPoint.KILL_BACKEND, "COMMIT"::equals));
            assertThrows(SQLException.class, () -> insert(ds, t, 1, true));
            assertEquals(0, count(db, t));
            List<Step> steps = ds.steps();
            assertEquals(StepKind.UPDATE, steps.get(0).kind());
            assertEquals(StepKind.COMMIT, steps.get(1).kind());
            assertTrue(
                    steps.get(1).outcome().startsWith("injected KILL_BACKEND"),
                    steps.get(1).outcome());
            assertTrue(steps.get(1).outcome().contains("failed"), steps.get(1).outcome());
        } finally {
            db.dropTableIfExists(t);
        }
    }

    @ParameterizedTest
    @MethodSource("databases")
    void aDelayWaitsAndThenRuns(TestDatabase db) throws SQLException {
        String t = table(db);
        try {
            FaultyDataSource ds = new FaultyDataSource(db);
            ds.arm(Fault.atStep(FaultPoint.DELAY, 1).delayMillis(200));
            long start = System.nanoTime();
            insert(ds, t, 1, false);
            assertTrue(System.nanoTime() - start >= 200_000_000L);
            assertEquals(1, count(db, t));
        } finally {
            db.dropTableIfExists(t);
        }
    }
}
