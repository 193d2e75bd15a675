package dev.baton.testkit.failover;

import static dev.baton.testkit.failover.Timing.await;
import static dev.baton.testkit.failover.Timing.seconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.CommitDurability;
import dev.baton.LeaseResult;
import dev.baton.SendDurability;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import dev.baton.TransitionsInDoubt;
import dev.baton.testkit.compat.JobsTable;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.compat.Sync;
import dev.baton.testkit.failover.FailoverSink.Call;
import dev.baton.testservers.JvmProcess;
import dev.baton.testservers.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The failover suite with worker processes and a callback load, on any {@link FailoverTopology}: two worker JVMs ({@link
 * FailoverWorkerMain}: the non-idempotent sink protocol, each call recorded with its claim token and send token by a
 * {@link FailoverSink} on a server the failover does not touch) and two callback threads in this JVM that apply the
 * guarded transition Payment PENDING → PAID, each callback delivered twice, with the failover audit ({@link
 * Baton.Builder#failoverAudit}) on. The primary is killed ({@code kill -9}) and the standby promoted; in the lossy
 * cases the standby stopped receiving 1.5 s before (or after {@value #LOST_SENDS_AT_MOST} more sends, if sooner), and
 * this JVM claimed {@value #HELD} rows in that window (with {@code OFF} it also marked them and sent them to the sink): a
 * worker process that dies with the old primary. The figures are taken from the histories (the sink's calls, the rows'
 * final tokens, the JVMs' printed epoch reports, the callbacks Baton reported applied); {@link
 * #assertCommon(Figures)} checks what holds in every case.
 */
public final class WorkerProcessFailover {
    /** Rows of the worker JVMs' queue. */
    public static final int ROWS = 2_000;
    /** Rows this JVM claims on the old primary after the standby was cut off: those claims are lost. */
    public static final int HELD = 5;

    static final int KILL_AFTER_SENDS = 500;
    static final int LOST_SENDS_AT_MOST = 800;
    private static final int CALLBACK_ROWS = 20_000;
    private static final int JVMS = 2;
    private static final int THREADS = 4;
    private static final int BATCH = 20;
    private static final int CALLBACK_THREADS = 2;
    private static final Duration LOST_WINDOW = Duration.ofMillis(1_500);

    private WorkerProcessFailover() {}

    /** What one run measured. */
    public record Figures(
            String mode,
            int rowsSent,
            int sends,
            int doubleSends,
            int doubleSendsFenced,
            int sendTokenNotAbove,
            int claimTokensSeenTwiceForOneRow,
            int staleCompletions,
            int reconciled,
            int epochChanges,
            int marksNotKnownDurable,
            long lostMarks,
            int heldSendTokenRepeated,
            int heldResendsRefused,
            int callbacksAcknowledged,
            int callbacksAppliedTwice,
            int callbacksFailed,
            int callbacksInDoubt,
            int lostAcknowledgedTransitions,
            int lostAnsweredInTarget,
            int transitionsAudited,
            long transitionsInDoubtReported,
            int transitionIdsReported,
            int lostNotReported,
            int reportedNotLost,
            int reportedThenReapplied,
            int reportedInDoubt,
            double killToPromotedSeconds,
            double killToFirstClaimSeconds,
            double sendsPerSecondBefore,
            String epochBefore,
            String epochAfter) {}

    /**
     * What holds in every case: every row sent, no claim token twice for a row, no stale completion, the writer's
     * epoch moved and each worker JVM saw it once, and the failover audit reported exactly the acknowledged callbacks
     * that were lost (by id).
     */
    public static void assertCommon(Figures f) {
        assertEquals(ROWS, f.rowsSent(), f.toString());
        assertEquals(0, f.claimTokensSeenTwiceForOneRow(), f.toString());
        assertEquals(0, f.staleCompletions(), f.toString());
        assertNotEquals(f.epochBefore(), f.epochAfter(), f.toString());
        assertEquals(JVMS, f.epochChanges(), "each worker JVM saw the failover once: " + f);
        assertTrue(f.callbacksAcknowledged() > 0, f.toString());
        // the failover audit: every acknowledged callback lost with the old primary was reported by Baton, and only
        // those
        assertEquals(0, f.lostNotReported(), f.toString());
        assertEquals(0, f.reportedNotLost(), f.toString());
        assertEquals(f.transitionsInDoubtReported(), f.transitionIdsReported(), f.toString());
        assertEquals(
                f.lostAcknowledgedTransitions() + f.reportedThenReapplied() + f.reportedInDoubt(),
                f.transitionsInDoubtReported(),
                f.toString());
    }

    /**
     * One run.
     *
     * @param topology the primary and standby, running
     * @param sinkDb the sink's server (not on the topology)
     * @param prefix the prefix of every table the run makes
     * @param lossy whether the standby is cut off 1.5 s before the kill
     * @param durability the queue's send durability
     */
    public static Figures run(
            FailoverTopology topology, TestDatabase sinkDb, String prefix, boolean lossy, SendDurability durability)
            throws Exception {
        return run(topology, sinkDb, prefix, lossy, durability, CommitDurability.OFF);
    }

    /**
     * One run whose callbacks run under {@code callbackDurability} ({@link Baton.Builder#commitDurability}, 500 ms): a
     * callback answered {@link TransitionResult.InDoubt} is not acknowledged (the gateway calls again), and one answered
     * {@code Applied} or {@code AlreadyInTarget} is ("already paid" ends the gateway's retries as well).
     *
     * @param callbackDurability the commit durability of the callbacks' transitions
     */
    public static Figures run(
            FailoverTopology topology,
            TestDatabase sinkDb,
            String prefix,
            boolean lossy,
            SendDurability durability,
            CommitDurability callbackDurability)
            throws Exception {
        TestDatabase db = topology.database();
        JobsTable jobs = JobsTable.create(db, prefix + "jobs", true);
        jobs.insert(1, ROWS, Payment.PAID);
        JobsTable callbacks = JobsTable.create(db, prefix + "cb", false);
        callbacks.insert(1, CALLBACK_ROWS, Payment.PENDING);
        FailoverSink sink = FailoverSink.create(sinkDb, prefix + "sink", ROWS);
        List<JvmProcess> workers = new ArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> callers = new ArrayList<>();
        try (HikariDataSource pool = db.newDataSource(8);
                HikariDataSource sinkPool = sinkDb.newDataSource(2)) {
            for (int n = 1; n <= JVMS; n++) {
                workers.add(JvmProcess.builder(FailoverWorkerMain.class)
                        .name("w" + n)
                        .jvmArgs("-Xmx192m", "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
                        .args(
                                db.jdbcUrl(),
                                db.user(),
                                jobs.name(),
                                sinkDb.jdbcUrl(),
                                sinkDb.user(),
                                sink.name(),
                                durability.name(),
                                "w" + n,
                                String.valueOf(THREADS),
                                String.valueOf(BATCH))
                        .start());
            }
            // the failover audit: the callbacks' transitions, looked up on the new primary after the epoch moved
            List<TransitionsInDoubt> audits = new CopyOnWriteArrayList<>();
            Baton baton = Baton.builder(pool)
                    .failoverAudit(Duration.ofSeconds(60))
                    .commitDurability(callbackDurability, Duration.ofMillis(500))
                    .listener(new BatonListener() {
                        @Override
                        public void onTransitionsInDoubt(TransitionsInDoubt report) {
                            audits.add(report);
                        }
                    })
                    .build();
            // the held claims' queue: a lease long enough that their writes after the failover are not refused by the
            // local deadline (TooLate) but reach the new primary's fence
            ClaimQueue<Sync> queue = FailoverWorkerMain.queue(baton, jobs.name(), durability, Duration.ofSeconds(60));
            StateTable<Payment> payments = baton.table(callbacks.name()).state("payment_status", Payment.MACHINE);
            Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
            Set<Long> appliedTwice = ConcurrentHashMap.newKeySet();
            // answered in doubt, then Applied by the second delivery: the first commit did not survive (an Applied
            // PENDING -> PAID proves the row was still PENDING), so a report of it by the failover audit was true
            Set<Long> appliedAfterDoubt = ConcurrentHashMap.newKeySet();
            Set<Long> answeredInTarget = ConcurrentHashMap.newKeySet(); // Applied or AlreadyInTarget: acknowledged
            Set<Long> inDoubt = ConcurrentHashMap.newKeySet();
            AtomicInteger failed = new AtomicInteger();
            AtomicLong nextCallback = new AtomicLong(1);
            for (int t = 0; t < CALLBACK_THREADS; t++) {
                Thread caller = new Thread(
                        () -> {
                            long id;
                            while (!stop.get() && (id = nextCallback.getAndIncrement()) <= CALLBACK_ROWS) {
                                int applied = 0;
                                boolean doubted = false;
                                for (int delivery = 0; delivery < 2; delivery++) { // each callback comes twice
                                    try {
                                        TransitionResult<Payment> r = payments.transition(
                                                        id, Payment.PENDING, Payment.PAID)
                                                .apply();
                                        if (r instanceof TransitionResult.Applied) {
                                            applied++;
                                            acknowledged.add(id);
                                            if (doubted) {
                                                appliedAfterDoubt.add(id);
                                            }
                                        }
                                        if (r instanceof TransitionResult.InDoubt) {
                                            doubted = true;
                                            inDoubt.add(id); // not acknowledged: the gateway would call again
                                        } else if (r.inTarget()) {
                                            answeredInTarget.add(id);
                                        }
                                    } catch (RuntimeException e) {
                                        failed.incrementAndGet(); // not acknowledged: the gateway would call again
                                    }
                                }
                                if (applied > 1) {
                                    appliedTwice.add(id); // the first was lost: PENDING -> PAID applies once otherwise
                                }
                                pause(); // a gateway's pace, not a flood: the ids last the run
                            }
                        },
                        "callback-" + t);
                caller.start();
                callers.add(caller);
            }
            for (JvmProcess w : workers) {
                assertTrue(w.awaitLine("READY"::equals, Duration.ofSeconds(60)).isPresent(), tail(w));
            }
            long started = System.nanoTime();
            await("the first " + KILL_AFTER_SENDS + " sends", () -> sink.count() >= KILL_AFTER_SENDS, 60);
            double sendsPerSecond = Math.round(sink.count() / seconds(System.nanoTime() - started));
            String epochBefore = topology.writerEpoch();
            List<ClaimedRow<Sync>> held = List.of();
            if (lossy) {
                topology.cutStandby();
                int cut = sink.count();
                // claims made now exist only on the primary that is about to die
                held = queue.claim(HELD);
                assertEquals(HELD, held.size());
                if (durability == SendDurability.OFF) {
                    for (ClaimedRow<Sync> row : held) {
                        assertInstanceOf(LeaseResult.Done.class, queue.markSending(row));
                        FailoverSink.send(sinkPool, sink.name(), row.longId(), row.token(), row.sendToken(), "held");
                    }
                }
                // 1.5 s, or less when the workers are fast: rows must be left to send after the failover
                long until = System.nanoTime() + LOST_WINDOW.toNanos();
                while (System.nanoTime() < until && sink.count() < cut + LOST_SENDS_AT_MOST) {
                    Thread.sleep(20);
                }
            }
            long killWall = System.currentTimeMillis();
            long kill = System.nanoTime();
            topology.killPrimary();
            topology.promote();
            long promoted = System.nanoTime();
            topology.rebuildStandby();
            await(
                    "every row completed on the new primary",
                    () -> completed(jobs) == ROWS,
                    60,
                    () -> "by state " + jobs.countBySync() + "\n" + tail(workers.get(0)) + "\n" + tail(workers.get(1)));
            stop.set(true);
            for (Thread caller : callers) {
                caller.join(30_000);
            }
            String epochAfter = topology.writerEpoch();
            await(
                    "the failover audit's report of the callbacks",
                    () -> audits.stream().anyMatch(r -> r.table().equals(callbacks.name())),
                    15,
                    audits::toString);

            // the lost claims' tokens cannot write on the new primary, where the rows were claimed
            // again (and completed) under other tokens
            Map<Long, String> guids = guids(db, jobs.name());
            for (ClaimedRow<Sync> row : held) {
                assertTrue(
                        !guids.get(row.longId()).endsWith(":" + row.token()),
                        "row " + row.longId() + " completed under the lost claim's token");
                assertInstanceOf(LeaseResult.LeaseLost.class, queue.markSending(row), row.toString());
                assertInstanceOf(LeaseResult.LeaseLost.class, queue.complete(row, Sync.COMPLETED), row.toString());
            }

            List<Call> calls = sink.calls();
            Map<Long, List<Call>> byRow = new HashMap<>();
            // a claim token is drawn per claim (one batch of rows shares it): issued twice for one row is a row that
            // shows the same token in two calls
            Map<List<Long>, Integer> byRowAndClaimToken = new HashMap<>();
            for (Call c : calls) {
                byRow.computeIfAbsent(c.row(), k -> new ArrayList<>()).add(c);
                byRowAndClaimToken.merge(List.of(c.row(), c.claimToken()), 1, Integer::sum);
            }
            int doubles = 0;
            int doublesFenced = 0;
            int notAbove = 0;
            for (List<Call> list : byRow.values()) {
                // the held rows' lost calls ("held": a process that died with the old primary) are counted apart
                if (list.stream().filter(c -> !c.process().equals("held")).count() > 1) {
                    doubles++;
                    System.out.println("DOUBLE SEND row " + list.get(0).row() + " calls " + list);
                }
                doublesFenced += list.stream().filter(Call::fenced).count() > 1 ? 1 : 0;
                long high = 0;
                for (Call c : list) {
                    notAbove += c.sendToken() <= high ? 1 : 0;
                    high = Math.max(high, c.sendToken());
                }
            }
            int tokensTwice = (int)
                    byRowAndClaimToken.values().stream().filter(n -> n > 1).count();
            int stale = 0;
            int reconciled = 0;
            for (Map.Entry<Long, String> e : guids.entrySet()) {
                String guid = e.getValue();
                if ("reconciled".equals(guid)) {
                    reconciled++;
                    continue;
                }
                List<Call> list = byRow.get(e.getKey());
                long token = Long.parseLong(guid.substring(guid.indexOf(':') + 1));
                if (list == null || list.get(list.size() - 1).claimToken() != token) {
                    stale++;
                    System.out.println("STALE COMPLETION row " + e.getKey() + " guid " + guid + " calls " + list);
                }
            }
            int heldRefused = 0;
            int heldSendTokenRepeated = 0;
            for (ClaimedRow<Sync> row : held) {
                for (Call c : byRow.getOrDefault(row.longId(), List.of())) {
                    if (c.process().equals("held")) {
                        continue;
                    }
                    // the lost claim's token is never issued again for its row
                    assertNotEquals(row.token(), c.claimToken(), "row " + row.longId());
                    if (c.sendToken() == row.sendToken()) {
                        heldSendTokenRepeated++; // the row's attempts went back with the lost claim
                        heldRefused += c.fenced() ? 0 : 1;
                    }
                }
            }
            Set<Long> paid = paid(db, callbacks.name());
            Set<Long> lostAcknowledged = new HashSet<>(acknowledged);
            lostAcknowledged.removeAll(paid);
            Set<Long> lostInTarget = new HashSet<>(answeredInTarget);
            lostInTarget.removeAll(paid);
            long reportedLost = 0;
            int audited = 0;
            Set<Long> reported = new HashSet<>();
            for (TransitionsInDoubt r : audits) {
                if (r.table().equals(callbacks.name())) {
                    System.out.println("FAILOVER AUDIT REPORT " + r.table() + " " + r.from() + " -> " + r.to()
                            + " recorded " + r.recorded() + " lost " + r.lost() + " untracked " + r.untracked());
                    reportedLost += r.lost();
                    audited += r.recorded();
                    r.lostIds().forEach(id -> reported.add(((Number) id).longValue()));
                }
            }
            // every lost acknowledged callback reported; every reported one lost (still PENDING, or applied again by
            // its second delivery on the new primary after the audit's look-up)
            Set<Long> lostNotReported = new HashSet<>(lostAcknowledged);
            lostNotReported.removeAll(reported);
            Set<Long> reportedNotLost = new HashSet<>(reported);
            reportedNotLost.removeAll(lostAcknowledged);
            reportedNotLost.removeAll(appliedTwice);
            reportedNotLost.removeAll(appliedAfterDoubt);
            Set<Long> reapplied = new HashSet<>(appliedTwice);
            reapplied.addAll(appliedAfterDoubt);
            Set<Long> reportedReapplied = new HashSet<>(reported);
            reportedReapplied.retainAll(reapplied);
            // reported lost, and answered in doubt, never acknowledged: the report the caller was told to expect
            Set<Long> reportedInDoubt = new HashSet<>(reportedNotLost);
            reportedInDoubt.retainAll(inDoubt);
            reportedInDoubt.removeAll(answeredInTarget);
            reportedNotLost.removeAll(reportedInDoubt);

            int changes = 0;
            int notKnownDurable = 0;
            long lostMarks = 0;
            long firstClaim = Long.MAX_VALUE;
            for (JvmProcess w : workers) {
                boolean changed = false;
                for (String line : w.outputLines()) {
                    String[] p = line.split(" ");
                    if (p[0].equals("EPOCH") && p.length == 5) {
                        changed = true; // printed before the first claim on the new primary
                        changes++;
                        notKnownDurable += Integer.parseInt(p[3]);
                        lostMarks += Long.parseLong(p[4]);
                        System.out.println("FAILOVER PROCESS REPORT " + w + ": " + line);
                    } else if (p[0].equals("CLAIM") && p.length == 3) {
                        if (changed) {
                            firstClaim = Math.min(firstClaim, Long.parseLong(p[1]));
                        }
                    }
                }
            }
            Figures f = new Figures(
                    (lossy ? "KILL_LOSSY " : "KILL ") + topology.replication() + " sendDurability " + durability
                            + " commitDurability " + callbackDurability,
                    byRow.size(),
                    calls.size(),
                    doubles,
                    doublesFenced,
                    notAbove,
                    tokensTwice,
                    stale,
                    reconciled,
                    changes,
                    notKnownDurable,
                    lostMarks,
                    heldSendTokenRepeated,
                    heldRefused,
                    acknowledged.size(),
                    appliedTwice.size(),
                    failed.get(),
                    inDoubt.size(),
                    lostAcknowledged.size(),
                    lostInTarget.size(),
                    audited,
                    reportedLost,
                    reported.size(),
                    lostNotReported.size(),
                    reportedNotLost.size(),
                    reportedReapplied.size(),
                    reportedInDoubt.size(),
                    seconds(promoted - kill),
                    firstClaim == Long.MAX_VALUE ? -1 : (firstClaim - killWall) / 1000.0,
                    sendsPerSecond,
                    epochBefore,
                    epochAfter);
            System.out.println("FAILOVER PROCESS FIGURES " + f);
            return f;
        } finally {
            stop.set(true);
            for (Thread caller : callers) {
                caller.join(30_000);
            }
            workers.forEach(JvmProcess::close);
            sink.drop();
        }
    }

    private static void pause() {
        try {
            Thread.sleep(2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Completed rows, or -1 while the topology's URL finds no server that answers (mid-failover). */
    private static int completed(JobsTable jobs) {
        try {
            return jobs.countBySync().getOrDefault(Sync.COMPLETED, 0);
        } catch (AssertionError | RuntimeException e) {
            return -1;
        }
    }

    /** The completed rows' {@code third_party_guid}: {@code <process>:<claim token>}, or {@code reconciled}. */
    private static Map<Long, String> guids(TestDatabase db, String table) throws SQLException {
        Map<Long, String> out = new HashMap<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, third_party_guid FROM " + table + " WHERE sync_status = "
                        + Sync.COMPLETED.code())) {
            while (rs.next()) {
                out.put(rs.getLong(1), rs.getString(2));
            }
        }
        return out;
    }

    private static Set<Long> paid(TestDatabase db, String table) throws SQLException {
        Set<Long> out = new HashSet<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT id FROM " + table + " WHERE payment_status = " + Payment.PAID.code())) {
            while (rs.next()) {
                out.add(rs.getLong(1));
            }
        }
        return out;
    }

    private static String tail(JvmProcess p) {
        List<String> lines = p.outputLines();
        return p + "\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    }
}
