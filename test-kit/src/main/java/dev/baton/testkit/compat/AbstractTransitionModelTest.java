package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.baton.Baton;
import dev.baton.BulkResult;
import dev.baton.ConfigurationException;
import dev.baton.IllegalTransitionException;
import dev.baton.StateTable;
import dev.baton.Transition;
import dev.baton.TransitionResult;
import dev.baton.spi.Dialect;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testkit.SeededRunner;
import dev.baton.testkit.Shrinker;
import dev.baton.testkit.faults.Fault;
import dev.baton.testkit.faults.FaultPoint;
import dev.baton.testkit.faults.FaultyDataSource;
import dev.baton.testkit.faults.StepKind;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/**
 * Model-based property test of guarded transitions: seeded random sequences of single, any-source, multi-source, bulk
 * and caller-transaction transitions (legal and illegal), and faults as operations, run against a pure in-memory
 * model and against the database; after every step the results and the whole table are compared.
 *
 * <p>The faults ({@link FaultyDataSource}): a transition or a bulk whose statement or commit runs on the server and
 * whose reply is lost, whose session is killed, or whose request never leaves; a caller's transaction whose
 * statement or commit loses its reply or whose session is killed in the middle. A result Baton returns must be true
 * ({@link TransitionResult.InDoubt} and {@link BulkResult#countInDoubt()} where a lost reply leaves it open); an
 * exception is always allowed, and the model then takes the row as the database has it, provided it is the state
 * before or the state the operation would have written. A killed or lost caller's transaction leaves no trace; one
 * whose commit's reply was lost committed.
 *
 * <p>Sequences: {@link #SEQUENCES} from fixed seeds and {@link #RANDOM_SEQUENCES} from a base seed drawn anew each
 * run (printed). A failing sequence is shrunk ({@link Shrinker}) and reported with the properties that replay it:
 * {@code -Dbaton.seed=<seed> -Dbaton.keep=<steps>}.
 */
public abstract class AbstractTransitionModelTest extends DatabaseSuite {
    /** Sequences with fixed seeds per run. */
    protected static final int SEQUENCES = 160;
    /** Sequences per run from a base seed drawn anew each run. */
    protected static final int RANDOM_SEQUENCES = 40;
    /** Operations per sequence. */
    protected static final int STEPS = 50;

    private static final int ROWS = 5; // ids 1..5; id 6 is never there
    private static final FaultPoint[] POINTS = {FaultPoint.LOST_REPLY, FaultPoint.KILL_BACKEND, FaultPoint.FAIL_BEFORE};

    private TestDatabase db;
    private String table;
    private StateTable<Bill> bills;
    private FaultyDataSource faults;
    private StateTable<Bill> faultyBills;
    private long faultsFired;

    @Override
    protected void setUp() {
        db = database();
        table = TestDatabases.uniqueName("bills_model");
        db.execute("CREATE TABLE " + table + " (id BIGINT NOT NULL PRIMARY KEY, state VARCHAR(16) NOT NULL)");
        Baton baton = Baton.using(db.dataSource());
        bills = baton.table(table).state("state", Bill.MACHINE);
        bills.verify();
        Dialect dialect = baton.dialect();
        faults = new FaultyDataSource(db);
        faultyBills =
                Baton.builder(faults).dialect(dialect).build().table(table).state("state", Bill.MACHINE);
    }

    @Override
    protected void tearDown() {
        if (table != null) { // null when the database was unavailable and the class was skipped
            db.dropTableIfExists(table);
        }
    }

    /** The kinds of operation; the last three are faults. */
    enum Kind {
        FROM,
        ANY,
        MULTI,
        BULK,
        IN_TX,
        APPLY_FAULT,
        BULK_FAULT,
        IN_TX_FAULT
    }

    /**
     * One operation, as data so that a sequence can be shrunk and replayed: {@code mask} is a set of source states
     * (bit {@code ordinal}) for {@link Kind#MULTI} and the batch size for the bulks; {@code arg} chooses the path
     * (bit 0: on the caller's autocommit connection, or commit for {@link Kind#IN_TX}) or the fault.
     */
    record Op(Kind kind, long id, Bill from, Bill to, int mask, int arg) {
        Set<Bill> sources() {
            Set<Bill> out = EnumSet.noneOf(Bill.class);
            for (Bill b : Bill.values()) {
                if ((mask & (1 << b.ordinal())) != 0) {
                    out.add(b);
                }
            }
            return out;
        }

        Fault fault() {
            return switch (kind) {
                case APPLY_FAULT -> Fault.atStep(POINTS[arg % 3], 1 + (arg / 3) % 2);
                case BULK_FAULT -> Fault.atStep(POINTS[arg % 3], 1 + (arg / 3) % 4);
                case IN_TX_FAULT -> {
                    FaultPoint p = arg % 2 == 0 ? FaultPoint.LOST_REPLY : FaultPoint.KILL_BACKEND;
                    yield (arg / 2) % 2 == 0 ? Fault.atStep(p, 1) : Fault.on(p, StepKind.COMMIT, 1);
                }
                default -> null;
            };
        }

        @Override
        public String toString() {
            return switch (kind) {
                case FROM ->
                    "transition(" + id + ", " + from + " -> " + to + ")" + (arg % 2 == 1 ? " on a connection" : "");
                case ANY -> "transition(" + id + ", any -> " + to + ")" + (arg % 2 == 1 ? " on a connection" : "");
                case MULTI -> "transition(" + id + ", " + sources() + " -> " + to + ")";
                case BULK -> "bulk(" + from + " -> " + to + ", batch " + mask + ")";
                case IN_TX ->
                    "in-tx transition(" + id + ", any -> " + to + ") " + (arg % 2 == 1 ? "commit" : "rollback");
                case APPLY_FAULT -> "transition(" + id + ", any -> " + to + ") with " + fault();
                case BULK_FAULT -> "bulk(" + from + " -> " + to + ", batch " + mask + ") with " + fault();
                case IN_TX_FAULT -> "in-tx transition(" + id + ", any -> " + to + ") and commit, with " + fault();
            };
        }
    }

    /** Draws one sequence: every step draws the same six numbers. */
    private static List<Op> generate(RandomGenerator random, int steps) {
        List<Op> ops = new ArrayList<>(steps);
        Bill[] states = Bill.values();
        for (int i = 0; i < steps; i++) {
            int k = random.nextInt(100);
            long id = 1 + random.nextInt(ROWS + 1);
            Bill from = states[random.nextInt(states.length)];
            Bill to = states[random.nextInt(states.length)];
            int mask = random.nextInt(1 << states.length);
            int arg = random.nextInt(1 << 20);
            Kind kind;
            if (k < 48) {
                kind = Kind.FROM;
            } else if (k < 61) {
                kind = Kind.ANY;
            } else if (k < 70) {
                kind = Kind.MULTI;
            } else if (k < 79) {
                kind = Kind.BULK;
            } else if (k < 88) {
                kind = Kind.IN_TX;
            } else if (k < 94) {
                kind = Kind.APPLY_FAULT;
            } else if (k < 97) {
                kind = Kind.BULK_FAULT;
            } else {
                kind = Kind.IN_TX_FAULT;
            }
            boolean bulk = kind == Kind.BULK || kind == Kind.BULK_FAULT;
            ops.add(new Op(kind, id, from, to, bulk ? 1 + mask % 3 : mask, arg));
        }
        return ops;
    }

    @Test
    void databaseAgreesWithTheModel() {
        SeededRunner runner =
                fixedSeeds(SEQUENCES).randomSequences(RANDOM_SEQUENCES).steps(STEPS);
        faultsFired = 0;
        runner.run((random, steps, seed) -> {
            Bill[] initial = new Bill[ROWS];
            for (int i = 0; i < ROWS; i++) {
                initial[i] = Bill.values()[random.nextInt(Bill.values().length)];
            }
            List<Op> ops = generate(random, steps);
            ModelFailure.run(
                    ops,
                    candidate -> ModelFailure.failureOf(() -> new Sequence(initial).run(candidate)),
                    candidate -> {
                        Sequence traced = new Sequence(initial);
                        ModelFailure.failureOf(() -> traced.run(candidate)); // once more, for each step's results
                        return traced.trace;
                    },
                    seed,
                    "");
        });
        assertTrue(runner.sequencesRun() >= 1);
        System.out.println("model-based transitions on " + db.name() + ": " + runner.sequencesRun() + " sequences ("
                + runner.fixedSequences() + " fixed seeds from " + runner.baseSeed() + ", random base seed "
                + runner.randomBaseSeed() + "), " + runner.stepsRun() + " steps, " + faultsFired
                + " faults injected, 0 divergences");
    }

    /** One run of a sequence: the model and the steps' trace. */
    private final class Sequence {
        private final Map<Long, Bill> model = new TreeMap<>();
        private String op;
        final List<String> trace = new ArrayList<>();

        Sequence(Bill[] initial) {
            for (int i = 0; i < initial.length; i++) {
                model.put(i + 1L, initial[i]);
            }
        }

        void run(List<Op> ops) throws SQLException {
            try (Connection c = db.dataSource().getConnection();
                    Statement s = c.createStatement()) {
                s.executeUpdate("DELETE FROM " + table);
                for (Map.Entry<Long, Bill> e : model.entrySet()) {
                    s.executeUpdate("INSERT INTO " + table + " VALUES (" + e.getKey() + ", '"
                            + Bill.MACHINE.code(e.getValue()) + "')");
                }
            }
            for (int step = 0; step < ops.size(); step++) {
                Op o = ops.get(step);
                op = "step " + step + ": " + o;
                try {
                    apply(o);
                } finally {
                    trace.add(op);
                }
                assertEquals(model, readAll(), "table after " + op);
            }
        }

        private void apply(Op o) throws SQLException {
            switch (o.kind()) {
                case FROM -> {
                    if (!Bill.MACHINE.canTransition(o.from(), o.to())) {
                        illegal(() -> bills.transition(o.id(), o.from(), o.to()));
                    } else {
                        check(EnumSet.of(o.from()), o, apply(bills.transition(o.id(), o.from(), o.to()), o));
                    }
                }
                case ANY -> {
                    if (Bill.MACHINE.sourcesOf(o.to()).isEmpty()) {
                        illegal(() -> bills.transition(o.id(), o.to()));
                    } else {
                        check(Bill.MACHINE.sourcesOf(o.to()), o, apply(bills.transition(o.id(), o.to()), o));
                    }
                }
                case MULTI -> {
                    Set<Bill> from = o.sources();
                    boolean legal = !from.isEmpty();
                    for (Bill f : from) {
                        legal &= Bill.MACHINE.canTransition(f, o.to());
                    }
                    if (!legal) {
                        illegal(() -> bills.transition(o.id(), from, o.to()));
                    } else {
                        check(from, o, bills.transition(o.id(), from, o.to()).apply());
                    }
                }
                case BULK -> bulk(o, false);
                case IN_TX -> inTransaction(o);
                case APPLY_FAULT -> applyWithFault(o);
                case BULK_FAULT -> bulk(o, true);
                case IN_TX_FAULT -> inTransactionWithFault(o);
            }
        }

        /** Compares a result with the model's, which it updates. */
        private void check(Set<Bill> from, Op o, TransitionResult<Bill> got) {
            op += " -> " + got;
            assertEquals(expected(model, o.id(), from, o.to()), got, op);
        }

        private TransitionResult<Bill> apply(Transition<Bill> t, Op o) throws SQLException {
            if (o.arg() % 2 == 0) {
                return t.apply();
            }
            try (Connection c = db.dataSource().getConnection()) {
                return t.apply(c); // autocommit connection: the statement commits by itself
            }
        }

        private void illegal(Runnable r) {
            op += " -> refused";
            try {
                r.run();
            } catch (IllegalTransitionException | ConfigurationException expected) {
                return;
            }
            fail(op + ": an illegal transition was not refused before SQL");
        }

        private void bulk(Op o, boolean faulty) {
            if (!Bill.MACHINE.canTransition(o.from(), o.to())) {
                illegal(() -> bills.bulk(o.from(), o.to()));
                return;
            }
            long eligible = model.values().stream().filter(b -> b == o.from()).count();
            BulkResult r = null;
            RuntimeException thrown = null;
            if (faulty) {
                faults.arm(o.fault());
            }
            try {
                r = (faulty ? faultyBills : bills)
                        .bulk(o.from(), o.to())
                        .batchSize(o.mask())
                        .apply();
            } catch (RuntimeException e) {
                if (!faulty) {
                    throw e;
                }
                thrown = e;
            } finally {
                faults.disarm();
            }
            op += " -> " + (thrown != null ? "threw " + thrown : r) + fired(faulty);
            if (thrown != null) {
                adoptInDoubt(o.from(), o.to(), model.keySet());
                return;
            }
            if (r.countInDoubt()) {
                assertTrue(r.rows() <= eligible, op + ": a count in doubt is a lower bound of " + eligible);
            } else {
                assertEquals(eligible, r.rows(), op);
            }
            model.replaceAll((k, v) -> v == o.from() ? o.to() : v);
        }

        /** A transition inside the caller's transaction, then commit or roll back. */
        private void inTransaction(Op o) throws SQLException {
            Set<Bill> sources = Bill.MACHINE.sourcesOf(o.to());
            if (sources.isEmpty()) {
                op += " -> skipped (no source)";
                return;
            }
            boolean commit = o.arg() % 2 == 1;
            Map<Long, Bill> scratch = new TreeMap<>(model);
            TransitionResult<Bill> want = expected(scratch, o.id(), sources, o.to());
            try (Connection c = db.dataSource().getConnection()) {
                c.setAutoCommit(false);
                TransitionResult<Bill> got = bills.transition(o.id(), o.to()).apply(c);
                if (commit) {
                    c.commit();
                    model.putAll(scratch);
                } else {
                    c.rollback();
                }
                c.setAutoCommit(true);
                op += " -> " + got;
                assertEquals(want, got, op);
            }
        }

        /**
         * An autocommit transition with a fault: its result must be true (the model's, or in doubt when the row is in
         * the target); after an exception the row is as before or in the target.
         */
        private void applyWithFault(Op o) {
            Set<Bill> sources = Bill.MACHINE.sourcesOf(o.to());
            if (sources.isEmpty()) {
                op += " -> skipped (no source)";
                return;
            }
            Map<Long, Bill> scratch = new TreeMap<>(model);
            TransitionResult<Bill> want = expected(scratch, o.id(), sources, o.to());
            TransitionResult<Bill> got = null;
            RuntimeException thrown = null;
            faults.arm(o.fault());
            try {
                got = faultyBills.transition(o.id(), o.to()).apply();
            } catch (RuntimeException e) {
                thrown = e;
            } finally {
                faults.disarm();
            }
            op += " -> " + (thrown != null ? "threw " + thrown : got) + fired(true);
            if (thrown != null) {
                adoptInDoubt(null, o.to(), Set.of(o.id()));
                return;
            }
            if (got instanceof TransitionResult.InDoubt<Bill> d) {
                boolean possible = want instanceof TransitionResult.Applied<Bill>
                        || want instanceof TransitionResult.AlreadyInTarget<Bill>;
                assertTrue(possible && d.state() == o.to(), op + ": in doubt where the model says " + want);
            } else {
                assertEquals(want, got, op);
            }
            model.putAll(scratch);
        }

        /**
         * A transition in the caller's transaction with a fault on its statement or its commit: the caller always
         * hears of it; the transaction leaves no trace unless the commit ran and only its reply was lost.
         */
        private void inTransactionWithFault(Op o) {
            Set<Bill> sources = Bill.MACHINE.sourcesOf(o.to());
            if (sources.isEmpty()) {
                op += " -> skipped (no source)";
                return;
            }
            Fault fault = o.fault();
            Map<Long, Bill> scratch = new TreeMap<>(model);
            TransitionResult<Bill> want = expected(scratch, o.id(), sources, o.to());
            Object outcome;
            try (Connection c = faults.getConnection()) {
                c.setAutoCommit(false);
                faults.arm(fault);
                try {
                    outcome = faultyBills.transition(o.id(), o.to()).apply(c);
                    c.commit();
                } catch (RuntimeException | SQLException e) {
                    outcome = e;
                } finally {
                    faults.disarm();
                }
            } catch (SQLException e) {
                outcome = e; // closing a connection the fault closed
            }
            op += " -> " + outcome + fired(true);
            assertTrue(faults.fired().isPresent(), op + ": the fault never fired; steps:" + faults.describe());
            assertTrue(outcome instanceof Exception, op + ": the caller did not hear of the fault (want " + want + ")");
            if (fault.kind() == StepKind.COMMIT && fault.point() == FaultPoint.LOST_REPLY) {
                model.putAll(scratch); // the commit ran on the server
            }
        }

        /**
         * After an operation threw: each row {@code ids} names that the model has in {@code from} (any source of
         * {@code to} when null) may be in {@code to} now; the model takes what the database has, if it is one of the
         * two.
         */
        private void adoptInDoubt(Bill from, Bill to, Set<Long> ids) {
            Map<Long, Bill> actual;
            try {
                actual = readAll();
            } catch (SQLException e) {
                throw new AssertionError(e);
            }
            for (long id : ids) {
                Bill was = model.get(id);
                Bill is = actual.get(id);
                if (was == null || is == was) {
                    continue;
                }
                boolean source = from != null ? was == from : Bill.MACHINE.canTransition(was, to);
                assertTrue(source && is == to, op + ": row " + id + " went " + was + " -> " + is);
                model.put(id, is);
            }
        }

        private String fired(boolean faulty) {
            if (faulty && faults.fired().isPresent()) {
                faultsFired++;
            }
            return faulty
                    ? faults.fired()
                            .map(s -> " [fault fired at " + s.kind() + " " + s.index() + "]")
                            .orElse(" [fault did not fire]")
                    : "";
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
}
