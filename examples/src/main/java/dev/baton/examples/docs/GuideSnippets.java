package dev.baton.examples.docs;

import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.DeadLetters;
import dev.baton.DeadMessage;
import dev.baton.DeadRow;
import dev.baton.Decision;
import dev.baton.LeaseResult;
import dev.baton.Message;
import dev.baton.Outbox;
import dev.baton.Outcome;
import dev.baton.QueueHealth;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import dev.baton.Worker;
import dev.baton.examples.payment.PaymentStatus;
import dev.baton.examples.payment.SyncStatus;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Snippets of the user guide that are not part of an example program: compiled here so that they cannot rot. Each
 * region between {@code tag::} and {@code end::} appears in a page under {@code docs/src} (see {@link DocsGenerator}).
 */
final class GuideSnippets {
    private static final Logger log = LoggerFactory.getLogger(GuideSnippets.class);

    private GuideSnippets() {}

    /**
     * A third party that can fence: it keeps a token per order (the highest a call carried or a reconciler raised it
     * to) and refuses a call whose token is not above it, atomically with creating the record.
     */
    interface FencingThirdParty {
        /** Creates the order's record unless {@code token} is not above the order's fence; empty when refused. */
        Optional<String> create(long orderId, long amountCents, long token, Duration timeout) throws IOException;

        /** Raises the order's fence to {@code token}, then returns the record it has for the order, if any. */
        Optional<String> fenceAndFind(long orderId, long token) throws IOException;
    }

    // tag::fenced-send[]
    static Outcome<SyncStatus> send(FencingThirdParty thirdParty, ClaimedRow<SyncStatus> row) throws IOException {
        row.checkLease(); // the lease is lost or the claim's local deadline passed: nothing is sent
        Optional<String> guid = thirdParty.create(
                row.longId(),
                row.get("amount_cents", Long.class),
                row.sendToken(), // ordered: a later claim of the order carries a higher one
                row.sendTimeLeft()); // the whole call (connect, write, read) must end within it
        return guid.isPresent()
                ? Outcome.<SyncStatus>complete(SyncStatus.COMPLETED).set("third_party_guid", guid.get())
                : Outcome.unknown("refused token " + row.sendToken() + ": a later claim of the order was sent");
    }
    // end::fenced-send[]

    // tag::fenced-reconcile[]
    static Outcome<SyncStatus> reconcile(FencingThirdParty thirdParty, DataSource dataSource, long orderId)
            throws IOException, SQLException {
        long attempts; // while the order is unknown, no send of it can carry a higher token than its attempts
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT attempts FROM orders WHERE id = ?")) {
            ps.setLong(1, orderId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                attempts = rs.getLong(1);
            }
        }
        return thirdParty
                .fenceAndFind(orderId, attempts) // from now on a late call of an earlier claim is refused
                .map(guid -> Outcome.<SyncStatus>complete(SyncStatus.COMPLETED).set("third_party_guid", guid))
                .orElseGet(Outcome::release); // not there, and it can no longer arrive: send it again
    }
    // end::fenced-reconcile[]

    static TransitionResult<PaymentStatus> jdbc(DataSource dataSource, StateTable<PaymentStatus> orders, long orderId)
            throws SQLException {
        // tag::jdbc-transaction[]
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                TransitionResult<PaymentStatus> r = orders.transition(
                                orderId, PaymentStatus.PENDING, PaymentStatus.PAID)
                        .setNow("paid_at")
                        .apply(c); // runs on c, inside its transaction
                if (r.applied()) {
                    try (PreparedStatement ledger =
                            c.prepareStatement("INSERT INTO payment_ledger (order_id, entry_type, amount_cents)"
                                    + " SELECT id, 'PAYMENT', amount_cents FROM orders WHERE id = ?")) {
                        ledger.setLong(1, orderId);
                        ledger.executeUpdate();
                    }
                }
                c.commit(); // both, or (after a rollback) neither
                return r;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
        // end::jdbc-transaction[]
    }

    static void manualClaims(ClaimQueue<SyncStatus> queue) {
        // tag::manual-claim[]
        List<ClaimedRow<SyncStatus>> rows = queue.claim(50); // up to 50 rows, each now PROCESSING under a lease
        List<Decision<SyncStatus>> decisions = new ArrayList<>();
        for (ClaimedRow<SyncStatus> row : rows) {
            Outcome<SyncStatus> outcome = row.attempt() < 3
                    ? Outcome.<SyncStatus>complete(SyncStatus.COMPLETED).set("third_party_guid", "guid-" + row.id())
                    : Outcome.deadLetter("gave up after " + row.attempt() + " attempts");
            decisions.add(new Decision<>(row, outcome));
        }
        List<LeaseResult<SyncStatus>> results = queue.applyAll(decisions); // one commit, each row fenced by its token
        for (LeaseResult<SyncStatus> r : results) {
            if (r instanceof LeaseResult.LeaseLost<SyncStatus> lost) {
                log.warn("row {} was claimed again by another worker; this write changed nothing", lost.id());
            }
        }
        // end::manual-claim[]
    }

    // tag::metrics-listener[]
    /** Counts what Baton did, for a metrics registry; called after each commit, on the thread that did the work. */
    static final class Metrics implements BatonListener {
        final LongAdder claimed = new LongAdder();
        final LongAdder completed = new LongAdder();
        final LongAdder retried = new LongAdder();
        final LongAdder deadLettered = new LongAdder();
        final LongAdder leasesLost = new LongAdder();
        final LongAdder unknownSends = new LongAdder();
        private final Map<String, Enum<?>> deadStates = new ConcurrentHashMap<>();

        /** Registers a queue's dead state: a retry after the last attempt arrives as RETRY, landing in it. */
        void watch(ClaimQueue<?> queue) {
            deadStates.put(queue.name(), queue.deadState());
        }

        @Override
        public void onClaim(String queue, int count) {
            claimed.add(count);
        }

        @Override
        public void onOutcome(String queue, Object id, Outcome.Kind kind, Enum<?> state, int attempt) {
            if (state == deadStates.get(queue)) {
                deadLettered.increment(); // Outcome.deadLetter, or a retry with no attempt left
            } else if (kind == Outcome.Kind.RETRY) {
                retried.increment(); // back to the claimable state, due after the backoff
            } else if (kind == Outcome.Kind.COMPLETE) {
                completed.increment();
            }
        }

        @Override
        public void onLeaseLost(String queue, Object id) {
            leasesLost.increment(); // a worker stalled past its lease: look for GC pauses or slow handlers
        }

        @Override
        public void onUnknownSends(String queue, long rows) {
            unknownSends.add(rows); // sends whose outcome is unknown: the reconcile hook must resolve them
        }

        @Override
        public void onWorkerError(String queue, Throwable error) {
            log.warn("worker of {} failed and carries on", queue, error);
        }
    }

    static Baton withMetrics(DataSource dataSource, Metrics metrics) {
        return Baton.builder(dataSource).listener(metrics).build(); // then metrics.watch(queue) for each queue
    }
    // end::metrics-listener[]

    static void health(ClaimQueue<SyncStatus> queue) {
        // tag::queue-health[]
        QueueHealth h = queue.health(); // one query, measured by the database clock
        if (h.expiredLeases() > 0) {
            log.warn("{} rows held by workers that died or stalled; the next sweep returns them", h.expiredLeases());
        }
        if (h.dead() > 0 || h.unknown() > 0) {
            log.error("{} dead letters and {} unknown sends need a person", h.dead(), h.unknown());
        }
        if (h.oldestEligibleAge() != null && h.oldestEligibleAge().compareTo(Duration.ofMinutes(5)) > 0) {
            log.warn(
                    "the backlog is {} old with {} rows eligible: too few workers?",
                    h.oldestEligibleAge(),
                    h.eligible());
        }
        // end::queue-health[]
    }

    /** The runbook's dead letters: read why each row gave up, requeue those whose cause is fixed. */
    static int requeueFixed(ClaimQueue<SyncStatus> queue, Outbox outbox, Set<Long> fixedOrders) {
        int requeued = 0;
        // tag::dead-letters[]
        DeadLetters<SyncStatus> deadLetters = queue.deadLetters().as("alice"); // who acts, for the listeners' audit
        for (DeadRow dead : deadLetters.list(100)) { // lowest id first; listAfter(lastId, 100) for the next page
            log.warn("order {} gave up after {} attempts: {}", dead.longId(), dead.attempts(), dead.lastError());
            if (fixedOrders.contains(dead.longId())
                    && deadLetters.requeue(dead.id()).applied()) {
                requeued++; // PENDING again, due now, attempts = 0; last_error kept until the next attempt
            }
        }
        for (DeadMessage dead : outbox.deadMessages(100)) {
            log.warn(
                    "message {} on {} gave up: {}",
                    dead.message().id(),
                    dead.message().topic(),
                    dead.lastError());
        }
        // end::dead-letters[]
        return requeued;
    }

    static void outbox(Baton baton, StateTable<PaymentStatus> orders, long orderId, String txId) throws Exception {
        // tag::outbox[]
        baton.ownTables().createOutboxTable(Outbox.DEFAULT_TABLE); // or ship the dialect's DDL with your migrations
        Outbox outbox = baton.outbox(Outbox.DEFAULT_TABLE);

        // the callback: the transition and its announcement commit together; a duplicate callback enqueues nothing
        TransitionResult<PaymentStatus> r = outbox.transitionAndEnqueue(
                orders.transition(orderId, PaymentStatus.PENDING, PaymentStatus.PAID)
                        .set("payment_transaction_id", txId),
                Message.of("order.paid", "{\"order\":" + orderId + "}").key("order-" + orderId));

        // the dispatcher, on every host: at least once, one message of a key at a time, in order
        Worker dispatcher = outbox.dispatcher(message -> publish(message.topic(), message.payload()))
                .batchSize(100)
                .start();
        // end::outbox[]
        log.info("{} {}", r, dispatcher);
        dispatcher.close();
    }

    private static void publish(String topic, byte[] payload) {
        log.info("publish {} bytes to {}", payload.length, topic);
    }
}
