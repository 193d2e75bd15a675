package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.Condition;
import dev.baton.SchemaMismatchException;
import dev.baton.StateMachine;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testservers.DatabaseKind;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Column types that look right to {@code verify()} but break Baton: a fixed-width state column
 * whose reads come back padded, and non-ASCII codes in a single-byte character set.
 */
public abstract class AbstractColumnTypeCompatibilityTest extends DatabaseSuite {
    /** States with a non-ASCII stored code. */
    enum Rechnung {
        /** Open. */
        OFFEN,
        /** Paid. */
        BEZAHLT;

        static final StateMachine<Rechnung> MACHINE = StateMachine.of(Rechnung.class)
                .storedAs(r -> r == OFFEN ? "OFFEN_Ä" : "BEZAHLT")
                .allow(OFFEN, BEZAHLT)
                .terminal(BEZAHLT)
                .build();
    }

    private TestDatabase db;
    private DatabaseKind kind;
    private Baton baton;
    private final List<String> tables = new ArrayList<>();

    /** For the dialect modules' nested classes. */
    protected AbstractColumnTypeCompatibilityTest() {}

    @Override
    protected void setUp() {
        db = database();
        kind = db.kind();
        baton = Baton.using(db.dataSource());
    }

    @Override
    protected void tearDown() {
        for (String t : tables) {
            db.dropTableIfExists(t);
        }
    }

    private String newTable(String prefix, String stateType) {
        String t = TestDatabases.uniqueName(prefix);
        tables.add(t);
        db.execute("CREATE TABLE " + t + " (id BIGINT NOT NULL PRIMARY KEY, status " + stateType + " NOT NULL)");
        return t;
    }

    private void insert(String table, long id, String code) throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (id, status) VALUES (?, ?)")) {
            ps.setLong(1, id);
            ps.setString(2, code);
            ps.executeUpdate();
        }
    }

    @Test
    void aFixedWidthStateColumnIsRefusedWithTheDdlThatFixesIt() throws SQLException {
        String t = newTable("charstate", "CHAR(10)");
        insert(t, 1, "paying");
        StateTable<Bill> bills = baton.table(t).state("status", Bill.MACHINE);
        SchemaMismatchException e = assertThrows(SchemaMismatchException.class, bills::verify);
        assertTrue(e.getMessage().contains("fixed-width"), e.getMessage());
        assertEquals(1, e.ddl().size(), e.getMessage());
        db.execute(e.ddl().toArray(new String[0])); // the suggested DDL is valid and sufficient
        bills.verify();
        assertEquals(Optional.of(Bill.PAYING), bills.currentState(1L), "the stored code reads back unpadded");
        assertTrue(bills.transition(1L, Bill.PAYING, Bill.PAID).apply().applied());
        assertInstanceOf(
                TransitionResult.AlreadyInTarget.class,
                bills.transition(1L, Bill.PAYING, Bill.PAID).apply(),
                "a duplicate callback is a duplicate, not an exception");
    }

    @Test
    void aNonAsciiCodeInASingleByteColumnMatchesTheGuard() throws SQLException {
        String t = newTable("latin1state", kind.singleByteTextType(20));
        insert(t, 1, "OFFEN_Ä");
        insert(t, 2, "OFFEN_Ä");
        StateTable<Rechnung> bills = baton.table(t).state("status", Rechnung.MACHINE);
        bills.verify();
        assertEquals(Optional.of(Rechnung.OFFEN), bills.currentState(1L));
        assertInstanceOf(
                TransitionResult.Applied.class,
                bills.transition(1L, Rechnung.OFFEN, Rechnung.BEZAHLT).apply(),
                "the guard matches the stored code");
        assertEquals(Optional.of(Rechnung.BEZAHLT), bills.currentState(1L));
        assertEquals(1, bills.bulk(Rechnung.OFFEN, Rechnung.BEZAHLT).apply().rows(), "the bulk guard matches too");
        assertEquals(Optional.of(Rechnung.BEZAHLT), bills.currentState(2L));
    }

    /**
     * A lease or backoff column whose values depend on the session's time zone lets sessions in
     * different zones disagree about a lease (a 5-minute lease reclaimed after a second). {@code verify()} refuses it,
     * and the host's columns in {@code olderThan}/{@code due} conditions, naming the DDL that fixes them.
     */
    @Test
    void verifyRefusesZoneDependentTimestampColumns() {
        String bad = kind.zoneUnsafeTimestampType();
        String t = TestDatabases.uniqueName("zoned");
        tables.add(t);
        db.execute("CREATE TABLE " + t + " (id BIGINT NOT NULL PRIMARY KEY, sync_status INT NOT NULL, lease_until "
                + bad + " NULL, claim_token BIGINT NULL, attempts INT DEFAULT 0 NOT NULL, next_attempt_at " + bad
                + " NULL, last_error VARCHAR(1000) NULL, created_at " + bad + " NULL)");
        db.execute("CREATE INDEX ix_" + t + "_claim ON " + t + " (sync_status, id)");
        ClaimQueue<Sync> queue = baton.<Sync>queue("zoned")
                .table(t)
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .eligibleWhen(Condition.olderThan("created_at", Duration.ofMinutes(1)))
                .deadState(Sync.FAILED)
                .lease(Duration.ofMinutes(5))
                .build();
        SchemaMismatchException e = assertThrows(SchemaMismatchException.class, queue::verify);
        for (String column : List.of("lease_until", "next_attempt_at", "created_at")) {
            assertTrue(e.getMessage().contains(column + " is"), e.getMessage());
        }
        assertTrue(e.getMessage().contains("time zone"), e.getMessage());
        assertEquals(3, e.ddl().size(), e.getMessage());
        db.execute(e.ddl().toArray(new String[0])); // the suggested DDL is valid and sufficient
        queue.verify();
    }
}
