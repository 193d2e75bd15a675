package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import dev.baton.Baton;
import dev.baton.BeginResult;
import dev.baton.BulkResult;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.Decision;
import dev.baton.EnqueueResult;
import dev.baton.FinishResult;
import dev.baton.IdempotencyKeys;
import dev.baton.IdempotencyToken;
import dev.baton.Inbox;
import dev.baton.LeaseResult;
import dev.baton.Message;
import dev.baton.Outbox;
import dev.baton.Outcome;
import dev.baton.ReceiveResult;
import dev.baton.RetryPolicy;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import dev.baton.spi.Dialect;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testkit.faults.Fault;
import dev.baton.testkit.faults.FaultPoint;
import dev.baton.testkit.faults.FaultyDataSource;
import dev.baton.testkit.faults.Step;
import dev.baton.testservers.DatabaseKind;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every public write operation of Baton × every {@link FaultPoint} × every JDBC step the operation issues (found by a
 * recording dry run), each on freshly reset small tables, with the invariants checked after each case: no double
 * effect, no lost row, no stale-token write accepted, no result that contradicts the database, bounded attempts. One
 * dynamic test per case, named {@code operation × fault × step}; {@code operation × none × 0} is the fault-free
 * baseline.
 *
 * <p>A fault fires once; Baton's own transient retries then meet a healthy server. An operation that throws is always
 * acceptable (the caller knows it is in doubt); a result it returns must be true.
 *
 * <p>{@link #KNOWN_FAILURES} lists the cases that break an invariant today (none): each of
 * them asserts that it still breaks one, so the list stays exact and the test flags the fix when it lands.
 */
public abstract class AbstractFaultCompatibilityTest extends DatabaseSuite {
    private static final Duration LEASE = Duration.ofSeconds(60);
    private static final Duration LATER = Duration.ofMinutes(10);
    private static final int MAX_ATTEMPTS = RetryPolicy.transientDefault().maxAttempts();

    /**
     * Cases that break an invariant today, per database: none. The 17 per database that did were fixed by reading a receipt back on the retry (the claim token, the
     * fenced write's token and state) or by a typed in-doubt answer ({@code TransitionResult.InDoubt}, {@code
     * BulkResult.countInDoubt()}, {@code OutcomeInDoubtException}). A case listed here must still break its invariant.
     */
    static final Map<DatabaseKind, Set<String>> KNOWN_FAILURES = Map.of();

    private TestDatabase db;
    private Dialect dialect;
    private Baton real;
    private FaultyDataSource faults;
    private Baton faulty;
    private JobsTable jobs;
    private String outboxTable;
    private String keysTable;
    private String inboxTable;
    private StateTable<Payment> paymentsF;
    private ClaimQueue<Sync> queueR;
    private ClaimQueue<Sync> queueF;
    private ClaimQueue<Sync> sendingR;
    private ClaimQueue<Sync> sendingF;
    private ClaimQueue<Sync> laterR;
    private ClaimQueue<Sync> sendingLaterF;
    private Outbox outboxR;
    private Outbox outboxF;
    private Outbox outboxLaterR;
    private IdempotencyKeys keysR;
    private IdempotencyKeys keysF;
    private Inbox inboxR;
    private Inbox inboxF;
    private int caseNumber;

    @Override
    protected void setUp() {
        db = database();
        real = Baton.using(db.dataSource());
        dialect = real.dialect();
        faults = new FaultyDataSource(db);
        faulty = Baton.builder(faults).dialect(dialect).build();
        Baton faultyLater = Baton.builder(faults)
                .dialect(new ShiftedClockDialect(dialect, LATER.toMillis()))
                .build();
        Baton realLater = Baton.builder(db.dataSource())
                .dialect(new ShiftedClockDialect(dialect, LATER.toMillis()))
                .build();
        jobs = JobsTable.create(db, "faults", true);
        paymentsF = faulty.table(jobs.name()).state("payment_status", Payment.MACHINE);
        queueR = jobs.queue(real, LEASE);
        queueF = jobs.queue(faulty, LEASE);
        laterR = jobs.queue(realLater, LEASE);
        sendingR = jobs.sendingQueue(real, LEASE);
        sendingF = jobs.sendingQueue(faulty, LEASE);
        sendingLaterF = jobs.sendingQueue(faultyLater, LEASE);
        outboxTable = TestDatabases.uniqueName("fobox");
        real.ownTables().createOutboxTable(outboxTable);
        Outbox.Options options = Outbox.Options.defaults().lease(LEASE);
        outboxR = real.outbox(outboxTable, options);
        outboxF = faulty.outbox(outboxTable, options);
        outboxLaterR = realLater.outbox(outboxTable, options);
        keysTable = TestDatabases.uniqueName("fkeys");
        real.ownTables().createIdempotencyKeysTable(keysTable);
        keysR = real.idempotencyKeys(keysTable);
        keysF = faulty.idempotencyKeys(keysTable);
        inboxTable = TestDatabases.uniqueName("finbox");
        real.ownTables().createInboxTable(inboxTable);
        inboxR = real.inbox(inboxTable);
        inboxF = faulty.inbox(inboxTable);
    }

    @Override
    protected void tearDown() {
        jobs.drop();
        db.dropTableIfExists(outboxTable);
        db.dropTableIfExists(keysTable);
        db.dropTableIfExists(inboxTable);
    }

    @TestFactory
    List<DynamicTest> everyWriteOperationUnderEveryFault() {
        Optional<DynamicTest> skipped = skippedFactory("every write operation under every fault");
        if (skipped.isPresent()) {
            return List.of(skipped.get());
        }
        List<DynamicTest> tests = new ArrayList<>();
        Set<String> known = KNOWN_FAILURES.getOrDefault(db.kind(), Set.of());
        for (Operation op : operations()) {
            Ctx dry = new Ctx(++caseNumber);
            op.setup.accept(dry);
            faults.arm(null);
            try {
                op.run.apply(dry);
            } finally {
                faults.disarm();
            }
            List<Step> steps = new ArrayList<>();
            for (Step s : faults.steps()) {
                if (s.kind().faultable()) {
                    steps.add(s);
                }
            }
            StringBuilder plan = new StringBuilder();
            for (Step s : steps) {
                plan.append("\n    ")
                        .append(s.index())
                        .append(' ')
                        .append(s.kind())
                        .append(": ")
                        .append(abbreviate(s.sql()));
            }
            System.out.println("[faults] " + db.name() + " " + op.name + ": " + steps.size() + " step(s)" + plan);
            tests.add(DynamicTest.dynamicTest(op.name + " × none × 0", () -> runCase(op, null, steps.size(), known)));
            for (FaultPoint point : FaultPoint.values()) {
                for (Step s : steps) {
                    String name = op.name + " × " + point + " × " + s.index();
                    Fault fault = Fault.atStep(point, s.index());
                    tests.add(DynamicTest.dynamicTest(
                            name + " (" + s.kind() + ": " + abbreviate(s.sql()) + ")",
                            () -> runCase(op, fault, steps.size(), known)));
                }
            }
        }
        return tests;
    }

    private void runCase(Operation op, Fault fault, int dryRunSteps, Set<String> known) {
        String name = op.name + " × " + (fault == null ? "none × 0" : fault.point() + " × " + fault.nth());
        Ctx ctx = new Ctx(++caseNumber);
        op.setup.accept(ctx);
        Object result = null;
        RuntimeException thrown = null;
        faults.arm(fault);
        try {
            result = op.run.apply(ctx);
        } catch (RuntimeException e) {
            thrown = e;
        } finally {
            faults.disarm();
        }
        String log = faults.describe();
        List<String> violations = new ArrayList<>();
        if (fault != null && faults.fired().isEmpty()) {
            violations.add("the fault never fired (the operation took another path than the dry run)");
        }
        if (fault != null
                && fault.point() == FaultPoint.KILL_BACKEND
                && faults.fired().orElseThrow().outcome().contains(", ok")) {
            violations.add("harness: the step still succeeded after its session was killed");
        }
        if (faults.stepCount() > dryRunSteps * MAX_ATTEMPTS + 4) {
            violations.add("unbounded attempts: " + faults.stepCount() + " steps, dry run " + dryRunSteps);
        }
        op.check.check(ctx, result, thrown, violations);
        String report = name + ": " + violations + "\n result " + (thrown != null ? "threw " + thrown : result)
                + "\n steps:" + log;
        if (known.contains(name)) {
            assertFalse(violations.isEmpty(), "known failure now passes; remove it from KNOWN_FAILURES: " + report);
            System.out.println("[faults] known failure " + db.name() + " " + name + ": " + violations);
        } else if (!violations.isEmpty()) {
            fail(report);
        }
    }

    private static String abbreviate(String sql) {
        String s = sql.replaceAll("\\s+", " ");
        return s.length() > 90 ? s.substring(0, 87) + "..." : s;
    }

    // ---------------------------------------------------------------- operations

    private List<Operation> operations() {
        List<Operation> ops = new ArrayList<>();
        ops.add(new Operation(
                "transition.apply()",
                c -> resetJobs(1, Payment.PENDING),
                c -> paymentsF.transition(1L, Payment.PENDING, Payment.PAID).apply(),
                this::checkTransition));
        ops.add(new Operation(
                "transition.apply(connection)",
                c -> resetJobs(1, Payment.PENDING),
                c -> inCallerTransaction(conn ->
                        paymentsF.transition(1L, Payment.PENDING, Payment.PAID).apply(conn)),
                this::checkTransition));
        ops.add(new Operation(
                "bulk.apply()",
                c -> resetJobs(5, Payment.PENDING),
                c -> paymentsF.bulk(Payment.PENDING, Payment.PAID).batchSize(2).apply(),
                (c, r, t, v) -> {
                    long paid = count(jobs.name(), "payment_status = " + Payment.PAID.code());
                    expectRows(jobs.name(), 5, v);
                    if (r instanceof BulkResult b && b.countInDoubt() && b.rows() > paid) {
                        v.add("reported at least " + b.rows() + " rows moved; the database has " + paid + " moved");
                    } else if (r instanceof BulkResult b && !b.countInDoubt() && b.rows() != paid) {
                        v.add("reported " + b.rows() + " rows moved; the database has " + paid + " moved (by this"
                                + " call only)");
                    }
                }));
        ops.add(new Operation(
                "claim", c -> resetJobs(3, Payment.PAID), c -> queueF.claim(2), (c, r, t, v) -> checkClaim(r, t, v)));
        ops.add(new Operation(
                "complete",
                c -> claimOne(c, queueR),
                c -> queueF.complete(c.row, Sync.COMPLETED),
                (c, r, t, v) -> checkLease(c.row, r, Sync.COMPLETED, v)));
        ops.add(new Operation(
                "apply(retry)",
                c -> claimOne(c, queueR),
                c -> queueF.apply(c.row, Outcome.retry("boom")),
                (c, r, t, v) -> checkLease(c.row, r, Sync.PENDING, v)));
        ops.add(new Operation(
                "applyAll(one completion)",
                c -> claimAll(c, queueR, 3),
                c -> queueF.applyAll(decisions(
                        c.rows,
                        List.of(
                                Outcome.complete(Sync.COMPLETED),
                                Outcome.complete(Sync.COMPLETED),
                                Outcome.complete(Sync.COMPLETED)))),
                (c, r, t, v) -> checkLeases(c.rows, r, List.of(Sync.COMPLETED, Sync.COMPLETED, Sync.COMPLETED), v)));
        ops.add(new Operation(
                "applyAll(mixed)",
                c -> claimAll(c, queueR, 3),
                c -> queueF.applyAll(decisions(
                        c.rows,
                        List.of(
                                Outcome.<Sync>complete(Sync.COMPLETED).set("third_party_guid", "g"),
                                Outcome.retry("again"),
                                Outcome.deadLetter("no")))),
                (c, r, t, v) -> {
                    checkLeases(c.rows, r, List.of(Sync.COMPLETED, Sync.PENDING, Sync.FAILED), v);
                    long held = count(jobs.name(), "sync_status = " + Sync.PROCESSING.code());
                    if (held != 0 && held != 3) {
                        v.add("one transaction applied part of the batch: " + held + " of 3 rows still held");
                    }
                }));
        ops.add(new Operation(
                "heartbeat",
                c -> claimOne(c, queueR),
                c -> queueF.heartbeat(c.row),
                (c, r, t, v) -> checkLease(c.row, r, Sync.PROCESSING, v)));
        ops.add(new Operation(
                "release",
                c -> claimOne(c, queueR),
                c -> queueF.release(c.row),
                (c, r, t, v) -> checkLease(c.row, r, Sync.PENDING, v)));
        ops.add(new Operation(
                "markSending",
                c -> claimOne(c, sendingR),
                c -> sendingF.markSending(c.row),
                (c, r, t, v) -> checkLease(c.row, r, Sync.SENDING, v)));
        ops.add(new Operation(
                "resolveUnknown(sent)",
                c -> unknownRow(),
                c -> sendingF.unknownSends()
                        .resolveSent(1L, Outcome.<Sync>complete(Sync.COMPLETED).set("third_party_guid", "g")),
                (c, r, t, v) -> checkResolved(r, Sync.COMPLETED, v)));
        ops.add(new Operation(
                "resolveUnknown(not sent)",
                c -> unknownRow(),
                c -> sendingF.unknownSends().resolveNotSent(1L),
                (c, r, t, v) -> checkResolved(r, Sync.PENDING, v)));
        ops.add(new Operation(
                "resolveUnknown(not sent, attempts used up)",
                c -> {
                    unknownRow();
                    exec("UPDATE " + jobs.name() + " SET attempts = "
                            + sendingR.retryPolicy().maxAttempts());
                },
                c -> sendingF.unknownSends().resolveNotSent(1L),
                (c, r, t, v) -> checkResolved(r, Sync.FAILED, v)));
        ops.add(new Operation(
                "resolveUnknown(dead-letter verdict)",
                c -> unknownRow(),
                c -> sendingF.unknownSends().resolve(1L, Outcome.deadLetter("the sink refused it")),
                (c, r, t, v) -> checkResolved(r, Sync.FAILED, v)));
        ops.add(new Operation(
                "reclaimExpired",
                c -> {
                    claimAll(c, sendingR, 2);
                    sendingR.markSending(c.rows.get(1));
                },
                c -> sendingLaterF.reclaimExpired(),
                (c, r, t, v) -> {
                    Sync s1 = sync(1);
                    Sync s2 = sync(2);
                    if (s1 != Sync.PROCESSING && s1 != Sync.PENDING || s2 != Sync.SENDING && s2 != Sync.UNKNOWN) {
                        v.add("rows in unexpected states " + s1 + ", " + s2);
                    }
                    long moved = (s1 == Sync.PENDING ? 1 : 0) + (s2 == Sync.UNKNOWN ? 1 : 0);
                    if (r instanceof Long n && n != moved) {
                        v.add("reported " + n + " rows moved; this call moved " + moved);
                    }
                }));
        ops.add(new Operation(
                "complete(stale token)",
                c -> {
                    claimOne(c, queueR);
                    laterR.reclaimExpired();
                    c.fresh = laterR.claim(1).get(0);
                },
                c -> queueF.complete(c.row, Sync.COMPLETED),
                (c, r, t, v) -> {
                    if (r instanceof LeaseResult.Done<?>) {
                        v.add("a stale token's completion was reported Done");
                    }
                    if (sync(1) != Sync.PROCESSING || token(1) != c.fresh.token()) {
                        v.add("a stale token's write changed the row: " + sync(1));
                    }
                }));
        ops.add(new Operation(
                "outbox.enqueue",
                c -> resetOutbox(),
                c -> outboxF.enqueue(Message.of("t", "m" + c.n)),
                (c, r, t, v) -> {
                    checkEnqueue(r, v);
                    mustAnswer(t, v);
                }));
        ops.add(new Operation(
                "outbox.enqueue(dedup)",
                c -> resetOutbox(),
                c -> outboxF.enqueue(Message.of("t", "m" + c.n).dedupKey("d" + c.n)),
                (c, r, t, v) -> {
                    checkEnqueue(r, v);
                    mustAnswer(t, v);
                    if (r instanceof EnqueueResult.Duplicate) {
                        v.add("Duplicate returned to the call that stored the message (nobody else enqueued it)");
                    }
                }));
        ops.add(new Operation(
                "outbox.enqueue(connection)",
                c -> resetOutbox(),
                c -> inCallerTransaction(conn -> outboxF.enqueue(conn, Message.of("t", "m" + c.n))),
                (c, r, t, v) -> checkEnqueue(r, v)));
        ops.add(new Operation(
                "outbox.transitionAndEnqueue",
                c -> {
                    resetJobs(1, Payment.PENDING);
                    resetOutbox();
                },
                c -> outboxF.transitionAndEnqueue(
                        paymentsF.transition(1L, Payment.PENDING, Payment.PAID), Message.of("t", "paid " + c.n)),
                (c, r, t, v) -> {
                    long messages = count(outboxTable, "");
                    boolean paid = payment(1) == Payment.PAID;
                    if (messages != (paid ? 1 : 0)) {
                        v.add("transition and message not atomic: paid " + paid + ", " + messages + " message(s)");
                    }
                    checkTransition(c, r, t, v);
                    // the message's receipt tells the retry whether the pair committed: a certain answer, always
                    if (r instanceof TransitionResult.InDoubt<?>) {
                        v.add("InDoubt, although the call's receipt (present or absent) decides it");
                    }
                    if (t != null) {
                        v.add("transitionAndEnqueue threw after a single fault, which its receipt recovers from: " + t);
                    }
                }));
        ops.add(new Operation(
                "outbox dispatch",
                c -> {
                    resetOutbox();
                    outboxR.enqueue(Message.of("t", "a"));
                    outboxR.enqueue(Message.of("t", "b"));
                },
                c -> {
                    List<ClaimedRow<Outbox.Status>> rows = outboxF.queue().claim(10);
                    c.outRows = rows;
                    List<Decision<Outbox.Status>> ds = new ArrayList<>();
                    for (ClaimedRow<Outbox.Status> row : rows) {
                        c.sends.merge(outboxF.toMessage(row).id(), 1, Integer::sum);
                        ds.add(new Decision<>(row, Outcome.complete(Outbox.Status.DELIVERED)));
                    }
                    return outboxF.queue().applyAll(ds);
                },
                this::checkDispatch));
        ops.add(new Operation(
                "keys.begin", c -> c.key = "k" + c.n, c -> keysF.begin("s", c.key, "fp"), (c, r, t, v) -> {
                    if (r != null && !(r instanceof BeginResult.Started)) {
                        v.add(r + " returned to the only caller of begin");
                    }
                    BeginResult after = keysR.begin("s", c.key, "fp");
                    if (r instanceof BeginResult.Started && !(after instanceof BeginResult.InProgress)) {
                        v.add("Started, but the key is not in progress: " + after);
                    }
                }));
        ops.add(new Operation(
                "keys.complete",
                c -> {
                    c.key = "k" + c.n;
                    c.token = ((BeginResult.Started) keysR.begin("s", c.key, "fp")).token();
                },
                c -> keysF.complete(c.token, "resp".getBytes(StandardCharsets.UTF_8)),
                (c, r, t, v) -> {
                    boolean completed = keysR.begin("s", c.key, "fp") instanceof BeginResult.Completed;
                    if (r instanceof FinishResult.Finished && !completed) {
                        v.add("Finished but the key is not completed");
                    }
                    if (r instanceof FinishResult.LeaseLost && completed) {
                        v.add("LeaseLost returned to the call that completed the key");
                    }
                }));
        ops.add(new Operation(
                "keys.fail",
                c -> {
                    c.key = "k" + c.n;
                    c.token = ((BeginResult.Started) keysR.begin("s", c.key, "fp")).token();
                },
                c -> keysF.fail(c.token),
                (c, r, t, v) -> {
                    boolean released = keysR.begin("s", c.key, "fp") instanceof BeginResult.Started;
                    if (r instanceof FinishResult.Finished && !released) {
                        v.add("Finished but the key is still held");
                    }
                    if (r instanceof FinishResult.LeaseLost && released) {
                        v.add("LeaseLost returned to the call that failed the key");
                    }
                }));
        ops.add(new Operation(
                "inbox.receive", c -> c.key = "m" + c.n, c -> inboxF.receive("src", c.key), (c, r, t, v) -> {
                    if (r instanceof ReceiveResult.Duplicate) {
                        v.add("Duplicate returned to the first and only delivery");
                    }
                    ReceiveResult after = inboxR.receive("src", c.key);
                    if (r instanceof ReceiveResult.FirstDelivery && !(after instanceof ReceiveResult.Duplicate)) {
                        v.add("FirstDelivery but nothing was recorded");
                    }
                }));
        return ops;
    }

    // ---------------------------------------------------------------- invariants

    private void checkTransition(Ctx c, Object r, RuntimeException t, List<String> v) {
        Payment p = payment(1);
        if (p != Payment.PENDING && p != Payment.PAID) {
            v.add("row in " + p);
        }
        if (r instanceof TransitionResult.Applied<?> && p != Payment.PAID) {
            v.add("Applied but the row is " + p);
        } else if (r instanceof TransitionResult.InDoubt<?> && p != Payment.PAID) {
            v.add("InDoubt (row in the target) but the row is " + p);
        } else if (r instanceof TransitionResult.AlreadyInTarget<?>) {
            v.add("AlreadyInTarget returned to the call whose write applied (the row was PENDING, nobody else wrote)");
        } else if (r != null
                && !(r instanceof TransitionResult.Applied<?>)
                && !(r instanceof TransitionResult.InDoubt<?>)) {
            v.add("wrong result " + r);
        }
    }

    /** A resolution of the unknown row 1 into {@code target}: true results, one effect, the sender's token gone. */
    private void checkResolved(Object r, Sync target, List<String> v) {
        Sync s = sync(1);
        if (s != target && s != Sync.UNKNOWN) {
            v.add("row in " + s);
        }
        if (r instanceof LeaseResult.Done<?> d && (s != target || d.state() != target)) {
            v.add(r + " but the row is " + s);
        }
        if (r instanceof LeaseResult.LeaseLost<?> && s == target) {
            v.add("LeaseLost (\"no longer unknown\") returned to the call that resolved the row");
        }
        if (s == target && token(1) != 0) {
            v.add("the resolved row kept a claim token: " + token(1));
        }
        if (target == Sync.PENDING && s == Sync.PENDING && attempts(1) > 1) {
            v.add("the row to send again used " + attempts(1) + " attempts");
        }
    }

    private void checkClaim(Object r, RuntimeException t, List<String> v) {
        expectRows(jobs.name(), 3, v);
        Map<Long, Long> held = new TreeMap<>();
        for (long id = 1; id <= 3; id++) {
            if (sync(id) == Sync.PROCESSING) {
                held.put(id, token(id));
            } else if (attempts(id) != 0) {
                v.add("row " + id + " is not held but used an attempt");
            }
        }
        Map<Long, Long> received = new TreeMap<>();
        if (r instanceof List<?> rows) {
            for (Object o : rows) {
                ClaimedRow<?> row = (ClaimedRow<?>) o;
                long id = ((Number) row.id()).longValue();
                received.put(id, row.token());
                if (attempts(id) != row.attempt()) {
                    v.add("row " + id + " attempt " + row.attempt() + " but the database says " + attempts(id));
                }
            }
        }
        if (!held.equals(received)) {
            v.add("rows held in the database " + held.keySet() + " but the caller received " + received.keySet()
                    + " (rows nobody received stay PROCESSING until the lease ends, an attempt used)");
        }
    }

    private void checkLease(ClaimedRow<Sync> row, Object r, Sync target, List<String> v) {
        long id = ((Number) row.id()).longValue();
        Sync s = sync(id);
        boolean ours = token(id) == row.token();
        boolean changed = target == Sync.PROCESSING ? s == Sync.PROCESSING && ours : s == target;
        if (r instanceof LeaseResult.Done<?> && !changed) {
            v.add("row " + id + ": Done but the row is " + s);
        }
        if (r instanceof LeaseResult.LeaseLost<?> && changed) {
            v.add("row " + id + ": LeaseLost, yet the row is " + s + " under this call's token (this call wrote it"
                    + (target == Sync.PROCESSING ? ", or still holds it" : "") + ")");
        }
        if (s != target && s != Sync.PROCESSING) {
            v.add("row " + id + " in " + s);
        }
    }

    private void checkLeases(List<ClaimedRow<Sync>> rows, Object r, List<Sync> targets, List<String> v) {
        for (int i = 0; i < rows.size(); i++) {
            Object one = r instanceof List<?> l ? l.get(i) : null;
            checkLease(rows.get(i), one, targets.get(i), v);
        }
    }

    private void checkEnqueue(Object r, List<String> v) {
        long n = count(outboxTable, "");
        if (n > 1) {
            v.add("one enqueue stored " + n + " messages (each is delivered)");
        }
        if (r instanceof EnqueueResult.Enqueued e && count(outboxTable, "id = " + e.id()) != 1) {
            v.add("Enqueued id " + e.id() + " does not exist");
        }
    }

    /** An enqueue reads its receipt back after one fault, so it answers rather than throwing (in doubt or not). */
    private static void mustAnswer(RuntimeException thrown, List<String> v) {
        if (thrown != null) {
            v.add("enqueue threw after a single fault, which its receipt recovers from: " + thrown);
        }
    }

    private void checkDispatch(Ctx c, Object r, RuntimeException t, List<String> v) {
        checkLeaseResults(c, r, v);
        long held = count(outboxTable, "status = " + Outbox.Status.PROCESSING.code());
        long received = c.outRows == null ? 0 : c.outRows.size();
        if (r != null && held != 0) {
            v.add(held + " message(s) left PROCESSING by a dispatch that returned");
        }
        if (c.outRows != null && received + count(outboxTable, "status = " + Outbox.Status.PENDING.code()) < 2) {
            v.add("claimed " + (2 - received - count(outboxTable, "status = 0"))
                    + " message(s) the dispatcher never received (stuck until the lease ends)");
        }
        // recovery: a later dispatcher (lease expired) delivers what is left
        outboxLaterR.queue().reclaimExpired();
        for (ClaimedRow<Outbox.Status> row : outboxLaterR.queue().claim(10)) {
            c.sends.merge(outboxLaterR.toMessage(row).id(), 1, Integer::sum);
            outboxLaterR.queue().complete(row, Outbox.Status.DELIVERED);
        }
        if (count(outboxTable, "status = " + Outbox.Status.DELIVERED.code()) != 2) {
            v.add("a message was lost: not delivered after recovery");
        }
        for (Map.Entry<Long, Integer> e : c.sends.entrySet()) {
            // a dispatch that threw leaves its sends in doubt (a re-send carries the same idempotency key); one that
            // returned believed every message settled, so none may be sent again
            if (e.getValue() > 1 && r != null) {
                v.add("message " + e.getKey() + " sent " + e.getValue() + " times although the dispatch returned");
            }
        }
    }

    private void checkLeaseResults(Ctx c, Object r, List<String> v) {
        if (!(r instanceof List<?> results)) {
            return;
        }
        for (int i = 0; i < results.size(); i++) {
            ClaimedRow<Outbox.Status> row = c.outRows.get(i);
            boolean delivered = count(outboxTable, "id = " + row.id() + " AND status = 2") == 1;
            if (results.get(i) instanceof LeaseResult.Done<?> && !delivered) {
                v.add("message " + row.id() + ": Done but not delivered");
            }
            if (results.get(i) instanceof LeaseResult.LeaseLost<?> && delivered) {
                v.add("message " + row.id() + ": LeaseLost for the call that delivered it");
            }
        }
    }

    // ---------------------------------------------------------------- fixtures

    private void resetJobs(int rows, Payment payment) {
        StringBuilder insert = new StringBuilder("INSERT INTO " + jobs.name()
                + " (id, payment_status, sync_status, attempts, payload, created_at) VALUES ");
        for (int id = 1; id <= rows; id++) {
            insert.append(id > 1 ? ", " : "")
                    .append("(" + id + ", " + payment.code() + ", 0, 0, 'p" + id + "', "
                            + db.kind().now() + ")");
        }
        exec("DELETE FROM " + jobs.name(), insert.toString());
    }

    private void resetOutbox() {
        exec("DELETE FROM " + outboxTable);
    }

    /** Runs statements on the shared pool (the checks and resets never go through the faulty data source). */
    private void exec(String... sql) {
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement()) {
            for (String one : sql) {
                s.execute(one);
            }
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    /** One number from the shared pool; 0 for SQL NULL. */
    private long number(String sql) {
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            if (!rs.next()) {
                throw new AssertionError("no row: " + sql);
            }
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    private long column(long id, String column) {
        return number("SELECT " + column + " FROM " + jobs.name() + " WHERE id = " + id);
    }

    private Sync sync(long id) {
        return Sync.MACHINE.fromCode(column(id, "sync_status")).orElseThrow();
    }

    /** Row 1 in the unknown state, as the sweep leaves a row whose lease expired while sending (no token). */
    private void unknownRow() {
        resetJobs(1, Payment.PAID);
        exec("UPDATE " + jobs.name() + " SET sync_status = " + Sync.UNKNOWN.code() + ", attempts = 1");
    }

    private void claimOne(Ctx c, ClaimQueue<Sync> queue) {
        resetJobs(1, Payment.PAID);
        c.row = queue.claim(1).get(0);
    }

    private void claimAll(Ctx c, ClaimQueue<Sync> queue, int n) {
        resetJobs(n, Payment.PAID);
        c.rows = queue.claim(n);
        if (c.rows.size() != n) {
            throw new AssertionError("setup claimed " + c.rows.size() + " of " + n);
        }
    }

    private static List<Decision<Sync>> decisions(List<ClaimedRow<Sync>> rows, List<Outcome<Sync>> outs) {
        List<Decision<Sync>> out = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            out.add(new Decision<>(rows.get(i), outs.get(i)));
        }
        return out;
    }

    /** Runs {@code work} in a transaction on a faulty connection and commits; a JDBC failure is rethrown unchecked. */
    private <T> T inCallerTransaction(SqlFunction<T> work) {
        try (Connection c = faults.getConnection()) {
            c.setAutoCommit(false);
            T r = work.apply(c);
            c.commit();
            return r;
        } catch (SQLException e) {
            throw new IllegalStateException("caller's transaction failed: " + e.getMessage(), e);
        }
    }

    private Payment payment(long id) {
        return Payment.MACHINE.fromCode(column(id, "payment_status")).orElseThrow();
    }

    private long token(long id) {
        return column(id, "claim_token");
    }

    private int attempts(long id) {
        return (int) column(id, "attempts");
    }

    private void expectRows(String table, long n, List<String> v) {
        long actual = count(table, "");
        if (actual != n) {
            v.add(table + " has " + actual + " rows, expected " + n);
        }
    }

    private long count(String table, String where) {
        return number("SELECT COUNT(*) FROM " + table + (where.isEmpty() ? "" : " WHERE " + where));
    }

    /** The state one case works on. */
    private static final class Ctx {
        final int n;
        ClaimedRow<Sync> row;
        ClaimedRow<Sync> fresh;
        List<ClaimedRow<Sync>> rows = List.of();
        List<ClaimedRow<Outbox.Status>> outRows;
        final Map<Long, Integer> sends = new HashMap<>();
        String key;
        IdempotencyToken token;

        Ctx(int n) {
            this.n = n;
        }
    }

    /** One public write operation: set its rows up, run it through the faulty Baton, check the invariants. */
    private record Operation(String name, Consumer<Ctx> setup, Function<Ctx, Object> run, Check check) {}

    @FunctionalInterface
    private interface Check {
        void check(Ctx c, Object result, RuntimeException thrown, List<String> violations);
    }

    @FunctionalInterface
    private interface SqlFunction<T> {
        T apply(Connection c) throws SQLException;
    }
}
