package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.LeaseResult;
import dev.baton.Outcome;
import dev.baton.RetryPolicy;
import dev.baton.spi.Dialect;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testkit.SeededRunner;
import dev.baton.testservers.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Model-based property test of claim queues with simulated lease expiry: seeded random sequences of claims, fenced
 * completions, retries with backoff, dead letters, releases and heartbeats by current and stale holders, reclaim
 * sweeps, and jumps of the database clock (through {@link ShiftedClockDialect}, never the JVM clock), run against a
 * pure in-memory model and the database; after every step the results and the whole table are compared. Time moves
 * in steps of 25 s against a 60 s lease and 10 s / 40 s backoffs, so no comparison sits on a boundary.
 */
public abstract class AbstractClaimQueueModelTest extends DatabaseSuite {
    /** Sequences per run (the issue asks for at least 200). */
    protected static final int SEQUENCES = 200;
    /** Operations per sequence. */
    protected static final int STEPS = 50;

    private static final long LEASE = 60_000;
    private static final int MAX_ATTEMPTS = 3;
    private static final int ROWS = 8;
    private static final int UNPAID_FROM = 7; // rows 7 and 8 are never eligible

    private TestDatabase db;
    private Dialect dialect;
    private JobsTable jobs;
    private long now; // model time: the shift of the database clock, ms

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

    private ClaimQueue<Sync> queue() {
        Baton b = Baton.builder(db.dataSource())
                .dialect(new ShiftedClockDialect(dialect, now))
                .build();
        return b.<Sync>queue("model-" + jobs.name())
                .table(jobs.name())
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .eligibleWhen(b.table(jobs.name())
                        .state("payment_status", Payment.MACHINE)
                        .is(Payment.PAID))
                .deadState(Sync.FAILED)
                .lease(Duration.ofMillis(LEASE))
                .retry(RetryPolicy.fixed(Duration.ofSeconds(10)).maxAttempts(MAX_ATTEMPTS))
                .build();
    }

    /** A row of the model. */
    private static final class Row {
        Sync state = Sync.PENDING;
        long token;
        long leaseUntil;
        long due = Long.MIN_VALUE;
        int attempts;
        final boolean paid;

        Row(boolean paid) {
            this.paid = paid;
        }

        String view() {
            return state + "/" + attempts + (state == Sync.PROCESSING ? "/" + token : "");
        }
    }

    @Test
    void databaseAgreesWithTheModel() {
        SeededRunner runner = SeededRunner.sequences(SEQUENCES).steps(STEPS);
        runner.run((random, steps, seed) -> {
            Map<Long, Row> model = reset();
            List<ClaimedRow<Sync>> issued = new ArrayList<>();
            ClaimQueue<Sync> q = queue();
            for (int step = 0; step < steps; step++) {
                String op;
                int kind = random.nextInt(100);
                if (kind < 30 || issued.isEmpty()) {
                    int n = 1 + random.nextInt(4);
                    op = "claim(" + n + ") at " + now;
                    List<Long> expected = new ArrayList<>();
                    for (Map.Entry<Long, Row> e : model.entrySet()) {
                        Row r = e.getValue();
                        if (expected.size() < n && r.state == Sync.PENDING && r.paid && r.due <= now) {
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
                            assertEquals(r.attempts, c.attempt(), op + " attempt of " + id + ", seed " + seed);
                        }
                        issued.add(c);
                    }
                    assertEquals(expected, ids, op + ", seed " + seed);
                } else if (kind < 75) {
                    ClaimedRow<Sync> c = issued.get(random.nextInt(issued.size()));
                    long id = ((Number) c.id()).longValue();
                    Row r = model.get(id);
                    boolean holds = r.state == Sync.PROCESSING && r.token == c.token();
                    int what = random.nextInt(6);
                    LeaseResult<Sync> got;
                    Sync after;
                    switch (what) {
                        case 0, 1 -> {
                            op = "complete(" + id + ")";
                            got = q.apply(c, Outcome.complete(Sync.COMPLETED));
                            after = Sync.COMPLETED;
                        }
                        case 2 -> {
                            long delay = random.nextBoolean() ? 0 : random.nextBoolean() ? 10_000 : 40_000;
                            op = "retryAfter(" + id + ", " + delay + ")";
                            got = q.apply(c, Outcome.retryAfter(Duration.ofMillis(delay), "e"));
                            after = c.attempt() >= MAX_ATTEMPTS ? Sync.FAILED : Sync.PENDING;
                            if (holds && after == Sync.PENDING) {
                                r.due = now + delay;
                            }
                        }
                        case 3 -> {
                            op = "deadLetter(" + id + ")";
                            got = q.apply(c, Outcome.deadLetter("d"));
                            after = Sync.FAILED;
                        }
                        case 4 -> {
                            op = "release(" + id + ")";
                            got = q.release(c);
                            after = Sync.PENDING;
                            if (holds) {
                                r.attempts--; // a release gives the attempt back
                            }
                        }
                        default -> {
                            op = "heartbeat(" + id + ")";
                            got = q.heartbeat(c);
                            after = Sync.PROCESSING;
                            if (holds) {
                                r.leaseUntil = now + LEASE;
                            }
                        }
                    }
                    op += " token " + c.token() + " at " + now;
                    if (holds) {
                        assertEquals(new LeaseResult.Done<>(c.id(), after), got, op + ", seed " + seed);
                        r.state = after;
                    } else {
                        assertEquals(new LeaseResult.LeaseLost<>(c.id()), got, op + ", seed " + seed);
                    }
                } else if (kind < 90) {
                    now += 25_000L * (1 + random.nextInt(3));
                    q = queue();
                    op = "advance to " + now;
                } else {
                    op = "reclaimExpired at " + now;
                    long expected = 0;
                    for (Row r : model.values()) {
                        if (r.state == Sync.PROCESSING && r.leaseUntil < now) {
                            // a lease that expired on the last attempt is a crash loop: dead-lettered
                            r.state = r.attempts >= MAX_ATTEMPTS ? Sync.FAILED : Sync.PENDING;
                            expected++;
                        }
                    }
                    assertEquals(expected, q.reclaimExpired(), op + ", seed " + seed);
                }
                assertEquals(view(model), readAll(), "after step " + step + " (" + op + "), seed " + seed);
            }
        });
        System.out.println("model-based claims on " + db.name() + ": " + runner.sequencesRun() + " sequences, "
                + runner.stepsRun() + " steps, 0 divergences");
    }

    private Map<Long, Row> reset() throws SQLException {
        db.execute("DELETE FROM " + jobs.name());
        jobs.insert(1, UNPAID_FROM - 1, Payment.PAID);
        jobs.insert(UNPAID_FROM, ROWS - UNPAID_FROM + 1, Payment.PENDING);
        Map<Long, Row> model = new TreeMap<>();
        for (long id = 1; id <= ROWS; id++) {
            model.put(id, new Row(id < UNPAID_FROM));
        }
        return model;
    }

    private static Map<Long, String> view(Map<Long, Row> model) {
        Map<Long, String> out = new TreeMap<>();
        model.forEach((id, r) -> out.put(id, r.view()));
        return out;
    }

    private Map<Long, String> readAll() throws SQLException {
        Map<Long, String> out = new TreeMap<>();
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, sync_status, attempts, claim_token FROM " + jobs.name())) {
            while (rs.next()) {
                Sync state = Sync.MACHINE.fromCode((long) rs.getInt(2)).orElseThrow();
                out.put(
                        rs.getLong(1),
                        state + "/" + rs.getInt(3) + (state == Sync.PROCESSING ? "/" + rs.getLong(4) : ""));
            }
        }
        return out;
    }
}
