package dev.baton.internal.queue;

import dev.baton.ClaimedRow;
import dev.baton.ConfigurationException;
import dev.baton.DataAccessException;
import dev.baton.DeadRow;
import dev.baton.Decision;
import dev.baton.LeaseResult;
import dev.baton.Outcome;
import dev.baton.OutcomeInDoubtException;
import dev.baton.SendDurability;
import dev.baton.SendNotDurableException;
import dev.baton.internal.SchemaCheck;
import dev.baton.internal.UndefinedColumn;
import dev.baton.internal.tx.Drain;
import dev.baton.internal.tx.SqlWork;
import dev.baton.internal.values.Assignments;
import dev.baton.spi.Rows;
import dev.baton.spi.SqlFragment;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writes under a claim, each fenced by the claim's token and the held states ({@code WHERE id = ? AND token = ?
 * AND state IN (held)}): outcomes, heartbeats, the mark before a non-idempotent send, and the resolution of an
 * unknown send. SQL is rendered once per shape and cached; many writes run as JDBC batches in one transaction, and a
 * batch's usual end (one claim's rows completed into one terminal state) as one statement. Thread-safe.
 *
 * @param <S> the enum of states
 */
public final class FencedWrites<S extends Enum<S>> {
    private static final Logger log = LoggerFactory.getLogger(FencedWrites.class);

    /** The largest error text stored with a retry or dead letter; longer texts are cut. */
    public static final int MAX_ERROR_LENGTH = 1000;

    /** The most binds one grouped completion carries (SQL Server takes at most 2,100 parameters a statement). */
    private static final int MAX_BINDS = 2000;

    /** One fenced write ready to bind. */
    private record Prepared<S extends Enum<S>>(
            String sql, List<Object> binds, Object id, long token, S resultState, Check check) {
        Prepared(String sql, List<Object> binds, Object id, long token, S resultState) {
            this(sql, binds, id, token, resultState, Check.WROTE_STATE);
        }
    }

    /**
     * How a write whose count the driver did not report is recognised as ours when read back: never by the state
     * alone, always by the token too (a sweep, a release and a resolution of an unknown send clear it).
     */
    private enum Check {
        /** Our token and the state this write sets. */
        WROTE_STATE,
        /** Our token and any held state (a heartbeat changes neither). */
        STILL_HELD,
        /** Our token spent by this release ({@code -token}) and the claimable state. */
        RELEASED
    }

    private final QueueShape<S> shape;
    private final Function<Outcome<S>, Assignments> assignments;
    private final Predicate<ClaimedRow<S>> firstLoss;
    private final Set<String> managed;
    private final ConcurrentMap<String, String> sql = new ConcurrentHashMap<>();

    /**
     * Fenced writes for the queue of {@code shape}; {@code assignments} reads the columns a completion sets besides
     * the state; {@code firstLoss} marks a claimed row's lease lost and says whether it was the first time (a loss is
     * told to the listeners once per claim, however many writes meet it).
     */
    public FencedWrites(
            QueueShape<S> shape, Function<Outcome<S>, Assignments> assignments, Predicate<ClaimedRow<S>> firstLoss) {
        this.shape = shape;
        this.assignments = assignments;
        this.firstLoss = firstLoss;
        QueueDefinition<S> def = shape.def;
        this.managed = Set.of(
                Assignments.lower(def.columns().id()),
                Assignments.lower(def.columns().state()),
                Assignments.lower(def.columns().lease()),
                Assignments.lower(def.columns().token()));
    }

    /**
     * Applies outcomes: one statement for one claim's rows completed into one terminal state with nothing else set,
     * else one autocommit statement for one decision or one transaction for many. Fires listeners after.
     */
    public List<LeaseResult<S>> applyAll(List<Decision<S>> decisions) {
        if (decisions.isEmpty()) {
            return List.of();
        }
        long sent = System.nanoTime();
        List<LeaseResult<S>> results;
        List<List<Integer>> together = decisions.size() > 1 ? completionGroups(decisions) : List.of();
        if (together.isEmpty()) {
            results = applyEach(decisions);
        } else {
            List<LeaseResult<S>> out = new ArrayList<>(Collections.nCopies(decisions.size(), null));
            completeGroups(decisions, together, out);
            List<Integer> rest = new ArrayList<>();
            for (int i = 0; i < out.size(); i++) {
                if (out.get(i) == null) {
                    rest.add(i);
                }
            }
            if (!rest.isEmpty()) {
                List<Decision<S>> others = new ArrayList<>(rest.size());
                for (int i : rest) {
                    others.add(decisions.get(i));
                }
                List<LeaseResult<S>> written = applyEach(others);
                for (int k = 0; k < rest.size(); k++) {
                    out.set(rest.get(k), written.get(k));
                }
            }
            results = out;
        }
        for (int i = 0; i < results.size(); i++) {
            LeaseResult<S> r = results.get(i);
            Decision<S> d = decisions.get(i);
            if (r instanceof LeaseResult.Done<S> done && done.state() == shape.claimable) {
                shape.epochs.putBack(r.id(), sent); // a retry or release: a SENDING mark before it is not in doubt
            }
            if (r instanceof LeaseResult.LeaseLost<S>) {
                // once per claim: a heartbeat may have found the loss already and told the listeners
                if (firstLoss.test(d.row())) {
                    log.warn(
                            "queue '{}': lease lost on row {} (attempt {}): the outcome {} was not written; another"
                                    + " claim may hold the row",
                            shape.name,
                            r.id(),
                            d.row().attempt(),
                            d.outcome().kind());
                    shape.engine.events().fire(l -> l.onLeaseLost(shape.name, r.id()));
                }
            } else if (shape.engine.events().hasListeners()) {
                shape.engine.events().fire(l -> {
                    if (r instanceof LeaseResult.Done<S> done) {
                        l.onOutcome(
                                shape.name,
                                r.id(),
                                d.outcome().kind(),
                                done.state(),
                                d.row().attempt());
                    }
                });
            }
        }
        return results;
    }

    /** One autocommit statement for one decision, else one transaction of fenced writes. */
    private List<LeaseResult<S>> applyEach(List<Decision<S>> decisions) {
        List<Prepared<S>> prepared = new ArrayList<>(decisions.size());
        for (Decision<S> d : decisions) {
            prepared.add(prepare(d.row(), d.outcome()));
        }
        if (decisions.size() == 1) {
            return isolated(decisions.get(0), prepared.get(0));
        }
        String operation = "apply " + decisions.size() + " outcome(s) in queue '" + shape.name + "'";
        try {
            return shape.engine
                    .tx()
                    .transaction(
                            operation, reported(c -> run(c, prepared)), reported(c -> runAfterLostReply(c, prepared)));
        } catch (DataAccessException e) {
            if (!refusedByDatabase(e) || shape.engine.tx().inHostTransaction()) {
                throw e; // in the caller's transaction the refusal is the caller's to handle
            }
            // One outcome the database refuses must not roll back the others forever: write each alone
            // (only after a failure, so the common path keeps its single transaction).
            List<LeaseResult<S>> results = new ArrayList<>(decisions.size());
            for (int i = 0; i < decisions.size(); i++) {
                results.add(isolated(decisions.get(i), prepared.get(i)).get(0));
            }
            return results;
        }
    }

    /**
     * Writes one outcome in autocommit mode. When the database refuses its values (a constraint, a value out of
     * range, a text the column cannot hold), the row is dead-lettered with the database's error instead, so that a
     * poison outcome is neither lost silently nor handled again forever; any other failure is thrown as before.
     */
    private List<LeaseResult<S>> isolated(Decision<S> d, Prepared<S> p) {
        String operation = "apply 1 outcome(s) in queue '" + shape.name + "'";
        // a column the table lacks is a deployment error, not this row's: it stays a SchemaMismatchException
        try {
            return shape.engine
                    .tx()
                    .autocommit(
                            operation,
                            reported(c -> run(c, List.of(p))),
                            reported(c -> runAfterLostReply(c, List.of(p))));
        } catch (DataAccessException e) {
            if (!refusedByDatabase(e) || shape.engine.tx().inHostTransaction()) {
                throw e; // in the caller's transaction the refusal is the caller's to handle
            }
            // on a non-idempotent sink the handler's send may have happened: a requeue must not send it blindly
            String prefix = shape.send.isPresent() ? DeadRow.MAY_HAVE_BEEN_SENT : "";
            Prepared<S> dead = deadLetter(
                    d.row(),
                    prefix + "the database refused the outcome " + d.outcome() + ": " + e.getMessage(),
                    shape.epochs.newestWriter());
            return shape.engine
                    .tx()
                    .autocommit(
                            "dead-letter a refused outcome in queue '" + shape.name + "'", c -> run(c, List.of(dead)));
        }
    }

    /**
     * True when the database refused the statement's own values (a data exception, an integrity or unique
     * constraint): the row's fault, the same outcome would be refused again. A timeout, a cancel, a lost connection,
     * a missing column, a permission or any error the dialect does not know is not: it is thrown, and the row is left
     * to its lease (a statement timeout while a completion waited on a row lock must never dead-letter work that was
     * done, which a requeue would then do again).
     */
    private boolean refusedByDatabase(DataAccessException e) {
        return e.getCause() instanceof SQLException sql
                && shape.dialect.diagnostics().classify(sql).refusesValues();
    }

    /** Extends the leases of {@code rows} in one transaction. */
    public List<LeaseResult<S>> heartbeatAll(List<ClaimedRow<S>> rows) {
        if (rows.isEmpty()) {
            return List.of();
        }
        Optional<SqlFragment> newest = shape.epochs.newestWriter();
        String update = sql.computeIfAbsent(
                variant("heartbeat", newest),
                k -> "UPDATE " + shape.qTable + " SET " + shape.qLease + " = " + shape.nowPlus(shape.timing.lease())
                        + fence(newest));
        List<Prepared<S>> prepared = new ArrayList<>(rows.size());
        for (ClaimedRow<S> r : rows) {
            prepared.add(new Prepared<>(
                    update,
                    fenced(r, new ArrayList<>(), newest),
                    r.id(),
                    r.token(),
                    shape.processing,
                    Check.STILL_HELD));
        }
        return shape.engine.tx().transaction("heartbeat in queue '" + shape.name + "'", c -> run(c, prepared));
    }

    /**
     * Processing → sending, fenced by the token and the processing state only, and committed; a durability wait ends
     * by {@code waitUntilNanos} ({@link System#nanoTime()}) at the latest, so that the send keeps its time.
     */
    public LeaseResult<S> markSending(ClaimedRow<S> row, long waitUntilNanos) {
        SendProtocol<S> send = shape.send.orElseThrow();
        // once this process has seen a newer writer, the mark cannot land on an old primary that still takes writes
        Optional<SqlFragment> newest = shape.epochs.newestWriter();
        String update = sql.computeIfAbsent(
                variant("send", newest),
                k -> "UPDATE " + shape.qTable + " SET " + shape.qState + " = ?, " + shape.qLease + " = "
                        + shape.nowPlus(shape.timing.lease()) + " WHERE " + shape.qId + " = ? AND " + shape.qToken
                        + " = ? AND "
                        + shape.in(List.of(shape.processing)).sql()
                        + newest.map(w -> " AND " + w.sql()).orElse(""));
        List<Object> binds = new ArrayList<>();
        binds.add(shape.machine.code(send.sending()));
        binds.add(row.id());
        binds.add(row.token());
        binds.addAll(shape.in(List.of(shape.processing)).binds());
        newest.ifPresent(w -> binds.addAll(w.binds()));
        Prepared<S> p = new Prepared<>(update, binds, row.id(), row.token(), send.sending());
        SendDurability policy = send.durability();
        if (policy == SendDurability.OFF) {
            long sent = System.nanoTime(); // before the first attempt: a retry's commit starts later still
            LeaseResult<S> result = shape.engine
                    .tx()
                    .autocommit(
                            "mark sending in queue '" + shape.name + "'",
                            c -> run(c, List.of(p)),
                            c -> runAfterLostReply(c, List.of(p)))
                    .get(0);
            if (result.done()) {
                shape.epochs.marked(row.id(), sent);
            }
            return result;
        }
        // the standbys are asked on the connection that wrote (or, after a lost reply, found) the mark: another
        // pooled connection may already reach another server
        Marked<S> marked = shape.engine
                .tx()
                .autocommit(
                        "mark sending in queue '" + shape.name + "'",
                        c -> durable(c, run(c, List.of(p)).get(0), waitUntilNanos),
                        c -> durable(c, runAfterLostReply(c, List.of(p)).get(0), waitUntilNanos));
        if (marked.notDurable().isPresent()) {
            String reason = marked.notDurable().get();
            shape.engine.events().fire(l -> l.onSendNotDurable(shape.name, row.id(), policy));
            if (policy == SendDurability.REQUIRE) {
                throw new SendNotDurableException(shape.name, row.id(), reason);
            }
            if (marked.result().done()) {
                shape.epochs.notKnownDurable(row.id());
            }
            log.warn(
                    "queue '{}': the SENDING mark of row {} is not known durable on a standby ({}); sending anyway"
                            + " (sendDurability WARN)",
                    shape.name,
                    row.id(),
                    reason);
        }
        return marked.result();
    }

    /** A mark's result, and why it is not known durable on a standby (empty when it is, or was not written). */
    private record Marked<S extends Enum<S>>(LeaseResult<S> result, Optional<String> notDurable) {}

    private Marked<S> durable(Connection c, LeaseResult<S> result, long waitUntilNanos) throws SQLException {
        if (!result.done()) {
            return new Marked<>(result, Optional.empty());
        }
        Duration configured = shape.send.orElseThrow().durabilityWait();
        Duration left = Duration.ofNanos(Math.max(0, waitUntilNanos - System.nanoTime()));
        Duration wait = left.compareTo(configured) < 0 ? left : configured;
        return new Marked<>(result, MarkDurability.await(c, shape.dialect.diagnostics(), wait));
    }

    /**
     * Moves a row in the unknown state to {@code target}, with the completion's columns when {@code completion} is
     * given; guarded by the unknown state.
     */
    public LeaseResult<S> resolveUnknown(Object id, S target, Outcome<S> completion) {
        Assignments extra = completion == null ? Assignments.NONE : assignments.apply(completion);
        SqlFragment unknown = shape.unknownIn();
        // the token is cleared: a stale worker still holding it must not read this row as one it wrote
        String update = setSql("resolve", extra, " WHERE " + shape.qId + " = ? AND " + unknown.sql(), true);
        List<Object> binds = new ArrayList<>();
        binds.add(shape.machine.code(target));
        extra.addValues(binds);
        binds.add(id);
        binds.addAll(unknown.binds());
        String operation = "resolve unknown send in queue '" + shape.name + "'";
        long sent = System.nanoTime();
        LeaseResult<S> result = shape.engine
                .tx()
                .autocommit(
                        operation,
                        reported(c -> Drain.update(c, update, binds) == 1
                                ? new LeaseResult.Done<>(id, target)
                                : new LeaseResult.LeaseLost<>(id)),
                        reported(c -> {
                            if (Drain.update(c, update, binds) == 1) {
                                return new LeaseResult.Done<>(id, target);
                            }
                            // the lost attempt may have resolved the row; nothing written identifies this call's write
                            throw new OutcomeInDoubtException(
                                    operation + " id " + id + ": the connection was lost after the"
                                            + " update was sent, and the row is no longer unknown: this call or another resolved it");
                        }));
        if (completion == null && target == shape.claimable && result instanceof LeaseResult.Done<S>) {
            shape.epochs.putBack(id, sent); // the reconciler's "not sent": the mark before it is not in doubt
        }
        return result;
    }

    /** {@code work}, reporting a column of the table an outcome sets that does not exist as a schema mismatch. */
    private <T> SqlWork<T> reported(SqlWork<T> work) {
        return UndefinedColumn.reported(shape.dialect, shape.table, work);
    }

    /** Moves a row in the unknown state to the dead state with {@code error}; guarded by the unknown state. */
    public LeaseResult<S> resolveUnknownDead(Object id, String error) {
        SqlFragment unknown = shape.unknownIn();
        String update = sql.computeIfAbsent(
                "resolve-dead",
                k -> "UPDATE " + shape.qTable + " SET " + shape.qState + " = ?, " + shape.qLease + " = NULL, "
                        + shape.qToken + " = NULL, " + shape.qError + " = ? WHERE " + shape.qId + " = ? AND "
                        + unknown.sql());
        List<Object> binds = new ArrayList<>();
        binds.add(shape.machine.code(shape.dead));
        // the reconciler could not tell: maybe sent
        binds.add(truncate(DeadRow.MAY_HAVE_BEEN_SENT + (error == null ? "given up, no reason given" : error)));
        binds.add(id);
        binds.addAll(unknown.binds());
        String operation = "dead-letter an unknown send in queue '" + shape.name + "'";
        return shape.engine
                .tx()
                .autocommit(
                        operation,
                        c -> Drain.update(c, update, binds) == 1
                                ? new LeaseResult.Done<>(id, shape.dead)
                                : new LeaseResult.LeaseLost<>(id),
                        c -> {
                            if (Drain.update(c, update, binds) == 1) {
                                return new LeaseResult.Done<>(id, shape.dead);
                            }
                            throw new OutcomeInDoubtException(
                                    operation + " id " + id + ": the connection was lost after the"
                                            + " update was sent, and the row is no longer unknown: this call or another resolved it");
                        });
    }

    /**
     * {@link #run} for a retry after a lost connection: the lost attempt may have committed, so a write that now
     * matches no row is settled by reading the row back. It is this call's write if the row carries this call's token
     * in the state written; a terminal state without it was written by nobody holding this token (a terminal row never
     * moves again), so the lease is lost for certain; anything else is in doubt.
     */
    private List<LeaseResult<S>> runAfterLostReply(Connection c, List<Prepared<S>> prepared) throws SQLException {
        List<LeaseResult<S>> results = run(c, prepared); // a terminal write that matched no row is read back already
        for (int i = 0; i < results.size(); i++) {
            Prepared<S> p = prepared.get(i);
            if (results.get(i) instanceof LeaseResult.LeaseLost<S> && !shape.machine.isTerminal(p.resultState())) {
                LeaseResult<S> read = readBack(c, p);
                if (read instanceof LeaseResult.LeaseLost<S>) {
                    throw new OutcomeInDoubtException("fenced write to row " + p.id() + " of queue '" + shape.name
                            + "': the connection was lost after the write was sent, and the row does not show it;"
                            + " it may have been written and moved on since, or never written");
                }
                results.set(i, read);
            }
        }
        return results;
    }

    private Prepared<S> prepare(ClaimedRow<S> row, Outcome<S> outcome) {
        Optional<SqlFragment> newest = shape.epochs.newestWriter();
        switch (outcome.kind()) {
            case COMPLETE -> {
                S target = outcome.target();
                for (S held : shape.held) {
                    shape.machine.checkTransition(held, target);
                }
                Assignments extra = assignments.apply(outcome);
                String update = setSql("complete", extra, fence(newest));
                List<Object> binds = new ArrayList<>();
                binds.add(shape.machine.code(target));
                extra.addValues(binds);
                return new Prepared<>(update, fenced(row, binds, newest), row.id(), row.token(), target);
            }
            case RETRY -> {
                if (row.attempt() >= shape.retry.maxAttempts()) {
                    return deadLetter(row, outcome.error(), newest);
                }
                Duration delay = outcome.delay() != null
                        ? outcome.delay()
                        : shape.retry.delayBefore(
                                row.attempt(), ThreadLocalRandom.current().nextDouble());
                String update = sql.computeIfAbsent(
                        variant("retry", newest),
                        k -> "UPDATE " + shape.qTable + " SET " + shape.qState + " = ?, " + shape.qLease + " = NULL, "
                                + shape.qNext + " = "
                                + shape.dialect
                                        .sql()
                                        .plusMillisParam(shape.dialect.sql().currentTimestamp())
                                + ", " + shape.qError + " = ?" + fence(newest));
                List<Object> binds = new ArrayList<>();
                binds.add(shape.machine.code(shape.claimable));
                binds.add(delay.toMillis());
                binds.add(truncate(outcome.error()));
                return new Prepared<>(update, fenced(row, binds, newest), row.id(), row.token(), shape.claimable);
            }
            case DEAD_LETTER -> {
                return deadLetter(row, outcome.error(), newest);
            }
            case UNKNOWN -> {
                S unknown = shape.send
                        .orElseThrow(() -> new ConfigurationException(
                                "queue '" + shape.name + "' has no unknown state (Builder.nonIdempotentSink)"))
                        .unknown();
                // the handler failed after the mark: what it started may still reach the sink within the send timeout,
                // so the row waits that long (and the margin) before a reconciler is asked (Sweeps.unknownRows)
                String update = sql.computeIfAbsent(
                        variant("unknown", newest),
                        k -> "UPDATE " + shape.qTable + " SET " + shape.qState + " = ?, " + shape.qLease + " = "
                                + shape.nowPlus(Sweeps.quarantine(shape)) + ", " + shape.qError + " = ?"
                                + fence(newest));
                List<Object> binds = new ArrayList<>();
                binds.add(shape.machine.code(unknown));
                binds.add(truncate(outcome.error()));
                return new Prepared<>(update, fenced(row, binds, newest), row.id(), row.token(), unknown);
            }
            case RELEASE -> {
                // Only a row still PROCESSING goes back: a SENDING row's irreversible call may be under way, so it
                // stays held until its lease ends and the expiry sweep moves it to the unknown state. The release
                // gives the claim's attempt back (the next claim reports the same attempt number) and spends the
                // token: -token can never fence a write (tokens are positive), yet tells this release's own
                // read-back that the row was released by us.
                List<S> processingOnly = List.of(shape.processing);
                String update = sql.computeIfAbsent(
                        variant("release", newest),
                        k -> "UPDATE " + shape.qTable + " SET " + shape.qState + " = ?, " + shape.qLease + " = NULL, "
                                + shape.qToken + " = ?, " + shape.qAttempts + " = " + shape.qAttempts + " - 1 WHERE "
                                + shape.qId + " = ? AND " + shape.qToken + " = ? AND "
                                + shape.in(processingOnly).sql()
                                + newest.map(w -> " AND " + w.sql()).orElse(""));
                List<Object> binds = new ArrayList<>();
                binds.add(shape.machine.code(shape.claimable));
                binds.add(-row.token());
                binds.add(row.id());
                binds.add(row.token());
                binds.addAll(shape.in(processingOnly).binds());
                newest.ifPresent(w -> binds.addAll(w.binds()));
                return new Prepared<>(update, binds, row.id(), row.token(), shape.claimable, Check.RELEASED);
            }
            default -> throw new IllegalStateException("unknown outcome " + outcome.kind());
        }
    }

    private Prepared<S> deadLetter(ClaimedRow<S> row, String error, Optional<SqlFragment> newest) {
        if (shape.send.isEmpty()) {
            return withError("dead", shape.dead, row, error, newest);
        }
        // A row that dies while sending (the handler's own dead letter, a completion the machine forbids, a retry
        // past its attempts) may have reached the sink, whatever the reason: it keeps the maybe-sent mark, so that a
        // requeue does not send it blindly. The error is assigned before the state, which MySQL and MariaDB assign
        // left to right: the CASE must see the held state.
        SqlFragment sending = shape.in(List.of(shape.send.get().sending()));
        String update = sql.computeIfAbsent(
                variant("dead-after-send", newest),
                k -> "UPDATE " + shape.qTable + " SET " + shape.qError + " = CASE WHEN " + sending.sql()
                        + " THEN ? ELSE ? END, " + shape.qState + " = ?, " + shape.qLease + " = NULL"
                        + fence(newest));
        String plain = error == null ? "" : error;
        String maybeSent = plain.startsWith(DeadRow.MAY_HAVE_BEEN_SENT) ? plain : DeadRow.MAY_HAVE_BEEN_SENT + plain;
        List<Object> binds = new ArrayList<>(sending.binds());
        binds.add(truncate(maybeSent));
        binds.add(truncate(error));
        binds.add(shape.machine.code(shape.dead));
        return new Prepared<>(update, fenced(row, binds, newest), row.id(), row.token(), shape.dead);
    }

    /** {@code state = ?, lease = NULL, error = ?}, fenced. */
    private Prepared<S> withError(String kind, S state, ClaimedRow<S> row, String error, Optional<SqlFragment> newest) {
        String update = sql.computeIfAbsent(
                variant(kind, newest),
                k -> "UPDATE " + shape.qTable + " SET " + shape.qState + " = ?, " + shape.qLease + " = NULL, "
                        + shape.qError + " = ?" + fence(newest));
        List<Object> binds = new ArrayList<>();
        binds.add(shape.machine.code(state));
        binds.add(truncate(error));
        return new Prepared<>(update, fenced(row, binds, newest), row.id(), row.token(), state);
    }

    /**
     * The fence's binds after {@code leading}: id, token, the held states' codes, and the newest writer's epoch when
     * {@code newest} is present.
     */
    private List<Object> fenced(ClaimedRow<S> row, List<Object> leading, Optional<SqlFragment> newest) {
        leading.add(row.id());
        leading.add(row.token());
        leading.addAll(shape.heldIn.binds());
        newest.ifPresent(w -> leading.addAll(w.binds()));
        return leading;
    }

    /**
     * {@link QueueShape#fence}, and with {@code newest} (a queue with a non-idempotent sink, once this process has seen
     * an ordered epoch) the condition that the server is no older writer: a write under a claim cannot land on an old
     * primary that still takes writes ({@link EpochWatch#newestWriter}). Taken once per statement, for its SQL and its
     * binds alike.
     */
    private String fence(Optional<SqlFragment> newest) {
        return newest.map(w -> shape.fence + " AND " + w.sql()).orElse(shape.fence);
    }

    /** The cache key of a statement's form with or without the newest writer's condition. */
    private static String variant(String kind, Optional<SqlFragment> newest) {
        return newest.isPresent() ? kind + "+newest-writer" : kind;
    }

    /**
     * {@code UPDATE t SET state = ?, lease = NULL, extra… <where>}, cached by kind, the extra columns and the where;
     * refuses extra assignments to the columns the queue manages.
     */
    private String setSql(String kind, Assignments extra, String where) {
        return setSql(kind, extra, where, false);
    }

    private String setSql(String kind, Assignments extra, String where, boolean clearToken) {
        String key = kind + extra.key() + where;
        String cached = sql.get(key);
        if (cached != null) {
            return cached;
        }
        extra.refuse(managed, "queue '" + shape.name + "'");
        return sql.computeIfAbsent(key, k -> extra.render(
                        shape.dialect, settleHead().append(clearToken ? ", " + shape.qToken + " = NULL" : ""))
                .append(where)
                .toString());
    }

    /** {@code UPDATE t SET state = ?, lease = NULL}: how every statement that settles a held row begins. */
    private StringBuilder settleHead() {
        return new StringBuilder("UPDATE ")
                .append(shape.qTable)
                .append(" SET ")
                .append(shape.qState)
                .append(" = ?, ")
                .append(shape.qLease)
                .append(" = NULL");
    }

    /**
     * The error text as the column can hold it: NUL (refused by PostgreSQL in text) and other control characters
     * but tab and line breaks replaced by {@code '?'}, then cut to the column's width (learned once from the
     * database's metadata, at most {@link #MAX_ERROR_LENGTH}) without splitting a surrogate pair.
     */
    private String truncate(String error) {
        if (error == null) {
            return null;
        }
        StringBuilder clean = new StringBuilder(Math.min(error.length(), MAX_ERROR_LENGTH + 1));
        int width = errorWidth();
        for (int i = 0; i < error.length() && clean.length() < width; i++) {
            char ch = error.charAt(i);
            if (Character.isISOControl(ch) && ch != '\t' && ch != '\n' && ch != '\r') {
                clean.append('?');
            } else if (Character.isHighSurrogate(ch) && clean.length() + 1 >= width) {
                break;
            } else {
                clean.append(ch);
            }
        }
        return clean.toString();
    }

    private volatile int errorWidth;

    /** The error column's width in characters, capped at {@link #MAX_ERROR_LENGTH}; read once per queue. */
    private int errorWidth() {
        int w = errorWidth;
        if (w > 0) {
            return w;
        }
        int read;
        try {
            read = shape.engine
                    .tx()
                    .autocommit("read the width of " + shape.def.columns().error() + " in " + shape.table, c -> {
                        SchemaCheck.ColumnInfo col = new SchemaCheck(c, shape.dialect, shape.table)
                                .column(shape.def.columns().error());
                        return col == null || col.size() <= 0
                                ? MAX_ERROR_LENGTH
                                : Math.min(col.size(), MAX_ERROR_LENGTH);
                    });
        } catch (DataAccessException e) {
            return MAX_ERROR_LENGTH; // not cached: read again at the next error text
        }
        errorWidth = read;
        return read;
    }

    /**
     * Runs fenced writes as JDBC batches grouped by statement, and maps each update count to a result. A count the
     * driver does not report ({@link Statement#SUCCESS_NO_INFO}) is settled by reading the row back in the same
     * transaction: it is ours if it carries our token and the state we wrote.
     */
    private List<LeaseResult<S>> run(Connection c, List<Prepared<S>> prepared) throws SQLException {
        List<LeaseResult<S>> results = new ArrayList<>(Collections.nCopies(prepared.size(), null));
        Map<String, List<Integer>> groups = new LinkedHashMap<>();
        for (int i = 0; i < prepared.size(); i++) {
            groups.computeIfAbsent(prepared.get(i).sql(), k -> new ArrayList<>())
                    .add(i);
        }
        for (Map.Entry<String, List<Integer>> g : groups.entrySet()) {
            List<Integer> idx = g.getValue();
            try (PreparedStatement ps = c.prepareStatement(g.getKey())) {
                if (idx.size() == 1) {
                    Prepared<S> p = prepared.get(idx.get(0));
                    Rows.bind(ps, 1, p.binds());
                    results.set(idx.get(0), settle(c, p, ps.executeUpdate()));
                    continue;
                }
                for (int i : idx) {
                    Rows.bind(ps, 1, prepared.get(i).binds());
                    ps.addBatch();
                }
                int[] counts = ps.executeBatch();
                for (int k = 0; k < idx.size(); k++) {
                    Prepared<S> p = prepared.get(idx.get(k));
                    int count = k < counts.length ? counts[k] : Statement.SUCCESS_NO_INFO;
                    results.set(idx.get(k), settle(c, p, count));
                }
            }
        }
        return results;
    }

    /**
     * The decisions that complete rows of one claim into one terminal state setting the same columns, as groups of
     * indexes (from two or more such decisions, of distinct ids when they set values; cut to the binds a statement may
     * carry): the usual end of a batch, each group one statement instead of a transaction of one update per row.
     * Decisions in no group are written one by one.
     */
    private List<List<Integer>> completionGroups(List<Decision<S>> decisions) {
        List<Integer> all = oneGroup(decisions);
        Collection<List<Integer>> candidates = all != null ? List.of(all) : groupsByKey(decisions);
        List<List<Integer>> out = new ArrayList<>(candidates.size());
        for (List<Integer> g : candidates) {
            int values = assignments.apply(decisions.get(g.get(0)).outcome()).valueCount();
            // a row given twice with values would meet two CASE branches, of which only the first counts; without
            // values the statement writes the same thing whatever the list holds (no id set for a plain batch)
            if (g.size() < 2 || values > 0 && !distinctIds(decisions, g)) {
                continue;
            }
            // within the binds one statement may carry: the id list, and an id and a value per row and column
            int perRow = 1 + 2 * values;
            int chunk = Math.max(
                    1, (MAX_BINDS - 2 - shape.heldIn.binds().size() - (shape.epochs.guardsWriter() ? 1 : 0)) / perRow);
            for (int from = 0; from < g.size(); from += chunk) {
                out.add(g.subList(from, Math.min(g.size(), from + chunk)));
            }
        }
        return out;
    }

    private static <S extends Enum<S>> boolean distinctIds(List<Decision<S>> decisions, List<Integer> group) {
        Set<Object> ids = new HashSet<>();
        for (int i : group) {
            if (!ids.add(idKey(decisions.get(i).row().id()))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Every index, when all decisions complete rows of one claim into one terminal state setting the same columns (a
     * worker's batch: the usual case, found without a key per row), else null.
     */
    private List<Integer> oneGroup(List<Decision<S>> decisions) {
        Decision<S> first = decisions.get(0);
        Outcome<S> o = first.outcome();
        if (o.kind() != Outcome.Kind.COMPLETE || !shape.machine.isTerminal(o.target())) {
            return null;
        }
        long token = first.row().token();
        S target = o.target();
        Assignments columns = assignments.apply(o);
        List<Integer> all = new ArrayList<>(decisions.size());
        for (int i = 0; i < decisions.size(); i++) {
            Decision<S> d = decisions.get(i);
            Outcome<S> other = d.outcome();
            if (other.kind() != Outcome.Kind.COMPLETE
                    || other.target() != target
                    || d.row().token() != token
                    || !sameColumns(columns, assignments.apply(other))) {
                return null;
            }
            all.add(i);
        }
        return all;
    }

    private static boolean sameColumns(Assignments a, Assignments b) {
        return a == b || a.key().equals(b.key());
    }

    /** The completions into a terminal state, grouped by claim, target and columns set (in order of appearance). */
    private Collection<List<Integer>> groupsByKey(List<Decision<S>> decisions) {
        Map<GroupKey, List<Integer>> groups = new LinkedHashMap<>();
        for (int i = 0; i < decisions.size(); i++) {
            Outcome<S> o = decisions.get(i).outcome();
            if (o.kind() == Outcome.Kind.COMPLETE && shape.machine.isTerminal(o.target())) {
                groups.computeIfAbsent(
                                new GroupKey(
                                        decisions.get(i).row().token(),
                                        o.target(),
                                        assignments.apply(o).key()),
                                k -> new ArrayList<>())
                        .add(i);
            }
        }
        return groups.values();
    }

    /** What a completion group shares: the claim's token, the target state, the columns set. */
    private record GroupKey(long token, Object target, String columns) {}

    /**
     * Writes each group as {@link #completeTogether}, all on one connection in autocommit mode, into {@code out} by
     * index. If the database refuses a group's statement (one row's value the column cannot hold), that group's rows
     * are written one by one instead, so that the poison row alone is dead-lettered.
     */
    private void completeGroups(List<Decision<S>> decisions, List<List<Integer>> groups, List<LeaseResult<S>> out) {
        List<List<Decision<S>>> members = new ArrayList<>(groups.size());
        for (List<Integer> g : groups) {
            List<Decision<S>> m = new ArrayList<>(g.size());
            for (int i : g) {
                m.add(decisions.get(i));
            }
            S target = m.get(0).outcome().target();
            for (S held : shape.held) {
                shape.machine.checkTransition(held, target);
            }
            members.add(m);
        }
        String operation = "complete " + decisions.size() + " row(s) in queue '" + shape.name + "'";
        try {
            // a retry runs every group again: a group that had committed matches no row and is read back as ours
            shape.engine.tx().autocommit(operation, reported(c -> {
                for (int k = 0; k < groups.size(); k++) {
                    List<LeaseResult<S>> written = completeTogether(c, members.get(k));
                    for (int j = 0; j < written.size(); j++) {
                        out.set(groups.get(k).get(j), written.get(j));
                    }
                }
                return null;
            }));
        } catch (DataAccessException e) {
            if (!refusedByDatabase(e)) {
                throw e;
            }
            // the groups written before the refused one keep their results; the rest are left to applyEach
        }
    }

    /**
     * {@code UPDATE … SET state = target, lease = NULL[, col = CASE id WHEN ? THEN ? … ELSE col END] WHERE id IN (…)
     * AND token = ? AND state IN (held)}: atomic by itself, so it runs in autocommit mode. If it changed fewer rows
     * than given, some leases were lost; the rows we completed are those now in the terminal state with our token (a
     * terminal row never moves again, and any later claim of a lost row stamped another token).
     */
    private List<LeaseResult<S>> completeTogether(Connection c, List<Decision<S>> decisions) throws SQLException {
        Assignments columns = assignments.apply(decisions.get(0).outcome());
        S target = decisions.get(0).outcome().target();
        long token = decisions.get(0).row().token();
        int n = decisions.size();
        Optional<SqlFragment> newest = shape.epochs.newestWriter();
        String key = variant("together" + n + columns.key(), newest);
        String update = sql.get(key);
        if (update == null) {
            columns.refuse(managed, "queue '" + shape.name + "'");
            update = sql.computeIfAbsent(key, k -> columns.renderPerRow(shape.dialect, shape.qId, n, settleHead())
                    .append(" WHERE ")
                    .append(idsAndToken(n))
                    .append(" AND ")
                    .append(shape.heldIn.sql())
                    .append(newest.map(w -> " AND " + w.sql()).orElse(""))
                    .toString());
        }
        List<Object> ids = new ArrayList<>(n);
        for (Decision<S> d : decisions) {
            ids.add(d.row().id());
        }
        List<Object> binds = new ArrayList<>(
                n * (1 + 2 * columns.valueCount()) + 2 + shape.heldIn.binds().size());
        binds.add(shape.machine.code(target));
        if (columns.valueCount() > 0) {
            List<Assignments> perRow = new ArrayList<>(n);
            for (Decision<S> d : decisions) {
                perRow.add(assignments.apply(d.outcome()));
            }
            Assignments.addRowValues(perRow, ids, binds);
        }
        binds.addAll(ids);
        binds.add(token);
        binds.addAll(shape.heldIn.binds());
        newest.ifPresent(w -> binds.addAll(w.binds()));
        int count = Drain.update(c, update, binds);
        if (count > n) {
            throw new DataAccessException("a fenced write changed " + count + " rows of " + shape.table + " for " + n
                    + " ids: " + shape.def.columns().id() + " is not unique (ClaimQueue.verify() reports this)");
        }
        Set<Object> ours = count < n ? new HashSet<>() : Set.of();
        if (count < n) {
            List<Object> readBinds = new ArrayList<>(ids);
            readBinds.add(token);
            readBinds.addAll(shape.in(List.of(target)).binds());
            try (PreparedStatement ps = c.prepareStatement("SELECT " + shape.qId + " FROM " + shape.qTable + " WHERE "
                    + idsAndToken(n) + " AND " + shape.in(List.of(target)).sql())) {
                Rows.bind(ps, 1, readBinds);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ours.add(idKey(rs.getObject(1)));
                    }
                }
            }
        }
        List<LeaseResult<S>> results = new ArrayList<>(n);
        for (Decision<S> d : decisions) {
            Object id = d.row().id();
            results.add(
                    count == n || ours.contains(idKey(id))
                            ? new LeaseResult.Done<>(id, target)
                            : new LeaseResult.LeaseLost<>(id));
        }
        return results;
    }

    private String idsAndToken(int n) {
        return shape.qId + " IN (" + Rows.placeholders(n) + ") AND " + shape.qToken + " = ?";
    }

    /** Integral ids compare by value whatever type the driver returned them as. */
    static Object idKey(Object id) {
        return id instanceof Integer || id instanceof Long || id instanceof Short || id instanceof Byte
                ? (Object) ((Number) id).longValue()
                : id;
    }

    /**
     * The result of one fenced write from its update count. A count the driver did not report is settled by reading
     * the row back. So is a write into a terminal state that matched no row: a row already in that state under this
     * claim's token was completed by this claim (an earlier call; a terminal row never moves, any later claim stamps
     * another token, and every sweep, release and resolution clears it), so the answer is {@link LeaseResult.Done},
     * as the one-statement completion of a batch and the retry after a lost reply answer too.
     */
    private LeaseResult<S> settle(Connection c, Prepared<S> p, int count) throws SQLException {
        if (count == Statement.SUCCESS_NO_INFO) {
            return readBack(c, p);
        }
        LeaseResult<S> r = result(p, count);
        if (r instanceof LeaseResult.LeaseLost<S>
                && p.check() == Check.WROTE_STATE
                && shape.machine.isTerminal(p.resultState())) {
            return readBack(c, p);
        }
        return r;
    }

    private LeaseResult<S> result(Prepared<S> p, int count) {
        if (count > 1) {
            throw new DataAccessException("a fenced write changed " + count + " rows of " + shape.table + ": "
                    + shape.def.columns().id() + " is not unique (ClaimQueue.verify() reports this)");
        }
        return count == 1 ? new LeaseResult.Done<>(p.id(), p.resultState()) : new LeaseResult.LeaseLost<>(p.id());
    }

    private LeaseResult<S> readBack(Connection c, Prepared<S> p) throws SQLException {
        String read = "SELECT " + shape.qToken + ", " + shape.qState + " FROM " + shape.qTable + " WHERE " + shape.qId
                + " = ?";
        try (PreparedStatement ps = c.prepareStatement(read)) {
            Rows.bind(ps, 1, List.of(p.id()));
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    long token = rs.getLong(1);
                    boolean tokenNull = rs.wasNull();
                    S state = shape.machine.fromCode(rs.getObject(2)).orElse(null);
                    boolean ours =
                            switch (p.check()) {
                                case WROTE_STATE -> !tokenNull && token == p.token() && state == p.resultState();
                                case STILL_HELD -> !tokenNull && token == p.token() && shape.held.contains(state);
                                case RELEASED -> !tokenNull && token == -p.token() && state == p.resultState();
                            };
                    if (ours) {
                        return new LeaseResult.Done<>(p.id(), p.check() == Check.STILL_HELD ? state : p.resultState());
                    }
                }
            }
        }
        return new LeaseResult.LeaseLost<>(p.id());
    }
}
