package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.Decision;
import dev.baton.LeaseResult;
import dev.baton.Outcome;
import dev.baton.RetryPolicy;
import dev.baton.spi.Dialect;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testkit.SeededRunner;
import dev.baton.testkit.Shrinker;
import dev.baton.testkit.faults.Fault;
import dev.baton.testkit.faults.FaultPoint;
import dev.baton.testkit.faults.FaultyDataSource;
import dev.baton.testservers.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.random.RandomGenerator;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Model-based property test of claim queues with simulated lease expiry and faults: seeded random sequences of
 * claims by three workers, fenced completions, retries with backoff, dead letters, releases and heartbeats by current
 * and stale holders, reclaim sweeps, reconciliation of unknown rows, jumps of the database clock (through
 * {@link ShiftedClockDialect}, never the JVM clock) and faults as operations (a lost reply, a crashed worker, a
 * shutdown in the middle of a send, an outcome the database refuses), run against a pure in-memory model and the
 * database; after every step the results and the whole table (state, attempts and claim token of every row) are
 * compared, and the invariants are checked (no lost row, a terminal row never moves, a sending row goes
 * back to the claimable state only by reconciliation, attempts bounded). Time moves in steps of 25 s (70 s for a crash) against a 60 s lease and 10 s / 40 s backoffs, so
 * no comparison sits on a boundary.
 *
 * <p>A failing sequence is shrunk ({@link Shrinker}) before it is reported; the report prints the minimal sequence
 * and the properties that replay it: {@code -Dbaton.seed=<seed> -Dbaton.keep=<steps>}. Which fault operations and
 * rules run is {@link #gates()}; {@code -Dbaton.model.gates=all} (or a comma list of {@link Gate} names, or
 * {@code none}) overrides it.
 */
public abstract class AbstractClaimQueueModelTest extends DatabaseSuite {
    /** Sequences with fixed seeds per run. */
    protected static final int SEQUENCES = 110;
    /** Sequences per run from a base seed drawn anew each run. */
    protected static final int RANDOM_SEQUENCES = 40;
    /** Operations per sequence. */
    protected static final int STEPS = 50;
    /** The system property that replays only some steps of the sequence of {@code baton.seed}: {@code 3,17,20}. */
    public static final String KEEP_PROPERTY = SeededRunner.KEEP_PROPERTY;
    /** The system property that overrides {@link #gates()}. */
    public static final String GATES_PROPERTY = "baton.model.gates";

    private static final long LEASE = 60_000;
    /** An unknown send's quarantine: the default send timeout (a quarter of the lease) and the margin (2 s). */
    private static final long QUARANTINE = LEASE / 4 + 2_000;

    private static final long CRASH_JUMP = 70_000;
    private static final long RETRY_DELAY = 10_000; // the queue's policy
    private static final int MAX_ATTEMPTS = 3;
    private static final int ROWS = 8;
    private static final int UNPAID_FROM = 7; // rows 7 and 8 are never eligible
    private static final int WORKERS = 3;

    /**
     * Fault operations and correct rules that can be switched off while the code under test is known to break them.
     * The model always encodes the correct rule; a gate that is off makes the model skip the operation (or, for a
     * rule, expect today's behaviour instead).
     */
    public enum Gate {
        /**
         * A single {@code complete} whose reply is lost after the server ran it. When this claim held the row, the
         * write reached the server: Done or an in-doubt answer (an exception) is right, LeaseLost is wrong. When it
         * did not, Done is wrong unless the row is in the target state under this claim's token, i.e. this claim had
         * already completed it in an earlier call: the retry reads that back and answers Done, which is true (the row
         * is completed, by this claim, once; a sweep, a release and a resolution clear or spend the token, and a new
         * claim stamps its own), as the same call answers without a fault. On by default.
         */
        LOST_REPLY_COMPLETE,
        /**
         * A worker crashes: its claims are abandoned, the database clock passes their leases and the sweep runs.
         * On by default.
         */
        CRASH,
        /**
         * A worker marks a row sending and stops; its shutdown releases the row. The row must stay sending (and go
         * unknown after its lease), never claimable. On by default.
         */
        SHUTDOWN_MID_SEND,
        /**
         * Two held rows are completed in one {@code applyAll}, one with a value the database refuses (a 65-character
         * {@code third_party_guid} in a {@code VARCHAR(64)}): the good one commits, the refused one is isolated
         * (dead, or pending for a retry after the policy's delay, attempts bounded). On by default.
         */
        POISON_OUTCOME,
        /**
         * The sweep enforces the attempt limit: an expired processing row that has used {@code maxAttempts} goes to
         * the dead state, not back to the claimable one, and so does an unknown row that a "not sent" verdict finds
         * with its attempts used up; attempts never exceed the limit. On by default.
         */
        ATTEMPT_LIMIT_ON_EXPIRY,
        /**
         * A release does not use up an attempt (the attempt count goes back to what it was before the claim). On by
         * default.
         */
        RELEASE_KEEPS_ATTEMPT,
        /**
         * A dead row is put back in the claimable state behind Baton's back (a host's transition, an older version's
         * sweep), its attempts kept or, every other time, set to {@code maxAttempts}. The claim never hands a row out
         * for an attempt past {@code maxAttempts}; the sweep moves a claimable row with its attempts used up to the
         * dead state. On by default.
         */
        PUT_BACK
    }

    private static final Set<Gate> DEFAULT_GATES = EnumSet.allOf(Gate.class);

    private TestDatabase db;
    private Dialect dialect;
    private JobsTable jobs;

    @Override
    protected void setUp() {
        db = database();
        dialect = Baton.using(db.dataSource()).dialect();
        jobs = JobsTable.create(db, "claim_model", true);
    }

    @Override
    protected void tearDown() {
        if (jobs != null) { // null when the database was unavailable and the class was skipped
            jobs.drop();
        }
    }

    /**
     * The fault operations and rules this run enables; by default all of them. {@value #GATES_PROPERTY} overrides it.
     *
     * @return the enabled gates
     */
    protected Set<Gate> gates() {
        String p = System.getProperty(GATES_PROPERTY);
        if (p == null || p.isBlank()) {
            return DEFAULT_GATES;
        }
        if (p.trim().equalsIgnoreCase("all")) {
            return EnumSet.allOf(Gate.class);
        }
        EnumSet<Gate> out = EnumSet.noneOf(Gate.class);
        if (!p.trim().equalsIgnoreCase("none")) {
            for (String g : p.split(",")) {
                out.add(Gate.valueOf(g.trim()));
            }
        }
        return out;
    }

    private ClaimQueue<Sync> queue(DataSource source, long now) {
        Baton b = Baton.builder(source)
                .dialect(new ShiftedClockDialect(dialect, now))
                .build();
        return b.<Sync>queue("model-" + jobs.name())
                .table(jobs.name())
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .eligibleWhen(b.table(jobs.name())
                        .state("payment_status", Payment.MACHINE)
                        .is(Payment.PAID))
                .deadState(Sync.FAILED)
                .nonIdempotentSink(Sync.SENDING, Sync.UNKNOWN)
                .lease(Duration.ofMillis(LEASE))
                .retry(RetryPolicy.fixed(Duration.ofMillis(RETRY_DELAY)).maxAttempts(MAX_ATTEMPTS))
                .build();
    }

    /** The kinds of operation. */
    enum Kind {
        CLAIM,
        COMPLETE,
        RETRY,
        DEAD_LETTER,
        RELEASE,
        HEARTBEAT,
        ADVANCE,
        RECLAIM,
        RECONCILE,
        LOST_REPLY_COMPLETE,
        CRASH,
        SHUTDOWN_MID_SEND,
        POISON_OUTCOME,
        PUT_BACK
    }

    /**
     * One operation, as data so that a sequence can be shrunk and replayed: {@code pick} chooses a worker, a claim
     * or a row among those that exist when it runs (modulo their number), {@code arg} is the size, delay or verdict.
     */
    record Op(Kind kind, int pick, int arg) {
        @Override
        public String toString() {
            return switch (kind) {
                case CLAIM -> "claim(" + arg + ") by worker " + pick % WORKERS;
                case RETRY -> "retryAfter(claim #" + pick + ", " + arg + " ms)";
                case ADVANCE -> "advance " + arg + " ms";
                case RECLAIM -> "reclaimExpired";
                case RECONCILE -> "resolveUnknown(unknown row #" + pick + ", sent=" + (arg == 1) + ")";
                case PUT_BACK -> "putBack(dead row #" + pick + (arg % 2 == 1 ? ", attempts used up" : "") + ")";
                case CRASH -> "crash of worker " + pick % WORKERS + " (+" + CRASH_JUMP + " ms, reclaimExpired)";
                default -> kind.name().toLowerCase() + "(claim #" + pick + ")";
            };
        }
    }

    /** Draws one sequence; every step draws the same four numbers, whatever the gates. */
    private static List<Op> generate(RandomGenerator random, int steps, Set<Gate> gates) {
        List<Kind> faults = new ArrayList<>();
        for (Kind k : List.of(
                Kind.LOST_REPLY_COMPLETE, Kind.CRASH, Kind.SHUTDOWN_MID_SEND, Kind.POISON_OUTCOME, Kind.PUT_BACK)) {
            if (gates.contains(Gate.valueOf(k.name()))) {
                faults.add(k);
            }
        }
        List<Op> ops = new ArrayList<>(steps);
        for (int i = 0; i < steps; i++) {
            int kind = random.nextInt(100);
            int what = random.nextInt(6);
            int pick = random.nextInt(1 << 20);
            int arg = random.nextInt(1 << 20);
            Op op;
            if (kind < 28) {
                op = new Op(Kind.CLAIM, pick, 1 + arg % 4);
            } else if (kind < 70) {
                op = switch (what) {
                    case 0, 1 -> new Op(Kind.COMPLETE, pick, 0);
                    case 2 -> new Op(Kind.RETRY, pick, new int[] {0, 10_000, 0, 40_000}[arg % 4]);
                    case 3 -> new Op(Kind.DEAD_LETTER, pick, 0);
                    case 4 -> new Op(Kind.RELEASE, pick, 0);
                    default -> new Op(Kind.HEARTBEAT, pick, 0);
                };
            } else if (kind < 84) {
                op = new Op(Kind.ADVANCE, 0, 25_000 * (1 + arg % 3));
            } else if (kind < 92) {
                op = new Op(Kind.RECLAIM, 0, 0);
            } else if (kind < 94) {
                op = new Op(Kind.RECONCILE, pick, arg % 2);
            } else if (!faults.isEmpty()) {
                op = new Op(faults.get(what % faults.size()), pick, arg);
            } else {
                op = new Op(Kind.RECLAIM, 0, 0);
            }
            ops.add(op);
        }
        return ops;
    }

    /** A row of the model. */
    private static final class Row {
        Sync state = Sync.PENDING;
        long token; // the claim_token column: 0 for NULL (a sweep and a resolution clear it), -token after a release
        long leaseUntil;
        long due = Long.MIN_VALUE;
        int attempts;
        final boolean paid;

        Row(boolean paid) {
            this.paid = paid;
        }

        boolean held() {
            return state == Sync.PROCESSING || state == Sync.SENDING;
        }

        String view() {
            return state + "/" + attempts + "/" + token;
        }
    }

    /** A claim handed to a worker. */
    private record Held(ClaimedRow<Sync> claim, int worker) {
        long id() {
            return ((Number) claim.id()).longValue();
        }
    }

    @Test
    void databaseAgreesWithTheModel() {
        Set<Gate> gates = gates();
        SeededRunner runner =
                fixedSeeds(SEQUENCES).randomSequences(RANDOM_SEQUENCES).steps(STEPS);
        runner.run((random, steps, seed) -> {
            ModelFailure.run(
                    generate(random, steps, gates),
                    candidate -> ModelFailure.failureOf(() -> new Sequence(gates).run(candidate)),
                    candidate -> {
                        Sequence traced = new Sequence(gates); // once more, to name the rows and tokens each step hit
                        ModelFailure.failureOf(() -> traced.run(candidate));
                        return traced.trace;
                    },
                    seed,
                    " -D" + GATES_PROPERTY + "="
                            + (gates.isEmpty()
                                    ? "none"
                                    : gates.stream().map(Gate::name).collect(Collectors.joining(","))));
        });
        System.out.println("model-based claims on " + db.name() + ": " + runner.sequencesRun() + " sequences ("
                + runner.fixedSequences() + " fixed seeds from " + runner.baseSeed() + ", random base seed "
                + runner.randomBaseSeed() + "), " + runner.stepsRun() + " steps, gates " + gates
                + ", 0 divergences");
    }

    /** One run of a sequence: the model, the claims handed out, the database clock. */
    private final class Sequence {
        private final Set<Gate> gates;
        private final Map<Long, Row> model = new TreeMap<>();
        private final List<Held> issued = new ArrayList<>();
        private long now; // model time: the shift of the database clock, ms
        private ClaimQueue<Sync> q;
        private FaultyDataSource faults;
        private ClaimQueue<Sync> faulty;
        private String op;
        private Long reconciledToPending; // the row a "not sent" verdict made claimable in this step
        private Long putBack; // the dead row put back in the claimable state in this step
        final List<String> trace = new ArrayList<>();

        Sequence(Set<Gate> gates) {
            this.gates = gates;
        }

        void run(List<Op> ops) throws SQLException {
            db.execute("DELETE FROM " + jobs.name());
            jobs.insert(1, UNPAID_FROM - 1, Payment.PAID);
            jobs.insert(UNPAID_FROM, ROWS - UNPAID_FROM + 1, Payment.PENDING);
            for (long id = 1; id <= ROWS; id++) {
                model.put(id, new Row(id < UNPAID_FROM));
            }
            q = queue(db.dataSource(), now);
            Map<Long, String> before = readAll();
            for (int step = 0; step < ops.size(); step++) {
                Op o = ops.get(step);
                op = "step " + step + ": " + o + " at " + now;
                reconciledToPending = null;
                putBack = null;
                try {
                    apply(o);
                } finally {
                    trace.add(op);
                }
                Map<Long, String> after = readAll();
                checkInvariants(before, after);
                assertEquals(view(), after, "table after " + op);
                before = after;
            }
        }

        private void apply(Op o) {
            switch (o.kind()) {
                case CLAIM -> claim(o.arg(), o.pick() % WORKERS);
                case COMPLETE, RETRY, DEAD_LETTER, RELEASE, HEARTBEAT -> onClaim(o);
                case ADVANCE -> advance(o.arg());
                case RECLAIM -> reclaim();
                case RECONCILE -> reconcile(o.pick(), o.arg() == 1);
                case LOST_REPLY_COMPLETE -> lostReplyComplete(o.pick());
                case CRASH -> crash(o.pick() % WORKERS);
                case SHUTDOWN_MID_SEND -> shutdownMidSend(o.pick());
                case POISON_OUTCOME -> poison(o.pick(), o.arg());
                case PUT_BACK -> putBack(o.pick(), o.arg() % 2 == 1);
            }
        }

        private void claim(int n, int worker) {
            List<Long> expected = new ArrayList<>();
            for (Map.Entry<Long, Row> e : model.entrySet()) {
                Row r = e.getValue();
                // a row with its attempts used up is never handed out again (only a put-back row can be one)
                if (expected.size() < n
                        && r.state == Sync.PENDING
                        && r.paid
                        && r.due <= now
                        && r.attempts < MAX_ATTEMPTS) {
                    expected.add(e.getKey());
                }
            }
            List<ClaimedRow<Sync>> got = q.claim(n);
            List<Long> ids = new ArrayList<>();
            for (ClaimedRow<Sync> c : got) {
                long id = ((Number) c.id()).longValue();
                ids.add(id);
                Row r = model.get(id);
                if (r != null) {
                    r.state = Sync.PROCESSING;
                    r.token = c.token();
                    r.attempts++;
                    r.leaseUntil = now + LEASE;
                    assertEquals(r.attempts, c.attempt(), op + ": attempt of " + id);
                }
                issued.add(new Held(c, worker));
            }
            op += " -> rows " + ids;
            assertEquals(expected, ids, op);
        }

        private boolean holds(ClaimedRow<Sync> c) {
            Row r = model.get(((Number) c.id()).longValue());
            return r.held() && r.token == c.token();
        }

        private void onClaim(Op o) {
            if (issued.isEmpty()) {
                return;
            }
            ClaimedRow<Sync> c = issued.get(o.pick() % issued.size()).claim();
            Row r = model.get(((Number) c.id()).longValue());
            boolean holds = holds(c);
            op += " -> row " + c.id() + " token " + c.token() + (holds ? "" : " (stale)");
            LeaseResult<Sync> got;
            Sync after;
            switch (o.kind()) {
                case COMPLETE -> {
                    got = q.apply(c, Outcome.complete(Sync.COMPLETED));
                    after = Sync.COMPLETED;
                }
                case RETRY -> {
                    got = q.apply(c, Outcome.retryAfter(Duration.ofMillis(o.arg()), "e"));
                    after = c.attempt() >= MAX_ATTEMPTS ? Sync.FAILED : Sync.PENDING;
                    if (holds && after == Sync.PENDING) {
                        r.due = now + o.arg();
                    }
                }
                case DEAD_LETTER -> {
                    got = q.apply(c, Outcome.deadLetter("d"));
                    after = Sync.FAILED;
                }
                case RELEASE -> {
                    got = q.release(c);
                    after = Sync.PENDING;
                    if (holds && gates.contains(Gate.RELEASE_KEEPS_ATTEMPT)) {
                        r.attempts--;
                    }
                    if (holds) {
                        r.token = -r.token; // spent: fences nothing, tells the release's own read-back it was ours
                    }
                }
                default -> {
                    got = q.heartbeat(c);
                    after = r.state;
                    if (holds) {
                        r.leaseUntil = now + LEASE;
                    }
                }
            }
            String what = op + " (" + c.id() + ", token " + c.token() + ")";
            if (holds) {
                assertEquals(new LeaseResult.Done<>(c.id(), after), got, what);
                r.state = after;
            } else if (o.kind() != Kind.HEARTBEAT
                    && Sync.MACHINE.isTerminal(after)
                    && r.state == after
                    && r.token == c.token()) {
                // this claim already wrote the row into that terminal state: Done, alone as in a batch
                assertEquals(new LeaseResult.Done<>(c.id(), after), got, what + " (written by this claim before)");
            } else {
                assertEquals(new LeaseResult.LeaseLost<>(c.id()), got, what);
            }
        }

        private void advance(long millis) {
            now += millis;
            q = queue(db.dataSource(), now);
            faulty = null;
        }

        private void reclaim() {
            long expected = 0;
            for (Row r : model.values()) {
                if (r.state == Sync.PENDING && r.attempts >= MAX_ATTEMPTS) {
                    r.state = Sync.FAILED; // put back with its attempts used up: dead again, whatever the lease
                    expected++;
                    continue;
                }
                if (r.leaseUntil >= now) {
                    continue;
                }
                if (r.state == Sync.PROCESSING) {
                    boolean spent = gates.contains(Gate.ATTEMPT_LIMIT_ON_EXPIRY) && r.attempts >= MAX_ATTEMPTS;
                    r.state = spent ? Sync.FAILED : Sync.PENDING;
                    r.token = 0;
                    expected++;
                } else if (r.state == Sync.SENDING) {
                    r.state = Sync.UNKNOWN;
                    r.token = 0;
                    r.leaseUntil += QUARANTINE; // offered for reconciliation only after it
                    expected++;
                }
            }
            assertEquals(expected, q.reclaimExpired(), op);
        }

        private void reconcile(int pick, boolean sent) {
            List<Long> unknown = new ArrayList<>();
            List<Long> ready = new ArrayList<>();
            model.forEach((id, r) -> {
                if (r.state == Sync.UNKNOWN) {
                    unknown.add(id);
                    if (r.leaseUntil < now) {
                        ready.add(id); // past its quarantine
                    }
                }
            });
            List<Long> listed = new ArrayList<>();
            q.unknownSends().ready(ROWS).forEach(id -> listed.add(((Number) id).longValue()));
            assertEquals(ready, listed, op + ": unknownRows");
            if (unknown.isEmpty()) {
                return;
            }
            long id = unknown.get(pick % unknown.size());
            LeaseResult<Sync> got = sent
                    ? q.unknownSends().resolveSent(id, Outcome.complete(Sync.COMPLETED))
                    : q.unknownSends().resolveNotSent(id);
            // "not sent" on the last attempt: sending again would pass maxAttempts, so the row is dead
            boolean spent = gates.contains(Gate.ATTEMPT_LIMIT_ON_EXPIRY) && model.get(id).attempts >= MAX_ATTEMPTS;
            Sync after = sent ? Sync.COMPLETED : spent ? Sync.FAILED : Sync.PENDING;
            assertEquals(new LeaseResult.Done<>(got.id(), after), got, op);
            assertEquals(id, ((Number) got.id()).longValue(), op);
            model.get(id).state = after;
            model.get(id).token = 0;
            if (after == Sync.PENDING) {
                reconciledToPending = id;
            }
        }

        private ClaimQueue<Sync> faulty() {
            if (faulty == null) {
                if (faults == null) {
                    faults = new FaultyDataSource(db);
                }
                faulty = queue(faults, now);
            }
            return faulty;
        }

        /** The server applies the completion and the reply is lost. */
        private void lostReplyComplete(int pick) {
            if (issued.isEmpty()) {
                return;
            }
            ClaimedRow<Sync> c = issued.get(pick % issued.size()).claim();
            Row r = model.get(((Number) c.id()).longValue());
            boolean holds = holds(c);
            op += " -> row " + c.id() + " token " + c.token() + (holds ? "" : " (stale)");
            ClaimQueue<Sync> fq = faulty();
            faults.arm(Fault.atStep(FaultPoint.LOST_REPLY, 1));
            LeaseResult<Sync> got = null;
            RuntimeException thrown = null;
            try {
                got = fq.apply(c, Outcome.complete(Sync.COMPLETED));
            } catch (RuntimeException e) {
                thrown = e; // in doubt: acceptable
            } finally {
                faults.disarm();
            }
            String what = op + " (" + c.id() + ", token " + c.token() + ", holds " + holds + "), got "
                    + (thrown != null ? thrown : got) + "; steps:\n" + faults.describe();
            assertTrue(faults.fired().isPresent(), what);
            if (holds) {
                // the write reached the server: the row is completed whatever the caller was told
                r.state = Sync.COMPLETED;
                if (got instanceof LeaseResult.LeaseLost) {
                    fail("a wrong certain result after a lost reply: LeaseLost for a row this call completed; " + what);
                }
                if (got instanceof LeaseResult.Done<Sync> d) {
                    assertEquals(Sync.COMPLETED, d.state(), what);
                }
            } else if (got instanceof LeaseResult.Done<Sync> d) {
                // true only when this claim had already completed the row: it is in the target under this token
                if (r.state != Sync.COMPLETED || r.token != c.token()) {
                    fail("a wrong certain result after a lost reply: Done for a row this call did not hold; " + what);
                }
                assertEquals(Sync.COMPLETED, d.state(), what);
            }
        }

        /** A dead row is put back in the claimable state behind Baton's back, its token cleared. */
        private void putBack(int pick, boolean usedUp) {
            List<Long> dead = new ArrayList<>();
            model.forEach((id, r) -> {
                if (r.state == Sync.FAILED) {
                    dead.add(id);
                }
            });
            if (dead.isEmpty()) {
                return;
            }
            long id = dead.get(pick % dead.size());
            Row r = model.get(id);
            if (usedUp) {
                r.attempts = MAX_ATTEMPTS;
            }
            db.execute("UPDATE " + jobs.name() + " SET sync_status = " + Sync.PENDING.code()
                    + ", claim_token = NULL, lease_until = NULL, attempts = " + r.attempts + " WHERE id = " + id);
            r.state = Sync.PENDING;
            r.token = 0;
            putBack = id;
            op += " -> row " + id;
        }

        /** A worker dies: its claims are never used again, their leases run out, the sweep runs. */
        private void crash(int worker) {
            issued.removeIf(h -> h.worker() == worker);
            advance(CRASH_JUMP);
            reclaim();
        }

        /** A worker records a send and stops; its shutdown releases the in-flight row. */
        private void shutdownMidSend(int pick) {
            List<Held> held = issued.stream().filter(h -> holds(h.claim())).toList();
            if (held.isEmpty()) {
                return;
            }
            Held h = held.get(pick % held.size());
            ClaimedRow<Sync> c = h.claim();
            Row r = model.get(h.id());
            if (r.state == Sync.PROCESSING) {
                assertEquals(new LeaseResult.Done<>(c.id(), Sync.SENDING), q.markSending(c), op + ": markSending");
                r.state = Sync.SENDING;
                r.leaseUntil = now + LEASE; // recording a send renews the lease for the send itself
            }
            Object got;
            try {
                got = q.release(c);
            } catch (RuntimeException e) {
                got = e; // refusing the release is right too
            }
            issued.removeIf(x -> x.worker() == h.worker());
            assertTrue(
                    !(got instanceof LeaseResult.Done<?> d) || d.state() == Sync.SENDING,
                    op + ": the release of a sending row answered " + got);
        }

        /** One good and one refused outcome in one applyAll. */
        private void poison(int pick, int arg) {
            List<Held> held = new ArrayList<>();
            for (Held h : issued) {
                if (holds(h.claim()) && held.stream().noneMatch(x -> x.id() == h.id())) {
                    held.add(h);
                }
            }
            if (held.isEmpty()) {
                return;
            }
            Held bad = held.remove(pick % held.size());
            List<Decision<Sync>> decisions = new ArrayList<>();
            Held good = held.isEmpty() ? null : held.get(arg % held.size());
            if (good != null) {
                decisions.add(new Decision<>(good.claim(), Outcome.complete(Sync.COMPLETED)));
            }
            decisions.add(new Decision<>(
                    bad.claim(), Outcome.<Sync>complete(Sync.COMPLETED).set("third_party_guid", "x".repeat(65))));
            List<LeaseResult<Sync>> got;
            try {
                got = q.applyAll(decisions);
            } catch (RuntimeException e) {
                throw new AssertionError(op + ": a refused outcome failed the whole batch " + decisions, e);
            }
            if (good != null) {
                assertEquals(new LeaseResult.Done<>(good.claim().id(), Sync.COMPLETED), got.get(0), op + ": good");
                model.get(good.id()).state = Sync.COMPLETED;
            }
            LeaseResult<Sync> b = got.get(got.size() - 1);
            Row r = model.get(bad.id());
            Sync isolated = b instanceof LeaseResult.Done<Sync> d ? d.state() : null;
            boolean retried = isolated == Sync.PENDING && r.attempts < MAX_ATTEMPTS;
            assertTrue(isolated == Sync.FAILED || retried, op + ": the refused outcome answered " + b);
            r.state = isolated;
            if (retried) {
                r.due = now + RETRY_DELAY;
            }
        }

        private void checkInvariants(Map<Long, String> before, Map<Long, String> after) {
            assertEquals(before.keySet(), after.keySet(), op + ": a row was lost or made up");
            for (Map.Entry<Long, String> e : after.entrySet()) {
                long id = e.getKey();
                String was = before.get(id);
                String is = e.getValue();
                if ((was.startsWith("COMPLETED") || was.startsWith("FAILED"))
                        && !Long.valueOf(id).equals(putBack)) {
                    assertEquals(was, is, op + ": terminal row " + id + " moved");
                }
                if ((was.startsWith("SENDING") || was.startsWith("UNKNOWN"))
                        && (is.startsWith("PENDING") || is.startsWith("PROCESSING"))) {
                    assertEquals(
                            Long.valueOf(id),
                            reconciledToPending,
                            op + ": sending row " + id + " became claimable without a \"not sent\" verdict: " + was
                                    + " -> " + is);
                }
                if (gates.contains(Gate.ATTEMPT_LIMIT_ON_EXPIRY)) {
                    int attempts = Integer.parseInt(is.split("/")[1]);
                    assertTrue(attempts <= MAX_ATTEMPTS, op + ": row " + id + " past maxAttempts: " + is);
                }
            }
        }

        private Map<Long, String> view() {
            Map<Long, String> out = new TreeMap<>();
            model.forEach((id, r) -> out.put(id, r.view()));
            return out;
        }
    }

    private Map<Long, String> readAll() throws SQLException {
        Map<Long, String> out = new TreeMap<>();
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, sync_status, attempts, claim_token FROM " + jobs.name())) {
            while (rs.next()) {
                Sync state = Sync.MACHINE.fromCode((long) rs.getInt(2)).orElseThrow();
                out.put(rs.getLong(1), state + "/" + rs.getInt(3) + "/" + rs.getLong(4)); // NULL token reads 0
            }
        }
        return out;
    }
}
