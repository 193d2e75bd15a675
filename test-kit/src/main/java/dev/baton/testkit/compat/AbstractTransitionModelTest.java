package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.BulkResult;
import dev.baton.IllegalTransitionException;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testkit.SeededRunner;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/**
 * Model-based property test of guarded transitions: seeded random sequences of single, any-source, multi-source, bulk
 * and caller-transaction transitions (legal and illegal) run against a pure in-memory model and against the database;
 * after every step the results and the whole table are compared. A failure names its seed
 * ({@code -Dbaton.seed=…} replays it).
 */
public abstract class AbstractTransitionModelTest extends DatabaseSuite {
    /** Sequences per run (the issue asks for at least 200). */
    protected static final int SEQUENCES = 200;
    /** Operations per sequence (at least 50). */
    protected static final int STEPS = 50;

    private static final int ROWS = 5;

    private TestDatabase db;
    private String table;
    private StateTable<Bill> bills;

    @Override
    protected void setUp() {
        db = database();
        table = TestDatabases.uniqueName("bills_model");
        db.execute("CREATE TABLE " + table + " (id BIGINT NOT NULL PRIMARY KEY, state VARCHAR(16) NOT NULL)");
        bills = Baton.using(db.dataSource()).table(table).state("state", Bill.MACHINE);
        bills.verify();
    }

    @Override
    protected void tearDown() {
        if (table != null) { // null when the database was unavailable and the class was skipped
            db.dropTableIfExists(table);
        }
    }

    @Test
    void databaseAgreesWithTheModel() {
        SeededRunner runner = SeededRunner.sequences(SEQUENCES).steps(STEPS);
        runner.run((random, steps, seed) -> {
            Map<Long, Bill> model = reset(random);
            for (int step = 0; step < steps; step++) {
                String op = step(random, model);
                Map<Long, Bill> actual = readAll();
                assertEquals(model, actual, "after step " + step + " (" + op + "), seed " + seed);
            }
        });
        assertTrue(runner.sequencesRun() >= 1);
        System.out.println("model-based transitions on " + db.name() + ": " + runner.sequencesRun() + " sequences, "
                + runner.stepsRun() + " steps, 0 divergences");
    }

    private Map<Long, Bill> reset(RandomGenerator random) throws SQLException {
        Map<Long, Bill> model = new TreeMap<>();
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM " + table);
            for (long id = 1; id <= ROWS; id++) {
                Bill b = pick(random, Bill.values());
                model.put(id, b);
                s.executeUpdate("INSERT INTO " + table + " VALUES (" + id + ", '" + Bill.MACHINE.code(b) + "')");
            }
        }
        return model;
    }

    private String step(RandomGenerator random, Map<Long, Bill> model) throws SQLException {
        long id = 1 + random.nextInt(ROWS + 1);
        Bill to = pick(random, Bill.values());
        int kind = random.nextInt(100);
        if (kind < 55) {
            Bill from = pick(random, Bill.values());
            String op = "transition(" + id + ", " + from + " -> " + to + ")";
            if (!Bill.MACHINE.canTransition(from, to)) {
                expectIllegal(() -> bills.transition(id, from, to));
                return op + " illegal";
            }
            check(op, expected(model, id, EnumSet.of(from), to), apply(random, bills.transition(id, from, to)));
            return op;
        } else if (kind < 70) {
            String op = "transition(" + id + ", any -> " + to + ")";
            Set<Bill> sources = Bill.MACHINE.sourcesOf(to);
            if (sources.isEmpty()) {
                expectIllegal(() -> bills.transition(id, to));
                return op + " illegal";
            }
            check(op, expected(model, id, sources, to), apply(random, bills.transition(id, to)));
            return op;
        } else if (kind < 80) {
            Set<Bill> from = EnumSet.noneOf(Bill.class);
            for (Bill b : Bill.values()) {
                if (random.nextInt(3) == 0) {
                    from.add(b);
                }
            }
            String op = "transition(" + id + ", " + from + " -> " + to + ")";
            boolean legal = !from.isEmpty();
            for (Bill f : from) {
                legal &= Bill.MACHINE.canTransition(f, to);
            }
            if (!legal) {
                try {
                    bills.transition(id, from, to);
                    throw new AssertionError(op + " should be refused");
                } catch (IllegalTransitionException | dev.baton.ConfigurationException expected) {
                    return op + " illegal";
                }
            }
            check(op, expected(model, id, from, to), apply(random, bills.transition(id, from, to)));
            return op;
        } else if (kind < 90) {
            Bill from = pick(random, Bill.values());
            String op = "bulk(" + from + " -> " + to + ")";
            if (!Bill.MACHINE.canTransition(from, to)) {
                expectIllegal(() -> bills.bulk(from, to));
                return op + " illegal";
            }
            long expected = model.values().stream().filter(b -> b == from).count();
            BulkResult r = bills.bulk(from, to).batchSize(1 + random.nextInt(3)).apply();
            assertEquals(expected, r.rows(), op);
            model.replaceAll((k, v) -> v == from ? to : v);
            return op;
        } else {
            // a transition inside the caller's transaction, then commit or roll back
            Set<Bill> sources = Bill.MACHINE.sourcesOf(to);
            if (sources.isEmpty()) {
                return "skip";
            }
            boolean commit = random.nextBoolean();
            String op = "in-tx transition(" + id + ", any -> " + to + ") " + (commit ? "commit" : "rollback");
            Map<Long, Bill> scratch = new TreeMap<>(model);
            TransitionResult<Bill> want = expected(scratch, id, sources, to);
            try (Connection c = db.dataSource().getConnection()) {
                c.setAutoCommit(false);
                TransitionResult<Bill> got = bills.transition(id, to).apply(c);
                if (commit) {
                    c.commit();
                    model.putAll(scratch);
                } else {
                    c.rollback();
                }
                c.setAutoCommit(true);
                assertEquals(want, got, op);
            }
            return op;
        }
    }

    private TransitionResult<Bill> apply(RandomGenerator random, dev.baton.Transition<Bill> t) throws SQLException {
        if (random.nextBoolean()) {
            return t.apply();
        }
        try (Connection c = db.dataSource().getConnection()) {
            return t.apply(c); // autocommit connection: the statement commits by itself
        }
    }

    /** What the model says a transition returns, updating the model when it applies. */
    private static TransitionResult<Bill> expected(Map<Long, Bill> model, long id, Set<Bill> from, Bill to) {
        Bill current = model.get(id);
        if (current == null) {
            return new TransitionResult.NotFound<>(id);
        }
        if (from.contains(current)) {
            model.put(id, to);
            return new TransitionResult.Applied<>(id, to);
        }
        if (current == to) {
            return new TransitionResult.AlreadyInTarget<>(id, to);
        }
        return new TransitionResult.Rejected<>(id, current, to);
    }

    private static void check(String op, TransitionResult<Bill> want, TransitionResult<Bill> got) {
        // ids come back as the Long the test passed
        assertEquals(want, got, op);
    }

    private static void expectIllegal(Runnable r) {
        try {
            r.run();
        } catch (IllegalTransitionException expected) {
            return;
        }
        throw new AssertionError("expected IllegalTransitionException");
    }

    private Map<Long, Bill> readAll() throws SQLException {
        Map<Long, Bill> out = new TreeMap<>();
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, state FROM " + table)) {
            while (rs.next()) {
                out.put(rs.getLong(1), Bill.MACHINE.fromCode(rs.getString(2)).orElseThrow());
            }
        }
        return out;
    }

    private static <T> T pick(RandomGenerator random, T[] values) {
        return values[random.nextInt(values.length)];
    }
}
