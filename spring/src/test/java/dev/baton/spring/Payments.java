package dev.baton.spring;

import dev.baton.Baton;
import dev.baton.BeginResult;
import dev.baton.BulkResult;
import dev.baton.EnqueueResult;
import dev.baton.IdempotencyKeys;
import dev.baton.Inbox;
import dev.baton.Message;
import dev.baton.Outbox;
import dev.baton.ReceiveResult;
import dev.baton.StateMachine;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/**
 * A service as a Spring team writes it: Baton's data-source operations inside {@code @Transactional} methods, next to
 * the service's own JDBC write (a ledger row). Each method throws after its writes when {@code fail} is set, so that
 * the transaction rolls back.
 */
public class Payments {
    /** The payment states of the tests. */
    public enum Pay {
        PENDING,
        PAID,
        EXPIRED
    }

    /** PENDING moves once, to PAID or EXPIRED. */
    public static final StateMachine<Pay> MACHINE = StateMachine.of(Pay.class)
            .name("pay")
            .allow(Pay.PENDING, Pay.PAID, Pay.EXPIRED)
            .terminal(Pay.PAID, Pay.EXPIRED)
            .build();

    private final StateTable<Pay> orders;
    private final Outbox outbox;
    private final IdempotencyKeys keys;
    private final Inbox inbox;
    private final JdbcTemplate jdbc;
    private final String ledger;

    Payments(Baton baton, JdbcTemplate jdbc, SpringFixture.Names names) {
        this.orders = baton.table(names.orders()).id("id").state("status", MACHINE);
        this.outbox = baton.outbox(names.outbox());
        this.keys = baton.idempotencyKeys(names.keys());
        this.inbox = baton.inbox(names.inbox());
        this.jdbc = jdbc;
        this.ledger = names.ledger();
    }

    /** The orders' binding (a method: fields of the transactional proxy are not the service's). */
    public StateTable<Pay> orders() {
        return orders;
    }

    /** The idempotency keys. */
    public IdempotencyKeys keys() {
        return keys;
    }

    /** The service's own write, in the same transaction. */
    public void ledger(long orderId) {
        jdbc.update("INSERT INTO " + ledger + " (order_id) VALUES (?)", orderId);
    }

    /** The rollback the tests ask for. */
    static void failIf(boolean fail) {
        if (fail) {
            throw new IllegalStateException("the service fails after its writes");
        }
    }

    /** The gateway callback: the transition and its ledger row. */
    @Transactional
    public TransitionResult<Pay> pay(long id, boolean fail) {
        TransitionResult<Pay> r = orders.transition(id, Pay.PENDING, Pay.PAID).apply();
        if (r.applied()) {
            ledger(id);
        }
        failIf(fail);
        return r;
    }

    /** The expiry sweep. */
    @Transactional
    public BulkResult expireAll(boolean fail) {
        BulkResult r = orders.bulk(Pay.PENDING, Pay.EXPIRED).apply();
        failIf(fail);
        return r;
    }

    /** An announcement. */
    @Transactional
    public EnqueueResult announce(long id, boolean fail) {
        ledger(id);
        EnqueueResult r = outbox.enqueue(Message.of("payment.paid", Long.toString(id)));
        failIf(fail);
        return r;
    }

    /** An announcement, in whatever transaction is open (no {@code @Transactional}). */
    public EnqueueResult announceOnly(long id) {
        return outbox.enqueue(Message.of("payment.paid", Long.toString(id)));
    }

    /** The transition and its announcement. */
    @Transactional
    public TransitionResult<Pay> payAndAnnounce(long id, boolean fail) {
        TransitionResult<Pay> r = outbox.transitionAndEnqueue(
                orders.transition(id, Pay.PENDING, Pay.PAID), Message.of("payment.paid", Long.toString(id)));
        failIf(fail);
        return r;
    }

    /** The start of an idempotent request. */
    @Transactional
    public BeginResult begin(String key, boolean fail) {
        BeginResult r = keys.begin("customer-1", key, "POST /payments");
        failIf(fail);
        return r;
    }

    /** A webhook delivery. */
    @Transactional
    public ReceiveResult receive(String messageId, boolean fail) {
        ReceiveResult r = inbox.receive("gateway", messageId);
        failIf(fail);
        return r;
    }

    /** The gateway callback, after {@code before} ran in the transaction (where a test kills the session). */
    @Transactional
    public TransitionResult<Pay> payAfter(long id, Runnable before) {
        before.run();
        TransitionResult<Pay> r = orders.transition(id, Pay.PENDING, Pay.PAID).apply();
        if (r.applied()) {
            ledger(id);
        }
        return r;
    }
}
