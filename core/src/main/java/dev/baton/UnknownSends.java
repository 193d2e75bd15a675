package dev.baton;

import dev.baton.internal.AdminAudit;
import dev.baton.internal.queue.AdminPages;
import dev.baton.internal.queue.FencedWrites;
import dev.baton.internal.queue.QueueShape;
import dev.baton.internal.queue.SendProtocol;
import dev.baton.internal.queue.Sweeps;
import dev.baton.internal.queue.UnknownStatements;
import dev.baton.internal.values.TypedValues;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The operator's (and a reconciler's) view of a claim queue's unknown sends ({@link ClaimQueue#unknownSends()}): rows
 * of a {@link ClaimQueueBuilder#nonIdempotentSink non-idempotent sink} whose send may or may not have happened. List
 * them, count them, and resolve each after asking the sink: sent, not sent, or given up. Immutable and thread-safe. On
 * a queue without an unknown state the lists are empty and the resolutions throw {@link ConfigurationException}.
 *
 * <pre>{@code
 * UnknownSends<Sync> unknown = queue.unknownSends().as("alice");
 * for (Object id : unknown.ready(100)) {
 *     Optional<String> guid = thirdParty.findByOrder(id);
 *     if (guid.isPresent()) {
 *         unknown.resolveSent(id, Outcome.complete(Sync.COMPLETED).set("third_party_guid", guid.get()));
 *     } else {
 *         unknown.resolveNotSent(id); // sent again (or dead when its attempts are used up)
 *     }
 * }
 * }</pre>
 *
 * <p>Reads are bounded in their SQL as {@link DeadLetters}' are (pages of 1..1000 by id with the state predicate,
 * counts that stop at their limit). Every resolution is guarded by the unknown state, so two reconcilers cannot both
 * resolve a row, and is reported to the listeners ({@link BatonListener#onAdminAction}) with the principal of {@link
 * #as(String)}.
 *
 * <p>A resolution does not wait for the row's quarantine ({@link UnknownRow#ready()}): an operator may resolve any
 * unknown row. Before answering "not sent" for a row still in quarantine, be sure its sender is gone (its process
 * ended): a sender paused after its mark may still call the sink, and the row would then be sent twice.
 *
 * @param <S> the enum of states
 */
public final class UnknownSends<S extends Enum<S>> {
    private final QueueShape<S> shape;
    private final FencedWrites<S> writes;
    private final Sweeps<S> sweeps;
    private final UnknownStatements<S> statements;
    private final @Nullable String principal;

    UnknownSends(
            QueueShape<S> shape,
            FencedWrites<S> writes,
            Sweeps<S> sweeps,
            UnknownStatements<S> statements,
            @Nullable String principal) {
        this.shape = shape;
        this.writes = writes;
        this.sweeps = sweeps;
        this.statements = statements;
        this.principal = principal;
    }

    /**
     * This view acting for {@code principal}: its resolutions are reported to the listeners with that name.
     *
     * @param principal who acts (a user name, a service account); 1..200 characters, not blank
     * @throws ConfigurationException for a blank or longer principal
     */
    public UnknownSends<S> as(String principal) {
        return new UnknownSends<>(shape, writes, sweeps, statements, AdminPages.checkPrincipal(principal));
    }

    /** The principal this view acts for, or null when none was given. */
    public @Nullable String principal() {
        return principal;
    }

    /**
     * Rows in the unknown state, in quarantine or not, lowest id first, at most {@code limit}: each with its attempts,
     * its last error, the end of its quarantine and whether it passed. Page with {@link #listAfter}.
     *
     * @throws ConfigurationException if {@code limit} is outside 1..1000 (before any SQL)
     */
    public List<UnknownRow> list(int limit) {
        return statements.list(null, limit);
    }

    /**
     * Rows in the unknown state with an id greater than {@code afterId}, lowest id first, at most {@code limit}.
     *
     * @throws ConfigurationException if {@code limit} is outside 1..1000 (before any SQL)
     */
    public List<UnknownRow> listAfter(Object afterId, int limit) {
        Objects.requireNonNull(afterId, "afterId");
        return statements.list(afterId, limit);
    }

    /**
     * The number of rows in the unknown state (in quarantine or not), counted up to {@code limit}: the exact number
     * when it is smaller, else {@code limit}.
     *
     * @throws ConfigurationException if {@code limit} is outside 1..100,000 (before any SQL)
     */
    public long count(int limit) {
        return statements.count(limit);
    }

    /**
     * Ids of rows in the unknown state that are ready for reconciliation, lowest id first, at most {@code limit}. A row
     * is ready once its quarantine passed by the database clock: the expiry sweep gives a send whose lease ran out
     * {@code lease_until + sendTimeout + margin} (the margin is a twentieth of the lease, at most 2 s), a handler that
     * failed after the mark {@code now + sendTimeout + margin}, and keeps it in the lease column. Until then the sender
     * may still be alive, paused between its last check and its call, and a sink that has nothing yet proves nothing.
     * Rows in quarantine are left out (they are counted in {@link QueueHealth}, and listed by {@link #list}).
     *
     * @throws ConfigurationException if {@code limit} is outside 1..1000 (before any SQL)
     */
    public List<Object> ready(int limit) {
        return sweeps.unknownRows(null, limit);
    }

    /**
     * Ids of rows ready for reconciliation (as {@link #ready(int)}) with an id greater than {@code afterId}, lowest id
     * first, at most {@code limit}: the next page after the last id of the previous one.
     *
     * @throws ConfigurationException if {@code limit} is outside 1..1000 (before any SQL)
     */
    public List<Object> readyAfter(Object afterId, int limit) {
        Objects.requireNonNull(afterId, "afterId");
        return sweeps.unknownRows(afterId, limit);
    }

    /**
     * {@link #ready(int)} with the ids as {@code idType}, converted as {@link ClaimedRow#id(Class)} converts an id.
     *
     * @throws ConfigurationException if {@code limit} is outside 1..1000 (before any SQL)
     * @throws ClassCastException if an id is not readable as {@code idType}
     */
    public <I> List<I> ready(int limit, Class<I> idType) {
        Objects.requireNonNull(idType, "idType");
        List<I> ids = new ArrayList<>();
        for (Object id : sweeps.unknownRows(null, limit)) {
            ids.add(TypedValues.as(id, idType, "id of an unknown send in queue '" + shape.name + "'"));
        }
        return ids;
    }

    /**
     * Resolves an unknown row as sent (the sink has it): completes it into the completion's state with its columns.
     *
     * @param completion an {@link Outcome#complete} outcome
     * @return Done, or LeaseLost when the row was no longer unknown
     * @throws ConfigurationException if the queue has no unknown state, or {@code completion} is not a completion
     * @throws IllegalVerdictException before any SQL, if the completion's state is one of the queue's own (claimable,
     *     processing, sending, unknown or dead): a row declared sent must never be handed out again, nor be dead
     *     without the mark that keeps a requeue from sending it; to give up, use {@link #deadLetter}
     * @throws IllegalTransitionException if the machine does not allow unknown → the completion's state
     * @throws OutcomeInDoubtException when the connection was lost after the update was sent and the row is no longer
     *     unknown: this call or another resolved it
     */
    public LeaseResult<S> resolveSent(Object id, Outcome<S> completion) {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(completion, "completion");
        SendProtocol<S> send = checkUnknown();
        if (completion.kind() != Outcome.Kind.COMPLETE) {
            throw new ConfigurationException("a sent row resolves with Outcome.complete, not " + completion.kind());
        }
        S target = completion.target();
        if (target == shape.claimable
                || target == shape.dead
                || target == send.unknown()
                || target == shape.processing
                || target == send.sending()) {
            // a row the sink has must leave the queue: claimable would send it again, dead would lose the maybe-sent
            // mark a requeue looks for (give up with deadLetter), and a held state has no claim
            throw new IllegalVerdictException(
                    shape.name,
                    id,
                    completion,
                    "a sent row completes into a state outside the queue (" + target + " is the queue's own; give up"
                            + " with deadLetter)");
        }
        shape.machine.checkTransition(send.unknown(), target);
        return reported(AdminAction.Kind.RESOLVE_SENT, id, writes.resolveUnknown(id, completion.target(), completion));
    }

    /**
     * Resolves an unknown row as not sent (the sink has nothing): it returns to the claimable state to be sent again,
     * unless it has used {@code maxAttempts}: then it goes to the dead state, as an expired last attempt does in {@link
     * ClaimQueue#reclaimExpired()} (when the machine allows unknown → dead).
     *
     * @return Done (claimable, or dead), or LeaseLost when the row was no longer unknown
     * @throws ConfigurationException if the queue has no unknown state
     * @throws IllegalTransitionException if the machine does not allow unknown → claimable
     * @throws OutcomeInDoubtException as {@link #resolveSent}
     */
    public LeaseResult<S> resolveNotSent(Object id) {
        Objects.requireNonNull(id, "id");
        S unknown = checkUnknown().unknown();
        shape.machine.checkTransition(unknown, shape.claimable);
        LeaseResult<S> r;
        if (shape.machine.canTransition(unknown, shape.dead) && sweeps.deadLetterIfExhausted(id)) {
            r = new LeaseResult.Done<>(id, shape.dead); // sending again would pass maxAttempts
        } else {
            r = writes.resolveUnknown(id, shape.claimable, null);
        }
        return reported(AdminAction.Kind.RESOLVE_NOT_SENT, id, r);
    }

    /**
     * Gives up on an unknown row: it moves to the dead state with {@code reason}, its error starting with {@link
     * DeadRow#MAY_HAVE_BEEN_SENT} (so that a requeue asks for {@link DeadRow.Requeue#EVEN_IF_MAYBE_SENT}). The
     * listeners hear {@link BatonListener#onDeadLetter} with {@link BatonListener.DeadLetterReason#RECONCILER}.
     *
     * @return Done (dead), or LeaseLost when the row was no longer unknown
     * @throws ConfigurationException if the queue has no unknown state
     * @throws IllegalTransitionException if the machine does not allow unknown → dead
     * @throws OutcomeInDoubtException as {@link #resolveSent}
     */
    public LeaseResult<S> deadLetter(Object id, @Nullable String reason) {
        Objects.requireNonNull(id, "id");
        shape.machine.checkTransition(checkUnknown().unknown(), shape.dead);
        LeaseResult<S> dead = writes.resolveUnknownDead(id, reason);
        if (dead instanceof LeaseResult.Done<S>) {
            shape.engine.events().fire(l -> l.onDeadLetter(shape.name, 1, BatonListener.DeadLetterReason.RECONCILER));
        }
        return reported(AdminAction.Kind.DEAD_LETTER, id, dead);
    }

    /**
     * Applies a reconciler's verdict to an unknown row: {@link Outcome#complete} ({@link #resolveSent}), {@link
     * Outcome#release()} ({@link #resolveNotSent}), {@link Outcome#deadLetter} ({@link #deadLetter}), {@link
     * Outcome#unknown} or {@code null} (cannot tell yet: the row stays unknown, nothing is written or reported). The
     * token of the claim that sent it is cleared, so a stale worker never counts the row as its own.
     *
     * @param id the row's id
     * @param verdict the verdict, or null
     * @return {@link LeaseResult.Done} with the new state (or the unknown state when nothing was written), or {@link
     *     LeaseResult.LeaseLost} if the row was not in the unknown state
     * @throws IllegalVerdictException before any SQL, for any other verdict (e.g. a retry): it cannot say whether the
     *     sink has the row
     * @throws ConfigurationException if the queue has no unknown state
     * @throws IllegalTransitionException if the machine does not allow the verdict's move out of the unknown state
     */
    public LeaseResult<S> resolve(Object id, @Nullable Outcome<S> verdict) {
        Objects.requireNonNull(id, "id");
        S unknown = checkUnknown().unknown();
        if (verdict == null || verdict.kind() == Outcome.Kind.UNKNOWN) {
            return new LeaseResult.Done<>(id, unknown);
        }
        return switch (verdict.kind()) {
            case COMPLETE -> resolveSent(id, verdict);
            case RELEASE -> resolveNotSent(id);
            case DEAD_LETTER -> deadLetter(id, verdict.error());
            default -> throw new IllegalVerdictException(shape.name, id, verdict);
        };
    }

    /** The queue's send protocol, refusing a queue without one. */
    private SendProtocol<S> checkUnknown() {
        return shape.send.orElseThrow(
                () -> new ConfigurationException("queue '" + shape.name + "' has no unknown state"));
    }

    private LeaseResult<S> reported(AdminAction.Kind kind, Object id, LeaseResult<S> r) {
        AdminAudit.report(shape.engine, kind, shape.name, id, principal, r, r.done() ? 1 : 0);
        return r;
    }

    @Override
    public String toString() {
        return "UnknownSends[" + shape.name + (principal == null ? "" : " as " + principal) + "]";
    }
}
