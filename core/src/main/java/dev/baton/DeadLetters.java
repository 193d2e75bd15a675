package dev.baton;

import dev.baton.internal.AdminAudit;
import dev.baton.internal.queue.AdminPages;
import dev.baton.internal.queue.DeadLetterStatements;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The operator's view of a claim queue's dead rows ({@link ClaimQueue#deadLetters()}): list them with their reason,
 * count them, requeue one or a bounded number. Immutable and thread-safe.
 *
 * <pre>{@code
 * DeadLetters<Sync> dead = queue.deadLetters().as("alice");
 * for (DeadRow row : dead.list(50)) {
 *     log.warn("order {} gave up after {} attempts: {}", row.longId(), row.attempts(), row.lastError());
 * }
 * dead.requeue(42L); // Applied for exactly one of two operators
 * }</pre>
 *
 * <p>Every read is bounded in its SQL: a page is 1..1000 rows, read by the id after the last one seen with the state
 * predicate (an index on the state and the id serves it: the outbox's table has one; for a host table whose claim
 * index has guard columns between them, add one), and a count stops at its limit; so a page costs about the same with a
 * million dead rows. Every action is guarded by the dead state, and reported to the listeners ({@link
 * BatonListener#onAdminAction}) with the principal of {@link #as(String)}. Limits are checked before any SQL.
 *
 * @param <S> the enum of states
 */
public final class DeadLetters<S extends Enum<S>> {
    private final String queue;
    private final DeadLetterStatements<S> statements;
    private final dev.baton.internal.Engine engine;
    private final DeadLetterFinder<S> finder;
    private final @Nullable String principal;

    DeadLetters(
            String queue,
            dev.baton.internal.Engine engine,
            DeadLetterStatements<S> statements,
            DeadLetterFinder<S> finder,
            @Nullable String principal) {
        this.queue = queue;
        this.engine = engine;
        this.statements = statements;
        this.finder = finder;
        this.principal = principal;
    }

    /**
     * This view acting for {@code principal}: its actions are reported to the listeners with that name.
     *
     * @param principal who acts (a user name, a service account); 1..200 characters, not blank
     * @throws ConfigurationException for a blank or longer principal
     */
    public DeadLetters<S> as(String principal) {
        return new DeadLetters<>(queue, engine, statements, finder, AdminPages.checkPrincipal(principal));
    }

    /** The principal this view acts for, or null when none was given. */
    public @Nullable String principal() {
        return principal;
    }

    /**
     * Rows in the dead state, lowest id first, at most {@code limit}: each with its id, its attempts, the reason kept in
     * the error column and the columns the queue selects. Page with {@link #listAfter}.
     *
     * @throws ConfigurationException if {@code limit} is outside 1..1000 (before any SQL)
     */
    public List<DeadRow> list(int limit) {
        return statements.list(null, limit);
    }

    /**
     * Rows in the dead state with an id greater than {@code afterId} (the last id of the previous page), lowest id
     * first, at most {@code limit}.
     *
     * @throws ConfigurationException if {@code limit} is outside 1..1000 (before any SQL)
     */
    public List<DeadRow> listAfter(Object afterId, int limit) {
        Objects.requireNonNull(afterId, "afterId");
        return statements.list(afterId, limit);
    }

    /** The most dead rows one page of {@link #search} looks at: 10,000. */
    public static final int SEARCH_SCAN = DeadLetterStatements.SEARCH_SCAN;

    /** The longest text {@link #search} takes: 200 characters. */
    public static final int SEARCH_TEXT = DeadLetterStatements.SEARCH_TEXT;

    /**
     * A page of the dead rows whose error contains {@code errorContains} (ignoring case; {@code %}, {@code _} and
     * every other character match only themselves), lowest or highest id first, after {@code afterId}. Bounded: the
     * page looks at the next {@value #SEARCH_SCAN} dead rows in that order at most (two statements: the end of that
     * window by the state and id index, then the matching rows within it), so a search that matches nothing costs no
     * more than {@value #SEARCH_SCAN} index entries and rows however many rows are dead; the result says where to go on
     * ({@link DeadRowPage#continueAfter()}). Without a text it pages all dead rows, as {@link #listAfter} does, in
     * either order. No lock.
     *
     * @param errorContains the text to look for in the error column, 1..{@value #SEARCH_TEXT} characters, or null for
     *     every dead row
     * @param highestFirst true for the highest id first (the newest, for ids that grow), false for the lowest
     * @param afterId the {@link DeadRowPage#continueAfter()} of the previous page, or null for the first
     * @param limit the page size, 1..1000
     * @return the page
     * @throws ConfigurationException if {@code limit} is outside 1..1000 or the text is empty or longer than
     *     {@value #SEARCH_TEXT} characters (before any SQL)
     */
    public DeadRowPage search(
            @Nullable String errorContains, boolean highestFirst, @Nullable Object afterId, int limit) {
        return statements.search(errorContains, highestFirst, afterId, limit);
    }

    /**
     * A page of the dead rows that match {@code query}, in its order, after {@code afterId}. The state, the key and the
     * id range are served by the state-and-id and the key-and-id indexes and read no more rows than the page; with an
     * error text or a time range the page looks at the next {@value #SEARCH_SCAN} rows of those at most, as {@link
     * #search} does, and says where to go on ({@link DeadRowPage#continueAfter()}). The page before a page is the next
     * page of {@link DeadLetterQuery#reversed()} after the page's first id. No lock.
     *
     * @param query what to look for
     * @param afterId the {@link DeadRowPage#continueAfter()} of the previous page (or, reversed, the first id of the
     *     page shown), or null for the first page
     * @param limit the page size, 1..1000
     * @throws ConfigurationException if {@code limit} is outside 1..1000, or the query names a key on a queue without
     *     a key column, or a key that is not a number for an integer key column
     */
    public DeadRowPage find(DeadLetterQuery query, @Nullable Object afterId, int limit) {
        Objects.requireNonNull(query, "query");
        return finder.find(query, afterId, limit);
    }

    /**
     * Counts the dead rows that match {@code query}, looking at {@code bound} of them at most (lowest id first among
     * those the state, key and id range select): the exact number when fewer are there, else a lower bound ({@link
     * DeadRowCount#exact()}). One statement; no lock.
     *
     * @param bound 1..100,000
     * @throws ConfigurationException if {@code bound} is outside 1..100,000 (before any SQL), or as {@link #find}
     */
    public DeadRowCount countMatching(DeadLetterQuery query, int bound) {
        Objects.requireNonNull(query, "query");
        return finder.countMatching(query, bound);
    }

    /** True when the queue has a key column ({@link ClaimQueueBuilder#orderedPerKey}) that {@link DeadLetterQuery#key} searches. */
    public boolean hasKeyColumn() {
        return finder.hasKey();
    }

    /**
     * Every column of the row {@code id}, in any state, as the driver reads them (names in lower case), for an
     * operator's detail view: the state code, attempts, lease, token, next attempt, the whole error, the host's columns.
     * One statement by the primary key; no lock.
     *
     * @return the columns, or empty when there is no such row
     */
    public java.util.Optional<java.util.Map<String, @Nullable Object>> row(Object id) {
        Objects.requireNonNull(id, "id");
        return finder.row(id);
    }

    /**
     * The names of the queue's id, state, attempts, next-attempt and error columns, in that order and in lower case, as
     * {@link #row} keys them.
     */
    public List<String> columnNames() {
        return finder.columnNames();
    }

    /**
     * The number of rows in the dead state, counted up to {@code limit}: the exact number when it is smaller, else
     * {@code limit} ("at least {@code limit}"). One statement that reads at most {@code limit} index entries; no lock.
     *
     * @throws ConfigurationException if {@code limit} is outside 1..100,000 (before any SQL)
     */
    public long count(int limit) {
        return statements.count(limit);
    }

    /**
     * Requeues a dead row: a guarded move from the dead state to the claimable state ({@code WHERE id = ? AND state =
     * dead}), so that of two operators requeueing one row exactly one moves it, and a row that has left the dead state
     * is never touched. The row starts afresh: due at once ({@code next_attempt_at = NULL}), {@code attempts = 0} (the
     * next claim is attempt 1 and the row has all of {@link RetryPolicy#maxAttempts()} again), lease and token cleared.
     * The error column keeps the reason it went dead until its next attempt stores a reason of its own (a retry or
     * dead letter overwrites it, a completion leaves it). The dead state may be terminal in the machine: this is the
     * one move out of it, made by an operator, and it needs no {@code allow(dead, claimable)}. Autocommit, on the data
     * source.
     *
     * <p>On a queue {@link ClaimQueueBuilder#orderedPerKey ordered per key}, a dead row holds its key: the later rows
     * of the key wait behind it until it is requeued (it is then claimed before them, so the order per key is kept) or
     * deleted.
     *
     * @return {@link TransitionResult.Applied} when this call requeued the row; {@link TransitionResult.AlreadyInTarget}
     *     when it is claimable already (another operator requeued it); {@link TransitionResult.Rejected} with the
     *     state it is in when it is not dead; {@link TransitionResult.NotFound}; {@link TransitionResult.InDoubt} when
     *     the connection was lost after the update was sent and the row is claimable now; {@link
     *     TransitionResult.Rejected} with the dead state itself when the row {@link DeadRow#mayHaveBeenSent() may have
     *     been sent} (see {@link #requeue(Object, DeadRow.Requeue)})
     */
    public TransitionResult<S> requeue(Object id) {
        return requeue(id, DeadRow.Requeue.UNLESS_MAYBE_SENT);
    }

    /**
     * {@link #requeue(Object)}, saying which dead rows may move. On a queue with a {@link
     * ClaimQueueBuilder#nonIdempotentSink non-idempotent sink} a row can be dead after its send may have happened (the
     * reconciler's {@code deadLetter} verdict, or a completion the database refused after the send): its error starts
     * with {@link DeadRow#MAY_HAVE_BEEN_SENT}, and a requeue would send it again. Such a row is requeued only with
     * {@link DeadRow.Requeue#EVEN_IF_MAYBE_SENT}, once the operator has checked with the receiver; otherwise it stays
     * dead and the result is {@link TransitionResult.Rejected} with the dead state.
     *
     * @param id the row's id
     * @param which {@link DeadRow.Requeue#UNLESS_MAYBE_SENT} (what {@link #requeue(Object)} does) or {@link
     *     DeadRow.Requeue#EVEN_IF_MAYBE_SENT}
     * @return as {@link #requeue(Object)}
     */
    public TransitionResult<S> requeue(Object id, DeadRow.Requeue which) {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(which, "which");
        TransitionResult<S> r = statements.requeue(id, which);
        AdminAudit.report(
                engine,
                AdminAction.Kind.REQUEUE,
                queue,
                id,
                principal,
                r,
                r instanceof TransitionResult.Applied<S> ? 1 : 0);
        return r;
    }

    /**
     * Requeues up to {@code limit} dead rows, lowest id first, as {@link #requeue(Object)} requeues one, in one bounded
     * statement that skips rows other transactions hold locked; call it again until it returns fewer rows than {@code
     * limit} to requeue them all. Rows that {@link DeadRow#mayHaveBeenSent() may have been sent} are skipped (they stay
     * dead; see {@link #requeueAll(int, DeadRow.Requeue)}).
     *
     * @return the rows requeued ({@link BulkResult#countInDoubt()} when the reply was lost and the statement ran again)
     * @throws ConfigurationException if {@code limit} is outside 1..{@link ClaimQueue#maxBatchSize()} (before any SQL)
     */
    public BulkResult requeueAll(int limit) {
        return requeueAll(limit, DeadRow.Requeue.UNLESS_MAYBE_SENT);
    }

    /**
     * {@link #requeueAll(int)}, saying which dead rows may move: {@link DeadRow.Requeue#EVEN_IF_MAYBE_SENT} requeues
     * rows that may have been sent too, and a non-idempotent sink may act twice for them.
     *
     * @return the rows requeued
     * @throws ConfigurationException if {@code limit} is outside 1..{@link ClaimQueue#maxBatchSize()} (before any SQL)
     */
    public BulkResult requeueAll(int limit, DeadRow.Requeue which) {
        Objects.requireNonNull(which, "which");
        BulkResult r = statements.requeueAll(limit, which);
        AdminAudit.report(engine, AdminAction.Kind.REQUEUE_ALL, queue, null, principal, r, r.rows());
        return r;
    }

    @Override
    public String toString() {
        return "DeadLetters[" + queue + (principal == null ? "" : " as " + principal) + "]";
    }
}
